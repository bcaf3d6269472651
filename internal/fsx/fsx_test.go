package fsx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"
)

func TestWriteFileReplacesAtomicallyAndKeepsMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil || string(got) != "new" {
		t.Fatalf("content = %q, %v", got, err)
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
			t.Errorf("mode = %v, want 0600 kept", fi.Mode().Perm())
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temp files left behind: %v", entries)
	}
}

func TestWriteFileRefusesSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("x"), 0o644); !errors.Is(err, ErrSymlink) {
		t.Fatalf("err = %v, want ErrSymlink", err)
	}
	if got, _ := os.ReadFile(target); string(got) != "keep" {
		t.Errorf("target changed to %q", got)
	}
}

func TestCreateFileNeverOverwrites(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "f")
	created, err := CreateFile(p, []byte("first"), 0o644)
	if err != nil || !created {
		t.Fatalf("first CreateFile = %v, %v", created, err)
	}
	created, err = CreateFile(p, []byte("second"), 0o644)
	if err != nil || created {
		t.Fatalf("second CreateFile = %v, %v", created, err)
	}
	if got, _ := os.ReadFile(p); string(got) != "first" {
		t.Errorf("content = %q", got)
	}
}

func TestLockExcludesSecondHolder(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "sub", "lock")
	ctx := context.Background()
	a, err := Acquire(ctx, p, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Acquire(ctx, p, 50*time.Millisecond); !errors.Is(err, ErrLocked) {
		t.Fatalf("second Acquire err = %v, want ErrLocked", err)
	}
	// A waiter gets the lock once the holder lets go.
	done := make(chan error, 1)
	go func() {
		b, err := Acquire(ctx, p, 5*time.Second)
		if err == nil {
			err = b.Release()
		}
		done <- err
	}()
	time.Sleep(60 * time.Millisecond)
	if err := a.Release(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("waiter: %v", err)
	}
	if err := a.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
}

func TestLockHonoursContext(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "lock")
	a, err := Acquire(context.Background(), p, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Acquire(ctx, p, time.Minute); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestLockedReadModifyWriteLosesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lockPath, data := filepath.Join(dir, "lock"), filepath.Join(dir, "counter")
	if err := os.WriteFile(data, []byte("0"), 0o644); err != nil {
		t.Fatal(err)
	}
	const workers, rounds = 8, 25
	errs := make(chan error, workers)
	for range workers {
		go func() {
			for range rounds {
				l, err := Acquire(context.Background(), lockPath, 10*time.Second)
				if err != nil {
					errs <- err
					return
				}
				b, err := os.ReadFile(data)
				if err == nil {
					n, _ := strconv.Atoi(string(b))
					err = WriteFile(data, []byte(strconv.Itoa(n+1)), 0o644)
				}
				if rerr := l.Release(); err == nil {
					err = rerr
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(data); string(b) != strconv.Itoa(workers*rounds) {
		t.Errorf("counter = %s, want %d: an update was lost", b, workers*rounds)
	}
}

func TestLockedErrorNamesTheHolder(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "lock")
	ctx := context.Background()
	a, err := Acquire(ctx, p, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	// Before the holder says who it is, the error says only that it is held.
	_, err = Acquire(ctx, p, 0)
	var le *LockedError
	if !errors.As(err, &le) || le.Holder != nil || !errors.Is(err, ErrLocked) {
		t.Fatalf("err = %#v, want a *LockedError without a holder", err)
	}
	since := time.Date(2026, 11, 22, 9, 31, 2, 0, time.UTC)
	pid := os.Getpid() // a live process: a dead one is not named (below)
	if err := a.Announce(Holder{PID: pid, Command: "memctl review", Since: since}); err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(ctx, p, 0)
	if !errors.As(err, &le) || le.Holder == nil || !errors.Is(err, ErrLocked) {
		t.Fatalf("err = %#v, want a *LockedError with the holder", err)
	}
	if want := fmt.Sprintf("lock %s: workspace is locked by pid %d (memctl review, since 2026-11-22T09:31:02Z)", p, pid); err.Error() != want {
		t.Errorf("err = %q\nwant  %q", err, want)
	}
	// Released, the holder is no longer named: the next holder that does
	// not announce itself (another program, or one not there yet) is not
	// mistaken for this one.
	a.Release()
	b, err := Acquire(ctx, p, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	if _, err := Acquire(ctx, p, 0); !errors.As(err, &le) || le.Holder != nil {
		t.Errorf("after the announced holder let go: err = %v, want no holder named", err)
	}
	// A holder killed before it could remove its file is not named either.
	dead := exec.Command(os.Args[0], "-test.run=^$")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	if err := b.Announce(Holder{PID: dead.Process.Pid, Command: "memctl create", Since: since}); err != nil {
		t.Fatal(err)
	}
	b.announced = false // as if killed: the file stays behind
	if _, err := Acquire(ctx, p, 0); !errors.As(err, &le) || le.Holder != nil {
		t.Errorf("a holder whose process has ended: err = %v, want no holder named", err)
	}
}

// A staged file leaves path alone until Commit, and its Stamp is what
// path has afterwards; Abort leaves path and the directory as they were.
func TestStagedCommitAndAbort(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(s string) func(w io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	st, err := StageFunc(p, 0o644, write("staged content"))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "old" {
		t.Fatalf("before Commit path holds %q", got)
	}
	staged, err := st.Stamp()
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(); err != nil {
		t.Fatal(err)
	}
	now, err := StatStamp(p)
	if got, _ := os.ReadFile(p); string(got) != "staged content" || err != nil {
		t.Fatalf("after Commit path holds %q (%v)", got, err)
	}
	if now.Size != staged.Size || now.ModTime != staged.ModTime || now.Ino != staged.Ino {
		t.Errorf("Stamp said %+v, path has %+v", staged, now)
	}

	for _, derived := range []bool{false, true} {
		var st *Staged
		if derived {
			st, err = StageDerivedFunc(p, write("dropped"))
		} else {
			st, err = StageFunc(p, 0o644, write("dropped"))
		}
		if err != nil {
			t.Fatal(err)
		}
		st.Abort()
		if got, _ := os.ReadFile(p); string(got) != "staged content" {
			t.Errorf("after Abort path holds %q", got)
		}
	}
	if _, err := StageFunc(p, 0o644, func(io.Writer) error { return errors.New("boom") }); err == nil {
		t.Error("a failed write was staged")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temporaries left behind: %v", entries)
	}
}

// A Commit that cannot rename leaves path as it was and no temporary; a
// second Commit or an Abort after it does nothing (and does not block).
func TestStagedFailedCommitCleansUp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	st, err := StageFunc(p, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err })
	if err != nil {
		t.Fatal(err)
	}
	// A directory with something in it now stands where the file goes.
	if err := os.MkdirAll(filepath.Join(p, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(); err == nil {
		t.Fatal("a rename over a non-empty directory was reported done")
	}
	done := make(chan struct{})
	go func() {
		_ = st.Commit()
		st.Abort()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Commit or Abort after a failed Commit blocked")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "f.txt" || !entries[0].IsDir() {
		t.Errorf("left behind: %v", entries)
	}
}

// A panic while the content is written leaves no temporary behind.
func TestStagePanicLeavesNoTemporary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	func() {
		defer func() { _ = recover() }()
		_, _ = StageFunc(filepath.Join(dir, "f.txt"), 0o644, func(io.Writer) error { panic("boom") })
	}()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}
