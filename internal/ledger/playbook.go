package ledger

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// A playbook is the fix for one error signature, in
// .ledger/playbooks/<signature>.md, which people read and edit:
//
//	# Playbook e3b0c44298fc
//
//	## Error
//
//	```text
//	the normalised error text
//	```
//
//	## What it looks like
//
//	```text
//	an excerpt of the error as it was seen
//	```
//
//	## Fix
//
//	1. The first step.
//	2. The second step; a step goes on over
//	   lines indented under its text.
//
//	## Evidence
//
//	- run:r-41
//	- commit:4f2a9c1
//
// The file is read line by line: the heading names the signature; the
// sections are found by their "## " headings (in any order; Error and What
// it looks like may be missing, other sections are kept and ignored); the
// error and the excerpt are a fenced code block or plain text; the steps
// are a numbered list; evidence is a list of kind:ref items. Positions are
// kept as lines, so that adding steps and evidence splices lines into the
// file and never reformats what a person wrote.

// SignatureLen is the number of hex digits of an error signature's hash.
const SignatureLen = 12

var signatureHash = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{12}$`) })

// ValidSignature reports whether s is an error signature's hash: 12
// lowercase hex digits.
func ValidSignature(s string) bool { return signatureHash().MatchString(s) }

// PlaybookFileName is the name of the playbook file of a signature.
func PlaybookFileName(signature string) string { return signature + ".md" }

// Playbook is one parsed playbook file.
type Playbook struct {
	// Path is relative to the workspace root, slash-separated.
	Path string
	// Signature is the hash in the file's heading.
	Signature string
	// Error is the normalised error text; Excerpt what the error looked
	// like. Either may be empty.
	Error, Excerpt string
	Steps          []Step
	// Evidence items as written, kind:ref (run:r-41, commit:4f2a9c1).
	Evidence []string
	Problems []Problem
	// ConflictLines are git conflict markers; memctl writes nothing into
	// such a file.
	ConflictLines []int

	src []byte
	// The last line of the Fix and Evidence sections' content (their
	// heading's line when they are empty), 0 when there is no section.
	fixEnd, evidenceEnd int
	// nextStep is the number the next step gets.
	nextStep int
	// headingLine is the line of the "# Playbook" heading.
	headingLine int
}

// Step is one fix step.
type Step struct {
	Text string
	// Line and EndLine are the step's first and last lines, 1-based.
	Line, EndLine int
}

// StepTexts returns the steps' texts.
func (p *Playbook) StepTexts() []string {
	out := make([]string, len(p.Steps))
	for i, s := range p.Steps {
		out[i] = s.Text
	}
	return out
}

// Title is the first line of the playbook's error text, else of its
// excerpt, else its signature: what a list shows it by.
func (p *Playbook) Title() string {
	for _, t := range []string{p.Error, p.Excerpt} {
		if first, _, _ := strings.Cut(strings.TrimSpace(t), "\n"); first != "" {
			return strings.TrimSpace(first)
		}
	}
	return p.Signature
}

// Source is the file's content as read. It must not be modified.
func (p *Playbook) Source() []byte { return p.src }

// PlaybookError is a playbook file memctl cannot read, so it does not
// write into it.
type PlaybookError struct {
	Path    string
	Line    int
	Message string
}

func (e *PlaybookError) Error() string { return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Message) }

// Err is nil for a file memctl can write into, else a *ConflictError for
// conflict markers or a *PlaybookError for the first problem.
func (p *Playbook) Err() error {
	if len(p.ConflictLines) > 0 {
		return &ConflictError{Path: p.Path, Line: p.ConflictLines[0]}
	}
	if len(p.Problems) > 0 {
		return &PlaybookError{Path: p.Path, Line: p.Problems[0].Line, Message: p.Problems[0].Message}
	}
	return nil
}

// Playbook sections, by their heading in lower case.
const (
	sectionError    = "error"
	sectionExcerpt  = "what it looks like"
	sectionFix      = "fix"
	sectionEvidence = "evidence"
)

var (
	stepMarker   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {0,3}([0-9]{1,9})[.)]( +|$)`) })
	evidenceItem = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {0,3}[-*+] +(\S.*)$`) })
	evidenceRef  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z]+:\S`) })
)

