// Package secrets finds credentials in text before memctl writes it into
// memory. It uses gitleaks' default rules, generated into a Go table
// (rules_gen.go) from the gitleaks version in gitleakscheck/go.mod, with a
// scanning loop of our own that follows gitleaks' detector step by step
// for text that has no file path or commit. TestScanAgreesWithGitleaks, in
// that nested module (which keeps gitleaks out of memctl's go.mod), runs
// both on the same inputs.
//
// Linking gitleaks itself would cost every memctl command, read paths
// included, its package graph's start-up; the table costs nothing until
// the first Scan, and a Scan compiles only the rules whose keywords occur
// in the text.
package secrets

//go:generate go run -C gitleakscheck ./gen -o ../rules_gen.go

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Finding is a secret found in text: which rule matched and where. It
// never holds the secret itself.
type Finding struct {
	RuleID string
	Line   int // 1-based
	Column int // 1-based, in bytes
	// Fingerprint identifies the finding (see Fingerprint), for the
	// allow-list.
	Fingerprint string
}

func (f Finding) String() string {
	return fmt.Sprintf("%s at line %d, column %d (fingerprint %s)", f.RuleID, f.Line, f.Column, f.Fingerprint)
}

// Describe lists findings for an error message, without the secrets.
func Describe(fs []Finding) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.String()
	}
	return strings.Join(parts, "; ")
}

// rule is one gitleaks rule that applies to text without a path.
type rule struct {
	id          string
	re          *lazyRegexp
	secretGroup int
	entropy     float64
	keywords    []string // lower case; none means always run
	allowlists  []allowlist
	// sameUserPass (memctl's own URL rule): a match whose groups 1 and 2
	// (user and password) are the same is no finding.
	sameUserPass bool
}

type target uint8

const (
	targetSecret target = iota
	targetMatch
	targetLine
)

// allowlist is gitleaks' allowlist reduced to what text without a path or
// commit can satisfy: its regexes, joined into one, and its stop words.
type allowlist struct {
	target    target
	and       bool // every check present must pass (else any one)
	re        *lazyRegexp
	stopwords []string // lower case
}

// lazyRegexp compiles on first use: most rules never run on a given text.
type lazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
	err  error
}

func (l *lazyRegexp) get() (*regexp.Regexp, error) {
	l.once.Do(func() {
		l.re, l.err = regexp.Compile(l.src)
		if l.err != nil {
			l.err = fmt.Errorf("secret scanner: compile %q: %w", l.src, l.err)
		}
	})
	return l.re, l.err
}

// finding is a match before it is reported.
type finding struct {
	rule   *rule
	line   int    // 0-based, as gitleaks counts for its duplicate filter
	offset int    // byte offset of the match
	secret string // the secret (a capture group of the match, or all of it)
	// secretAt is the byte offset of the secret in the text: what
	// redaction replaces is the secret, not the whole match.
	secretAt int
	matchEnd int // the byte offset of the match's end
}

const allowSignature = "gitleaks:allow"

// Scan returns the secrets in text, in order of position. It is safe for
// concurrent use.
func Scan(text string) ([]Finding, error) {
	found, err := scan(text)
	if err != nil {
		return nil, err
	}
	return positions(text, found), nil
}

// positions turns found into Findings in order of position.
func positions(text string, found []finding) []Finding {
	out := make([]Finding, len(found))
	for i, f := range found {
		line, col := position(text, f.offset)
		out[i] = Finding{RuleID: f.rule.id, Line: line, Column: col, Fingerprint: Fingerprint(f.rule.id, f.secret)}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		if out[i].Column != out[j].Column {
			return out[i].Column < out[j].Column
		}
		return out[i].RuleID < out[j].RuleID
	})
	return out
}

// scan is gitleaks' DetectString for text without a path, with a
// Detector made by NewDetectorDefaultConfig (so no decoding passes).
func scan(text string) ([]finding, error) {
	set := newRuleSet()
	keywords().match(text, set)
	found, err := scanRules(text, set.list)
	if err != nil {
		return nil, err
	}
	own, err := scanOwn(text)
	return append(found, own...), err
}

// scanRules runs the rules of the list, which are those whose keywords
// occur in text, on text.
func scanRules(text string, list []int) ([]finding, error) {
	slices.Sort(list) // the order of the table, as gitleaks runs them
	var (
		found    []finding
		newlines []int
	)
	for _, i := range list {
		r := &rules[i]
		from := 0 // no match starts before it
		if pre := semiGeneric(i); pre != nil {
			re, err := pre.get()
			if err != nil {
				return nil, err
			}
			loc := re.FindStringIndex(text)
			if loc == nil {
				continue
			}
			// A match is at most 50 identifier characters and then a
			// match of pre, which starts at loc[0] or later.
			from = max(0, loc[0]-50)
		}
		re, err := r.re.get()
		if err != nil {
			return nil, err
		}
		matches := re.FindAllStringIndex(text[from:], -1)
		if len(matches) == 0 {
			continue
		}
		if newlines == nil {
			newlines = newlineIndices(text)
		}
		for _, m := range matches {
			f, ok, err := r.check(text, re, newlines, from+m[0], from+m[1])
			if err != nil {
				return nil, err
			}
			if ok {
				found = append(found, f)
			}
		}
	}
	return dropCoveredGeneric(found), nil
}

