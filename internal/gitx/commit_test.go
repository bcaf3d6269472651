package gitx

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
)

func TestCommitFilesCommitsOnlyThose(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	if _, err := git.PlainInit(dir, false); err != nil {
		t.Fatal(err)
	}
	write := func(p, s string) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitc := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	sig := Signature{Name: "Rev Iewer", Email: "rev@example.com", When: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	write(".ledger/facts/a.md", "- one\n")
	write("other.txt", "x\n")
	if _, err := CommitFiles(dir, []string{".ledger/facts/a.md"}, "first\n", sig); err != nil {
		t.Fatal(err)
	}
	gitc("add", "other.txt") // staged, must stay out of the next commit
	write(".ledger/facts/a.md", "- one\n- two\n")
	write(".ledger/proposals/p-1.json", "{}\n")
	h, err := CommitFiles(dir, []string{".ledger/facts/a.md", ".ledger/proposals/p-1.json"}, "facts(a): two\n\nbody\n", sig)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(gitc("rev-parse", "HEAD")); got != h {
		t.Errorf("HEAD = %s, want %s", got, h)
	}
	files := gitc("show", "--name-only", "--format=%an <%ae>|%s", "HEAD")
	if want := "Rev Iewer <rev@example.com>|facts(a): two\n\n.ledger/facts/a.md\n.ledger/proposals/p-1.json\n"; files != want {
		t.Errorf("git show = %q, want %q", files, want)
	}
	if st := gitc("status", "--porcelain"); st != "A  other.txt\n" {
		t.Errorf("status = %q: only other.txt should be left staged", st)
	}
	gitc("fsck", "--strict")
}

func TestFileAtReadsEachCommit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := git.PlainInit(dir, false); err != nil {
		t.Fatal(err)
	}
	sig := Signature{Name: "T", Email: "t@example.com", When: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	commit := func(p, s string) string {
		t.Helper()
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		h, err := CommitFiles(dir, []string{p}, "c\n", sig)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	first := commit("other.txt", "x\n")
	second := commit(".beads/issues.jsonl", "one\n")
	third := commit(".beads/issues.jsonl", "two\n")
	got, err := FileAt(dir, ".beads/issues.jsonl", first, second, third)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != nil || string(got[1]) != "one\n" || string(got[2]) != "two\n" {
		t.Errorf("FileAt = %q, want nil (not in the first commit), one, two", got)
	}
	if _, err := FileAt(dir, "other.txt", strings.Repeat("0", 40)); err == nil {
		t.Error("FileAt of a commit that does not exist: no error")
	}
}