// section is one "## " section of a playbook: its heading's line and the
// lines after it up to the next heading.
type section struct {
	name  string
	line  int      // the heading's line, 1-based
	lines []string // the content, without line endings
}

// ParsePlaybook reads one playbook file; path is relative to the
// workspace root. It never fails: what it cannot read becomes a Problem,
// and what it could read is still returned.
func ParsePlaybook(path string, src []byte) *Playbook {
	p := &Playbook{Path: path, src: src}
	body, ok := readable(src, "playbooks", &p.Problems, &p.ConflictLines)
	if !ok {
		return p
	}
	lines := splitLines(body)
	sections := p.parseHeading(lines)
	seen := map[string]int{}
	for _, s := range sections {
		if first, ok := seen[s.name]; ok && s.name != "" {
			p.problem(s.line, fmt.Sprintf("a second %q section (the first is at line %d); merge them into one", s.name, first))
			continue
		}
		seen[s.name] = s.line
		switch s.name {
		case sectionError:
			p.Error = p.blockText(s)
		case sectionExcerpt:
			p.Excerpt = p.blockText(s)
		case sectionFix:
			p.parseSteps(s)
		case sectionEvidence:
			p.parseEvidence(s)
		}
	}
	if _, ok := seen[sectionFix]; !ok && p.Signature != "" {
		p.problem(p.headingLine, `no "## Fix" section; the fix steps are a numbered list under that heading`)
	} else if ok && len(p.Steps) == 0 {
		p.problem(seen[sectionFix], `the "## Fix" section has no steps; write them as a numbered list (1. …)`)
	}
	return p
}

func (p *Playbook) problem(line int, msg string) {
	p.Problems = append(p.Problems, Problem{Line: max(line, 1), Message: msg})
}

// parseHeading reads the "# Playbook <signature>" heading and splits the
// rest into sections. Lines inside a fenced code block are never headings.
func (p *Playbook) parseHeading(lines []string) []section {
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	const want = `the file starts with the heading "# Playbook <signature>", the signature 12 lowercase hex digits`
	if i == len(lines) {
		p.problem(1, "is empty; "+want)
		return nil
	}
	p.headingLine = i + 1
	fields := strings.Fields(strings.TrimPrefix(lines[i], "# "))
	switch {
	case !strings.HasPrefix(lines[i], "# ") || len(fields) != 2 || !strings.EqualFold(fields[0], "playbook"):
		p.problem(i+1, want)
	case !ValidSignature(fields[1]):
		p.problem(i+1, fmt.Sprintf("%q is not a signature: use 12 lowercase hex digits (memctl signature prints it)", fields[1]))
	default:
		p.Signature = fields[1]
	}
	var (
		out   []section
		cur   = section{line: i + 1}
		fence string
	)
	for n := i + 1; n < len(lines); n++ {
		l := lines[n]
		if fence != "" {
			if closesFence(l, fence) {
				fence = ""
			}
		} else if f := openFence(l); f != "" {
			fence = f
		} else if strings.HasPrefix(l, "## ") || l == "##" {
			out = append(out, cur)
			cur = section{name: strings.ToLower(strings.TrimSpace(strings.TrimPrefix(l, "##"))), line: n + 1}
			continue
		}
		cur.lines = append(cur.lines, l)
	}
	out = append(out, cur)
	// The text between the heading and the first section is prose, kept
	// and ignored, like any section memctl does not know.
	out[0].name = ""
	return out
}

// openFence returns the fence a line opens (``` or ~~~, three or more,
// indented at most three spaces), or "".
func openFence(l string) string {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 || (t[0] == '`' && strings.ContainsRune(t[n:], '`')) {
		return ""
	}
	return t[:n]
}

// closesFence reports whether l closes a block opened with fence: the
// fence's character at least as many times, indented at most three spaces.
func closesFence(l, fence string) bool {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 {
		return false
	}
	t = strings.TrimRight(t, " \t")
	return len(t) >= len(fence) && strings.Trim(t, fence[:1]) == ""
}

