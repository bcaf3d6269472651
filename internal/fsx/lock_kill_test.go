package fsx

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHelperLockHolder is not a test: TestLockOfKilledHolderIsFree runs
// this test binary with FSX_HOLD_LOCK set to a path, and it takes the lock
// there, announces itself, says "held" and waits to be killed.
func TestHelperLockHolder(t *testing.T) {
	path := os.Getenv("FSX_HOLD_LOCK")
	if path == "" {
		return
	}
	l, err := Acquire(context.Background(), path, time.Minute)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	if err := l.Announce(Holder{PID: os.Getpid(), Command: "memctl create", Since: time.Date(2026, 11, 22, 9, 31, 2, 0, time.UTC)}); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println("held")
	// Until killed. Not select {}: with every goroutine blocked the
	// runtime ends the process ("all goroutines are asleep"), which lets
	// go of the lock while its pid, not yet waited for, still looks alive;
	// the tests then found the lock free under a live holder, now and then.
	time.Sleep(time.Hour)
	_ = l.Release()
}

// A holder killed with SIGKILL (no deferred Release, no cleanup) leaves
// its lock file and its holder file behind, but not the lock: the next
// Acquire takes it without waiting out its timeout, and a waiter is not
// told of the dead holder.
func TestLockOfKilledHolderIsFree(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "lock")
	holder := exec.Command(os.Args[0], "-test.run=^TestHelperLockHolder$")
	holder.Env = append(os.Environ(), "FSX_HOLD_LOCK="+p)
	out, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "held\n" {
		_ = holder.Process.Kill()
		_ = holder.Wait()
		t.Fatalf("holder said %q, want held", line)
	}
	ctx := context.Background()
	_, err = Acquire(ctx, p, 0)
	var le *LockedError
	if !errors.As(err, &le) || le.Holder == nil || le.Holder.PID != holder.Process.Pid {
		t.Fatalf("while the holder lives: err = %v, want it locked by pid %d", err, holder.Process.Pid)
	}
	if h, _ := os.Hostname(); le.Holder.Host != h {
		t.Errorf("holder host = %q, want this host %q", le.Holder.Host, h)
	}
	if strings.Contains(err.Error(), " on ") {
		t.Errorf("a holder on this host is not named with its host: %v", err)
	}
	if err := holder.Process.Kill(); err != nil { // SIGKILL on Unix
		t.Fatal(err)
	}
	_ = holder.Wait()
	if _, err := os.Stat(holderPath(p)); err != nil {
		t.Fatalf("the killed holder's file should still be there: %v", err)
	}
	// Wait 0: taken at the first try, not after a timeout.
	l, err := Acquire(ctx, p, 0)
	if err != nil {
		t.Fatalf("the lock of a killed holder: %v", err)
	}
	// Still exclusive: the new holder excludes others, who are not told of
	// the dead one.
	_, err = Acquire(ctx, p, 0)
	if !errors.As(err, &le) || le.Holder != nil {
		t.Errorf("under the new holder: err = %v, want locked with no holder named", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
}

// A holder on another host is named with its host, alive or not: its pid
// cannot be checked from here.
func TestLockedErrorNamesAnotherHost(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "lock")
	ctx := context.Background()
	a, err := Acquire(ctx, p, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	dead := exec.Command(os.Args[0], "-test.run=^$")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	since := time.Date(2026, 11, 22, 9, 31, 2, 0, time.UTC)
	if err := a.Announce(Holder{PID: dead.Process.Pid, Host: "build-7.example", Command: "memctl review", Since: since}); err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(ctx, p, 0)
	want := fmt.Sprintf("lock %s: workspace is locked by pid %d on build-7.example (memctl review, since 2026-11-22T09:31:02Z)", p, dead.Process.Pid)
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant  %s", err, want)
	}
}
