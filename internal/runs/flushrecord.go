package runs

import (
	"cmp"
	"encoding/json"
	"fmt"
	"github.com/memctl/memctl/internal/runs/signature"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/runs/transcript"
)

// Limits of what a flush keeps of a session's texts, in characters: the
// digest is what the next session reads, not a copy of the conversation.
const (
	maxDigestText     = 1000 // intent, result
	maxCompactSummary = 2000
	maxChangedListed  = 10 // files named in the digest's "edited …" change
	// A session that failed in many ways keeps its last maxErrors distinct
	// errors and maxTests tests (the failing ones first): the record is
	// committed in every clone, and the next session reads it.
	maxErrors = 20
	maxTests  = 50
)

// CompactSummaryKey is the digest key under which a flush keeps the
// summary of the session's last compaction (Claude Code's PostCompact
// compact_summary, or the one the transcript holds).
const CompactSummaryKey = "compact_summary"

// FromSession is the run record a flush writes for session s (nil: no
// transcript was read) and the hook's input, without run id, session id
// or runtime: intent from the first request, result from the hook's last
// assistant message or the transcript's, one change naming the files
// edited, the commands (cut to MaxExcerpt characters, each command and
// exit code once), tests and error
// texts, the tasks claimed or closed, the model, the session's time span
// (now when no transcript says), and the status (SessionStatus). Paths
// under root in commands and error texts are made relative to it: records
// are committed, and a home directory says nothing to the next machine.
func FromSession(s *transcript.Session, hook transcript.HookInput, root string, now time.Time) *Record {
	rel := func(t string) string { return Relative(root, t) }
	r := &Record{Agent: Agent{Model: hook.Model}, Status: StatusUnknown}
	summary := hook.CompactSummary
	r.Digest.Result = hook.LastAssistantMessage
	if s != nil {
		r.Agent.Model = scalar(r.Agent.Model, s.Model)
		r.StartedAt, r.EndedAt = s.Started, s.Ended
		r.Digest.Intent = strings.TrimSpace(s.FirstUserText)
		r.Digest.Result = scalar(s.LastAssistantText, r.Digest.Result)
		if c := changesLine(s.FilesChanged); c != "" {
			r.Digest.Changes = []string{c}
		}
		r.FilesChanged = slices.Clone(s.FilesChanged)
		cmds := make([]Command, 0, len(s.Commands))
		for _, c := range s.Commands {
			cmds = append(cmds, Command{Cmd: Cut(rel(c.Cmd), MaxExcerpt), ExitCode: c.ExitCode})
		}
		// A command run again with the same outcome is one entry, as Merge
		// would leave it: the first flush writes what the next ones do.
		r.Commands = union(nil, cmds, func(a, b Command) bool { return a.Cmd == b.Cmd && a.ExitCode == b.ExitCode })
		r.Tests = sessionTests(s.Tests)
		r.Errors = sessionErrors(s.Errors, s.FilesChanged, rel)
		r.TaskIDs = union(slices.Clone(s.TaskClaims), s.TaskCloses, func(a, b string) bool { return a == b })
		r.Status = SessionStatus(s)
		summary = scalar(s.CompactSummary, summary)
	}
	r.Digest.Intent = Cut(strings.TrimSpace(r.Digest.Intent), maxDigestText)
	r.Digest.Result = Cut(strings.TrimSpace(r.Digest.Result), maxDigestText)
	if summary = strings.TrimSpace(summary); summary != "" {
		r.Digest.extra = fields{{key: CompactSummaryKey, value: marshal(Cut(summary, maxCompactSummary))}}
	}
	if r.StartedAt.IsZero() {
		r.StartedAt = now.UTC()
	}
	if r.EndedAt.IsZero() {
		r.EndedAt = now.UTC()
	}
	return r
}

// Relative is text with the paths under root made relative to it: run
// records and playbooks are committed, and a home directory says nothing
// to the next machine. An empty root changes nothing.
func Relative(root, text string) string {
	if root == "" {
		return text
	}
	return strings.ReplaceAll(text, strings.TrimSuffix(filepath.ToSlash(root), "/")+"/", "")
}

// sessionTests are the tests a session ran, each once with its last
// status, at most maxTests: the failing ones first, in the order they ran.
func sessionTests(ts []transcript.Test) []Test {
	at := map[string]int{}
	var out []Test
	for _, t := range ts {
		if i, ok := at[t.Name]; ok {
			out[i].Status = t.Status
			continue
		}
		at[t.Name] = len(out)
		out = append(out, Test{Name: t.Name, Status: t.Status})
	}
	if len(out) <= maxTests {
		return out
	}
	slices.SortStableFunc(out, func(a, b Test) int {
		return cmp.Compare(testRank(a.Status), testRank(b.Status))
	})
	return out[:maxTests]
}

func testRank(status string) int {
	if status == TestFail {
		return 0
	}
	return 1
}