// blockText is a section's text: the content of its fenced code block, or
// its lines as plain text when there is none.
func (p *Playbook) blockText(s section) string {
	start := 0
	for start < len(s.lines) && strings.TrimSpace(s.lines[start]) == "" {
		start++
	}
	if start == len(s.lines) {
		return ""
	}
	fence := openFence(s.lines[start])
	if fence == "" {
		return tidy(strings.Join(s.lines[start:], "\n"))
	}
	for end := start + 1; end < len(s.lines); end++ {
		if closesFence(s.lines[end], fence) {
			for k := end + 1; k < len(s.lines); k++ {
				if strings.TrimSpace(s.lines[k]) != "" {
					p.problem(s.line+1+k, fmt.Sprintf("text after the code block of %q; put it inside the block or in a section of its own", s.name))
					break
				}
			}
			return strings.Join(s.lines[start+1:end], "\n")
		}
	}
	p.problem(s.line+1+start, "a code block that is never closed; end it with a line "+fence)
	return ""
}

// parseSteps reads the numbered list of the Fix section. A step goes on
// over the indented lines after it, blank lines between them included.
func (p *Playbook) parseSteps(s section) {
	p.fixEnd = s.line
	var (
		cur    *Step
		indent int
		text   []string
	)
	flush := func() {
		if cur != nil {
			if cur.Text = tidy(strings.Join(text, "\n")); cur.Text == "" {
				p.problem(cur.Line, "an empty step; write the step after its number or delete the line")
			}
			p.Steps = append(p.Steps, *cur)
			cur, text = nil, nil
		}
	}
	for k, l := range s.lines {
		n := s.line + 1 + k
		if strings.TrimSpace(l) == "" {
			if cur != nil {
				text = append(text, "")
			}
			continue
		}
		if m := stepMarker().FindStringSubmatchIndex(l); m != nil {
			flush()
			num, _ := strconv.Atoi(l[m[2]:m[3]])
			p.nextStep = num + 1
			cur = &Step{Line: n, EndLine: n}
			indent = m[1]
			if m[5]-m[4] > 4 { // indented code right after the marker
				indent = m[4] + 1
			}
			text = append(text, l[min(indent, len(l)):])
			p.fixEnd = n
			continue
		}
		lead := len(l) - len(strings.TrimLeft(l, " "))
		if cur == nil || lead == 0 {
			p.problem(n, `text in "## Fix" that is not a numbered step; start each step with "1.", "2.", … and indent the lines that continue it`)
			continue
		}
		text = append(text, l[min(lead, indent):])
		cur.EndLine, p.fixEnd = n, n
	}
	flush()
	if p.nextStep <= len(p.Steps) {
		p.nextStep = len(p.Steps) + 1
	}
}

// parseEvidence reads the Evidence section's list of kind:ref items.
func (p *Playbook) parseEvidence(s section) {
	p.evidenceEnd = s.line
	for k, l := range s.lines {
		n := s.line + 1 + k
		if strings.TrimSpace(l) == "" {
			continue
		}
		m := evidenceItem().FindStringSubmatch(l)
		if m == nil || !evidenceRef().MatchString(m[1]) {
			p.problem(n, `evidence is a list of kind:ref items, one a line: "- run:r-41", "- commit:4f2a9c1"`)
			continue
		}
		p.Evidence = append(p.Evidence, strings.TrimSpace(m[1]))
		p.evidenceEnd = n
	}
}

// PlaybookContent is what a new playbook file holds.
type PlaybookContent struct {
	Signature, Error, Excerpt string
	Steps, Evidence           []string
}

