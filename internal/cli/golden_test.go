package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// updateGolden rewrites the goldens in testdata instead of comparing with
// them: make golden sets it, as it does for the testscripts' cmp files.
var updateGolden = os.Getenv("MEMCTL_UPDATE") == "1"

// checkGolden compares got with testdata/name.golden, or writes it there
// under MEMCTL_UPDATE=1.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	checkGoldenFile(t, filepath.Join("testdata", name+".golden"), got)
}

// checkGoldenFile compares got with the file at path, or writes it there
// under MEMCTL_UPDATE=1.
func checkGoldenFile(t *testing.T, path, got string) {
	t.Helper()
	if updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (MEMCTL_UPDATE=1 go test ./internal/cli writes it)", err)
	}
	if got != string(want) {
		t.Errorf("the output differs from %s (if the change is meant, make golden rewrites it; read the diff):\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff shows the lines of want and got from the first that differs.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "first difference at line %d\n", i+1)
	for k := i; k < min(i+8, len(w)); k++ {
		fmt.Fprintf(&b, "- %q\n", w[k])
	}
	for k := i; k < min(i+8, len(g)); k++ {
		fmt.Fprintf(&b, "+ %q\n", g[k])
	}
	return b.String()
}

// terminal is how a command's stdout is attached: a pipe, or a terminal
// of some width (0: unknown).
type terminal struct {
	name  string
	tty   bool
	width int
}

var (
	piped      = terminal{"piped", false, 0}
	ttyUnknown = terminal{"terminal, width unknown", true, 0}
	tty80      = terminal{"terminal, 80 columns", true, 80}
	tty40      = terminal{"terminal, 40 columns", true, 40}
)

// session runs memctl commands in one workspace, each as its own process
// would: a fresh Env on the workspace's clock, environment and directory.
type session struct {
	t    *testing.T
	base *Env
	dir  string
	now  time.Time
}

func newSession(t *testing.T) *session {
	t.Helper()
	env, dir := workspace(t)
	return &session{t: t, base: env, dir: dir}
}

// result is what one command printed and how it exited.
type result struct {
	stdout, stderr string
	code           int
}

// exec runs memctl args with stdout attached as term says and the given
// stdin and Prompter (nil: none).
func (s *session) exec(term terminal, p Prompter, args ...string) result {
	s.t.Helper()
	var out, errb bytes.Buffer
	env := &Env{In: strings.NewReader(""), Out: &out, Err: &errb, StdinTTY: term.tty, StdoutTTY: term.tty, Width: term.width,
		Getenv: s.base.Getenv, Getwd: s.base.Getwd, Now: s.base.Now, Rand: bytes.NewReader(bytes.Repeat([]byte{7}, 4096)), Prompter: p}
	code := Main(context.Background(), args, env)
	return result{out.String(), errb.String(), code}
}

// must runs memctl args, piped, and fails the test unless it exits 0.
func (s *session) must(args ...string) string {
	s.t.Helper()
	r := s.exec(piped, nil, args...)
	if r.code != 0 {
		s.t.Fatalf("memctl %s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
	}
	return r.stdout
}

// at moves the session's clock, so that records made later sort later.
func (s *session) at(now time.Time) {
	s.now = now
	s.base.Now = func() time.Time { return now }
}

// transcript writes a command's output for a golden: the command and how
// stdout is attached, stdout, then stderr and the exit code when there are
// any. An escape character is written ␛, so that a golden shows the
// sequence instead of acting on the terminal that shows it.
func transcript(b *strings.Builder, term terminal, args []string, r result) {
	fmt.Fprintf(b, "$ memctl %s  # %s\n", strings.Join(args, " "), term.name)
	b.WriteString(strings.ReplaceAll(r.stdout, "\x1b", "␛"))
	if r.stderr != "" {
		fmt.Fprintf(b, "-- stderr --\n%s", strings.ReplaceAll(r.stderr, "\x1b", "␛"))
	}
	if r.code != 0 {
		fmt.Fprintf(b, "-- exit %d --\n", r.code)
	}
	b.WriteString("\n")
}