// sessionErrors are the error texts of a session, one per signature (its
// latest text), the last maxErrors of them, in the order they last
// occurred, with the file and line where they name a file the session
// changed.
func sessionErrors(texts, changed []string, rel func(string) string) []Error {
	seen := map[string]bool{}
	var out []Error
	// From the newest back, each signature's latest text, until there are
	// maxErrors; then back in the order they occurred.
	for i := len(texts) - 1; i >= 0 && len(out) < maxErrors; i-- {
		e := rel(texts[i])
		sig := signature.Of(e).Hash
		if seen[sig] {
			continue
		}
		seen[sig] = true
		file, line := errorPlace(e, changed)
		out = append(out, Error{Signature: sig, Excerpt: e, File: file, Line: line})
	}
	slices.Reverse(out)
	return out
}

// CompactSummary is the compaction summary a flush kept in r's digest.
func (r *Record) CompactSummary() string {
	for _, f := range r.Digest.extra {
		if f.key == CompactSummaryKey {
			var s string
			if json.Unmarshal(f.value, &s) == nil {
				return s
			}
		}
	}
	return ""
}

// changesLine is the digest's change for the files a session edited:
// "edited a.go, b.go", the first maxChangedListed and "and N more".
func changesLine(files []string) string {
	if len(files) == 0 {
		return ""
	}
	listed := files[:min(len(files), maxChangedListed)]
	s := "edited " + strings.Join(listed, ", ")
	if n := len(files) - len(listed); n > 0 {
		s += fmt.Sprintf(" and %d more", n)
	}
	return s
}

var moreRE = regexp.MustCompile(` and (\d+) more$`)

// supersededChange reports whether c is an "edited …" change an earlier
// flush of the session wrote, which the new one's files sum up again:
// each file it names is among files, and so is the number it counts.
func supersededChange(c string, files []string) bool {
	list, ok := strings.CutPrefix(c, "edited ")
	if !ok || len(files) == 0 {
		return false
	}
	more := 0
	if m := moreRE.FindStringSubmatch(list); m != nil {
		more, _ = strconv.Atoi(m[1])
		list = strings.TrimSuffix(list, m[0])
	}
	names := strings.Split(list, ", ")
	for _, n := range names {
		if !slices.Contains(files, n) {
			return false
		}
	}
	return len(names)+more <= len(files)
}

// mergeFlush is Merge for a flush: the session's transcript holds all an
// earlier flush read and more, so the "edited …" change that flush wrote
// gives way to the new one instead of piling up beside it.
func mergeFlush(old, new *Record) *Record {
	if len(new.Digest.Changes) > 0 {
		o := *old
		o.Digest.Changes = slices.DeleteFunc(slices.Clone(old.Digest.Changes), func(c string) bool {
			return !slices.Contains(new.Digest.Changes, c) && supersededChange(c, new.FilesChanged)
		})
		old = &o
	}
	// A command a tool hook recorded without its exit status (Codex passes
	// none) gives way to the same command as the transcript has it, status
	// and all: one command, not two.
	known := func(c Command) bool {
		return c.ExitCode < 0 && slices.ContainsFunc(new.Commands, func(n Command) bool { return n.Cmd == c.Cmd && n.ExitCode >= 0 })
	}
	if slices.ContainsFunc(old.Commands, known) {
		o := *old
		o.Commands = slices.DeleteFunc(slices.Clone(old.Commands), known)
		old = &o
	}
	// Likewise an error a tool hook recorded without its place (a command's
	// output has no file of its own) gives way to the same error, by
	// signature, as the flush places it: one error, not two.
	placed := func(e Error) bool {
		return e.File == "" && e.Line == 0 && e.Signature != "" &&
			slices.ContainsFunc(new.Errors, func(n Error) bool { return n.Signature == e.Signature })
	}
	if slices.ContainsFunc(old.Errors, placed) {
		o := *old
		o.Errors = slices.DeleteFunc(slices.Clone(old.Errors), placed)
		old = &o
	}
	return Merge(old, new)
}

// placeRE finds a file:line reference in an error text.
var placeRE = regexp.MustCompile(`([A-Za-z0-9_./\\-]+\.[A-Za-z0-9]+):(\d+)`)

// errorPlace is the file the error text points at when it is one the
// session changed (error texts often name only the base name), and the
// line; "" and 0 otherwise.
func errorPlace(text string, changed []string) (string, int) {
	for _, m := range placeRE.FindAllStringSubmatch(text, 8) {
		ref := strings.ReplaceAll(m[1], `\`, "/")
		for _, f := range changed {
			if f == ref || strings.HasSuffix(f, "/"+strings.TrimPrefix(ref, "./")) || path.IsAbs(ref) && strings.HasSuffix(ref, "/"+f) {
				n, err := strconv.Atoi(m[2])
				if err != nil || n <= 0 {
					return f, 0
				}
				return f, n
			}
		}
	}
	return "", 0
}
