package trigger

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/runs"
)

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// Text is the warning for res, in factual phrasing, newest first, each
// item with its id, at most MaxText characters; "" when there is nothing
// to say.
func Text(res runs.WarnResult) string {
	if len(res.Runs) == 0 && len(res.Playbooks) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "memctl: past failures touching %s:\n", strings.Join(res.Files, ", "))
	for _, w := range res.Runs {
		r := w.Entry.Record
		what := r.Digest.Intent
		switch {
		case len(w.Errors) > 0:
			e := w.Errors[0]
			what = oneLine(e.Excerpt)
			if e.File != "" && !strings.Contains(what, e.File) {
				what = fmt.Sprintf("%s:%d: %s", e.File, e.Line, what)
			}
			what += " (signature " + e.Signature
			if e.Playbook != "" {
				what += ", playbook " + e.Playbook
			}
			what += ")"
		case len(w.FailedTests) > 0:
			what = "failed tests: " + strings.Join(w.FailedTests, ", ")
		}
		when := ""
		if t := r.SortTime(); !t.IsZero() {
			when = t.UTC().Format("2006-01-02") + " "
		}
		fmt.Fprintf(&b, "- run %s (%s%s, files %s): %s\n", r.RunID, when, r.StatusOrUnknown(), strings.Join(w.Files, ", "), oneLine(what))
	}
	for _, p := range res.Playbooks {
		fmt.Fprintf(&b, "- playbook %s (%s): %s\n", p.Signature, p.Path, oneLine(p.Title))
	}
	b.WriteString("memctl recall --error TEXT or memctl runs show <run_id> has more.")
	return clip(b.String(), MaxText)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Seen is what a session was already warned about: the files, kept
// under the git directory so that each is said once per session.
type Seen struct {
	path  string
	Files []string `json:"files"`
}

// SeenFor is the state of the session id of runtime, in dir (the git
// directory's memctl/triggered); a session with no state has seen
// nothing. A state that cannot be read is as none.
func SeenFor(dir, runtime, session string) *Seen {
	sum := sha256.Sum256([]byte(runtime + "\x00" + session))
	s := &Seen{path: filepath.Join(dir, hex.EncodeToString(sum[:8])+".json")}
	if data, err := os.ReadFile(s.path); err == nil {
		_ = json.Unmarshal(data, s)
	}
	return s
}

// New is files without those already seen.
func (s *Seen) New(files []string) []string {
	return slices.DeleteFunc(slices.Clone(files), func(f string) bool { return slices.Contains(s.Files, f) })
}

// Add records files as seen and saves the state.
func (s *Seen) Add(files []string) error {
	for _, f := range files {
		if !slices.Contains(s.Files, f) {
			s.Files = append(s.Files, f)
		}
	}
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return err
	}
	return fsx.WriteDerived(s.path, data)
}

// PlaybookText is the approved playbook of an error signature, for an
// agent that just met the error: its file in dir (rel: the same in
// messages), cut to MaxText; "" when there is none.
func PlaybookText(dir, rel, sig string) string {
	data, err := os.ReadFile(filepath.Join(dir, sig+".md"))
	if err != nil || len(strings.TrimSpace(string(data))) == 0 {
		return ""
	}
	head := fmt.Sprintf("memctl: this error (signature %s) has a playbook, %s/%s.md:\n", sig, rel, sig)
	return clip(head+strings.TrimSpace(string(data)), MaxText)
}