// FormatPlaybook renders a new playbook file.
func FormatPlaybook(c PlaybookContent) []byte {
	var b strings.Builder
	b.WriteString("# Playbook " + c.Signature + "\n")
	block := func(heading, text string) {
		text = strings.Trim(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
		if strings.TrimSpace(text) == "" {
			return
		}
		fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
		fmt.Fprintf(&b, "\n## %s\n\n%stext\n%s\n%s\n", heading, fence, text, fence)
	}
	block("Error", c.Error)
	block("What it looks like", c.Excerpt)
	b.WriteString("\n## Fix\n\n")
	for i, s := range c.Steps {
		for _, l := range formatStep(i+1, s) {
			b.WriteString(l + "\n")
		}
	}
	b.WriteString("\n## Evidence\n\n")
	for _, e := range c.Evidence {
		b.WriteString("- " + e + "\n")
	}
	return []byte(b.String())
}

// formatStep renders step n as list lines, continuation lines indented
// under its text.
func formatStep(n int, text string) []string {
	return FormatFact(strconv.Itoa(n)+". ", text, "")
}

// FormatSteps renders steps as the numbered list a playbook holds.
func FormatSteps(steps []string) string {
	var lines []string
	for i, s := range steps {
		lines = append(lines, formatStep(i+1, s)...)
	}
	return strings.Join(lines, "\n")
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// AppendPlaybook returns src, the playbook p as read, with the steps and
// evidence it does not have yet added at the end of its Fix and Evidence
// sections (a missing section is added at the end of the file). Every
// other line stays as it was. added counts the new steps and evidence;
// with none, src is returned unchanged.
func AppendPlaybook(src []byte, p *Playbook, steps, evidence []string) (out []byte, added int) {
	have := map[string]bool{}
	for _, s := range p.Steps {
		have[s.Text] = true
	}
	var stepLines []string
	n := p.nextStep
	for _, s := range steps {
		s = tidy(s)
		if s == "" || have[s] {
			continue
		}
		have[s] = true
		stepLines = append(stepLines, formatStep(n, s)...)
		n++
		added++
	}
	haveEv := map[string]bool{}
	for _, e := range p.Evidence {
		haveEv[e] = true
	}
	var evLines []string
	for _, e := range evidence {
		if e = strings.TrimSpace(e); e != "" && !haveEv[e] {
			haveEv[e] = true
			evLines = append(evLines, "- "+e)
			added++
		}
	}
	if added == 0 {
		return src, 0
	}
	lines := splitLines(src)
	type insert struct {
		after int // insert after this many lines
		lines []string
	}
	var ins []insert
	tail := []string{}
	add := func(end int, heading string, body []string) {
		switch {
		case len(body) == 0:
		case end > 0 && end == sectionHeadingLine(lines, end):
			ins = append(ins, insert{end, append([]string{""}, body...)}) // a heading without content
		case end > 0:
			ins = append(ins, insert{end, body})
		default:
			tail = append(tail, append([]string{"", "## " + heading, ""}, body...)...)
		}
	}
	add(p.fixEnd, "Fix", stepLines)
	add(p.evidenceEnd, "Evidence", evLines)
	// Later positions first, so that earlier ones still count right.
	if len(ins) == 2 && ins[0].after < ins[1].after {
		ins[0], ins[1] = ins[1], ins[0]
	}
	for _, in := range ins {
		body := append([]string{}, in.lines...)
		if in.after < len(lines) && strings.TrimSpace(lines[in.after]) != "" {
			body = append(body, "") // keep a blank line before what follows
		}
		lines = append(lines[:in.after], append(body, lines[in.after:]...)...)
	}
	if len(tail) > 0 {
		for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
			lines = lines[:len(lines)-1]
		}
		lines = append(lines, tail...)
	}
	nl := lineEnding(src)
	return []byte(strings.Join(lines, nl) + nl), added
}

// sectionHeadingLine is end when line end (1-based) of lines is a "## "
// heading, else 0.
func sectionHeadingLine(lines []string, end int) int {
	if end >= 1 && end <= len(lines) && strings.HasPrefix(lines[end-1], "##") {
		return end
	}
	return 0
}

// PlaybookNames lists the playbook files in dir (*.md, not hidden),
// sorted; a missing directory has none. rel names dir in errors.
func PlaybookNames(dir, rel string) ([]string, error) {
	names, err := FileNames(dir, rel)
	if err != nil {
		return nil, fmt.Errorf("read playbooks: %w", err)
	}
	return names, nil
}

// ReadPlaybook reads and parses the playbook file at file (on disk); rel
// is its path relative to the workspace root. A missing file is nil and
// no error.
func ReadPlaybook(file, rel string) (*Playbook, error) {
	src, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read playbook %s: %w", rel, err)
	}
	return ParsePlaybook(rel, src), nil
}
