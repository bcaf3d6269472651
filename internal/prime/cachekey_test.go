package prime

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/fsx"
)

// settledAt is a time after any source a test writes: derived files set to
// it were written long after their sources (fsx.ReadSettled trusts them).
var settledAt = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)

// settle makes prime's derived files look written long after their
// sources, as they are when the next prime comes more than
// fsx.RacyWindow after the last write.
func settle(t testing.TB, ws *config.Workspace) {
	t.Helper()
	for _, name := range []string{"prime-tasks.cache", "prime-tasks.index", "prime-ledger.cache", "prime-runs.cache"} {
		err := os.Chtimes(filepath.Join(ws.Repo.GitDir, "memctl", name), settledAt, settledAt)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
}

// editInPlace rewrites p in place (same inode) with content and puts its
// modification time back, as cp -p, rsync -t and touch -r do; it returns
// once the change time has moved, which it does within a tick of the
// file system's clock.
func editInPlace(t testing.TB, p, content string) {
	t.Helper()
	before, err := fsx.StatStamp(p)
	if err != nil {
		t.Fatal(err)
	}
	mtime := time.Unix(0, before.ModTime)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 1_000_000 {
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		after, err := fsx.StatStamp(p)
		if err != nil {
			t.Fatal(err)
		}
		if after.ModTime != before.ModTime || after.Ino != before.Ino {
			t.Fatalf("not an edit in place: %+v, then %+v", before, after)
		}
		if after.ChangeTime != before.ChangeTime || runtime.GOOS == "windows" {
			return
		}
	}
	t.Fatalf("the change time of %s did not move", p)
}

func taskLineJSON(id, title, status string) string {
	return fmt.Sprintf(`{"id":%q,"title":%q,"status":%q,"priority":1,"created_at":"2026-11-01T00:00:00Z"}`+"\n", id, title, status)
}

func taskWorkspace(t *testing.T, content string) (ws *config.Workspace, issues, cache string) {
	ws = testWorkspace(t, map[string]string{config.IssuesFile: content})
	return ws, ws.Path(config.IssuesFile), filepath.Join(ws.Repo.GitDir, "memctl", "tasks.cache")
}

// An issues file that is a link is read through it: its tasks are shown,
// and an edit of the file it names is seen.
func TestSummaryIssuesLink(t *testing.T) {
	ws, issues, cache := taskWorkspace(t, "")
	target := filepath.Join(t.TempDir(), "issues.jsonl")
	if err := os.WriteFile(target, []byte(taskLineJSON("app-1", "One", "open")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(issues); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, issues); err != nil {
		t.Fatal(err)
	}
	s, err := loadSummary(issues, cache, now0)
	if err != nil || len(s.Ready) != 1 || s.Ready[0].Title != "One" {
		t.Fatalf("through the link: %+v, %v (want app-1 ready)", s, err)
	}
	settle(t, ws)
	if err := os.WriteFile(target, []byte(taskLineJSON("app-1", "One", "open")+taskLineJSON("app-2", "Two", "open")), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = loadSummary(issues, cache, now0)
	if err != nil || s.cached || len(s.Ready) != 2 {
		t.Fatalf("after an edit of the link's target: cached %v, ready %+v, %v (want app-1 and app-2)", s.cached, s.Ready, err)
	}
}

// An edit in place of the same size whose modification time is put back
// is seen: the change time is in the key.
func TestSummaryEditWithMtimeRestored(t *testing.T) {
	ws, issues, cache := taskWorkspace(t, taskLineJSON("app-1", "Old title", "open"))
	if _, err := loadSummary(issues, cache, now0); err != nil {
		t.Fatal(err)
	}
	settle(t, ws)
	if s, err := loadSummary(issues, cache, now0); err != nil || !s.cached {
		t.Fatalf("nothing changed, yet the summary was rebuilt: %v", err)
	}
	editInPlace(t, issues, taskLineJSON("app-1", "New title", "open"))
	s, err := loadSummary(issues, cache, now0)
	if err != nil || s.cached || len(s.Ready) != 1 || s.Ready[0].Title != "New title" {
		t.Fatalf("after the edit: cached %v, ready %+v, %v (want New title)", s.cached, s.Ready, err)
	}
}

// A summary written within fsx.RacyWindow of its source's newest time is
// not trusted: a second write in the same tick of the clock would leave
// the same stamp.
func TestSummaryRacy(t *testing.T) {
	ws, issues, cache := taskWorkspace(t, taskLineJSON("app-1", "One", "open"))
	if _, err := loadSummary(issues, cache, now0); err != nil {
		t.Fatal(err)
	}
	st, _ := fsx.StatStamp(issues)
	head, _ := summaryPaths(cache)
	for _, c := range []struct {
		after  time.Duration
		cached bool
	}{{0, false}, {fsx.RacyWindow - time.Millisecond, false}, {fsx.RacyWindow, true}} {
		when := time.Unix(0, st.Newest()).Add(c.after)
		if err := os.Chtimes(head, when, when); err != nil {
			t.Fatal(err)
		}
		s, err := loadSummary(issues, cache, now0)
		if err != nil || s.cached != c.cached {
			t.Errorf("head written %v after the issues file: cached %v, want %v (%v)", c.after, s.cached, c.cached, err)
		}
		settle(t, ws) // the rebuild rewrote it
	}
}

// A head and an index from two rebuilds are not taken for one summary:
// the index of an older file is not used for a pinned task.
func TestSummaryIndexOfAnotherFile(t *testing.T) {
	ws, issues, cache := taskWorkspace(t, taskLineJSON("app-1", "Old title", "open"))
	if _, err := loadSummary(issues, cache, now0); err != nil {
		t.Fatal(err)
	}
	_, index := summaryPaths(cache)
	old, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	tmp := issues + ".new"
	if err := os.WriteFile(tmp, []byte(taskLineJSON("app-1", "New title", "blocked")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, issues); err != nil {
		t.Fatal(err)
	}
	if _, err := loadSummary(issues, cache, now0); err != nil {
		t.Fatal(err)
	}
	// The slower of two rebuilds wrote its index last.
	if err := os.WriteFile(index, old, 0o644); err != nil {
		t.Fatal(err)
	}
	settle(t, ws)
	s, err := loadSummary(issues, cache, now0)
	if err != nil || !s.cached {
		t.Fatalf("the head: cached %v, %v", s.cached, err)
	}
	status, title, ok, err := s.lookup("app-1")
	if err != nil || !ok || status != "blocked" || title != "New title" {
		t.Errorf("lookup app-1 = %q %q %v %v, want blocked, New title", status, title, ok, err)
	}
	// The index was stored again, for the head's file.
	if data, _ := os.ReadFile(index); !bytes.HasPrefix(data, append(indexHeader(s.key), '\n')) {
		t.Errorf("the index file is not the head's: %q", data)
	}
}

// nextTick returns once the file system's clock has moved on from the
// last write before the call: a write after it has a later change time
// (two writes within a tick leave the same times, which the racy rule
// covers but settle, by design, does not).
func nextTick(t testing.TB) {
	t.Helper()
	if runtime.GOOS == "windows" {
		return
	}
	p := filepath.Join(t.TempDir(), "tick")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	first, err := fsx.StatStamp(p)
	if err != nil {
		t.Fatal(err)
	}
	for range 1_000_000 {
		if err := os.Chmod(p, 0o600); err != nil {
			t.Fatal(err)
		}
		if now, _ := fsx.StatStamp(p); now.ChangeTime != first.ChangeTime {
			return
		}
	}
	t.Fatal("the file system's clock did not move")
}