// check turns one regular expression match into a finding, or rejects it,
// in the order of gitleaks' detectRule: the allow signature, the secret
// group, entropy, then the global and the rule's allowlists.
func (r *rule) check(text string, re *regexp.Regexp, newlines []int, start, end int) (finding, bool, error) {
	lead := len(text[start:end]) - len(strings.TrimLeft(text[start:end], "\n"))
	match := strings.Trim(text[start:end], "\n")
	end = start + len(match) // as gitleaks does (its issue 1352)
	loc := locate(newlines, text, start, end)
	if end > loc.endLineIndex {
		loc.endLineIndex = end
	}
	line := text[loc.startLineIndex:loc.endLineIndex]
	if strings.Contains(line, allowSignature) {
		return finding{}, false, nil
	}

	secret, at := match, 0
	if idx := re.FindStringSubmatchIndex(match); len(idx) >= 4 {
		if r.secretGroup > 0 {
			if len(idx)/2 <= r.secretGroup {
				return finding{}, false, nil
			}
			secret, at = group(match, idx, r.secretGroup)
		} else {
			for g := 1; g < len(idx)/2; g++ {
				if s, a := group(match, idx, g); s != "" {
					secret, at = s, a
					break
				}
			}
		}
	}
	if r.entropy != 0 && shannonEntropy(secret) <= r.entropy {
		return finding{}, false, nil
	}
	for _, lists := range [2][]allowlist{globalAllowlists, r.allowlists} {
		for i := range lists {
			allowed, err := lists[i].allows(secret, match, line)
			if err != nil {
				return finding{}, false, err
			}
			if allowed {
				return finding{}, false, nil
			}
		}
	}
	return finding{rule: r, line: loc.startLine, offset: start, secret: secret, secretAt: start + lead + at, matchEnd: end}, true, nil
}

// group is capture group g of a match of s and its offset in s ("" and 0
// when the group took no part in the match).
func group(s string, idx []int, g int) (string, int) {
	if idx[2*g] < 0 {
		return "", 0
	}
	return s[idx[2*g]:idx[2*g+1]], idx[2*g]
}

// allows reports whether the allowlist lets a finding through unreported.
func (a *allowlist) allows(secret, match, line string) (bool, error) {
	subject := secret
	switch a.target {
	case targetMatch:
		subject = match
	case targetLine:
		subject = line
	}
	regexHit := false
	if a.re != nil && subject != "" {
		re, err := a.re.get()
		if err != nil {
			return false, err
		}
		regexHit = re.MatchString(subject)
	}
	stopHit := secret != "" && containsAny(strings.ToLower(secret), a.stopwords)
	if !a.and {
		return regexHit || stopHit, nil
	}
	if a.re != nil && !regexHit {
		return false, nil
	}
	if len(a.stopwords) > 0 && !stopHit {
		return false, nil
	}
	return true, nil
}

// dropCoveredGeneric removes a finding of a generic rule when a specific
// rule found, on the same line, a secret that contains it (gitleaks'
// filter).
func dropCoveredGeneric(found []finding) []finding {
	out := found[:0:0]
	for _, f := range found {
		keep := true
		if isGeneric(f.rule.id) {
			for _, g := range found {
				if f.line == g.line && f.rule != g.rule && !isGeneric(g.rule.id) && strings.Contains(g.secret, f.secret) {
					keep = false
					break
				}
			}
		}
		if keep {
			out = append(out, f)
		}
	}
	return out
}

func isGeneric(id string) bool { return strings.Contains(strings.ToLower(id), "generic") }

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// shannonEntropy is gitleaks' measure: bits per byte over the runes'
// frequencies (it divides by the length in bytes, which we keep).
func shannonEntropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := make(map[rune]int, len(s))
	for _, c := range s {
		counts[c]++
	}
	inv := 1.0 / float64(len(s))
	e := 0.0
	for _, n := range counts {
		p := float64(n) * inv
		e -= p * math.Log2(p)
	}
	return e
}

func newlineIndices(s string) []int {
	idx := make([]int, 0, 8) // never nil: Scan computes it once
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			idx = append(idx, i)
		}
	}
	return idx
}

// location is the span of the line(s) around a match as gitleaks computes
// it, which is what its allow signature and its "line" allowlists test.
// (A line after the first starts at its preceding newline.)
type location struct {
	startLine      int
	startLineIndex int
	endLineIndex   int
}

func locate(newlines []int, text string, start, end int) location {
	var loc location
	if len(newlines) == 0 {
		newlines = []int{len(text)}
	}
	prev, set, last := 0, false, 0
	for n, nl := range newlines {
		last = n
		if prev <= start && start < nl {
			set = true
			loc.startLine = n
			loc.startLineIndex = prev
			loc.endLineIndex = nl
		}
		if prev < end && end <= nl {
			loc.endLineIndex = nl
		}
		prev = nl
	}
	if !set {
		loc.startLine = last + 1
		i := end
		for i < len(text) && text[i] != '\n' && text[i] != '\r' {
			i++
		}
		loc.endLineIndex = i
	}
	return loc
}

// position is the 1-based line and column of a byte offset.
func position(text string, offset int) (line, col int) {
	before := text[:offset]
	line = strings.Count(before, "\n") + 1
	return line, offset - (strings.LastIndexByte(before, '\n') + 1) + 1
}
