package fsx

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// deadPID is the pid of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	dead := exec.Command(os.Args[0], "-test.run=^$")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	return dead.Process.Pid
}

func writeHolder(t *testing.T, lock string, h Holder) {
	t.Helper()
	data, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(holderPath(lock), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A live holder's lock is held and not stale, and ClearStale leaves its
// holder file alone; once the holder is killed the file is stale, and
// ClearStale removes it, once.
func TestInspectLockLiveThenKilled(t *testing.T) {
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
	defer func() { _ = holder.Process.Kill(); _ = holder.Wait() }()
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "held\n" {
		t.Fatalf("holder said %q, want held", line)
	}
	st, err := InspectLock(p)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Held || st.Stale || !st.Alive || st.Holder == nil || st.Holder.PID != holder.Process.Pid {
		t.Fatalf("live holder: %+v, want held by pid %d, alive, not stale", st, holder.Process.Pid)
	}
	if removed, err := ClearStale(p); err != nil || removed {
		t.Fatalf("ClearStale under a live holder = %v, %v; want false, nil", removed, err)
	}
	if _, err := os.Stat(holderPath(p)); err != nil {
		t.Fatalf("a live holder's file must stay: %v", err)
	}
	_ = holder.Process.Kill()
	_ = holder.Wait()
	st, err = InspectLock(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Held || !st.Stale || st.Alive {
		t.Fatalf("killed holder: %+v, want free and stale", st)
	}
	if removed, err := ClearStale(p); err != nil || !removed {
		t.Fatalf("ClearStale after the kill = %v, %v; want true, nil", removed, err)
	}
	if _, err := os.Stat(holderPath(p)); !os.IsNotExist(err) {
		t.Fatalf("the stale holder file should be gone: %v", err)
	}
	if removed, err := ClearStale(p); err != nil || removed {
		t.Fatalf("ClearStale again = %v, %v; want false, nil", removed, err)
	}
	if st, err := InspectLock(p); err != nil || st.Stale || st.HolderExists {
		t.Fatalf("after ClearStale: %+v, %v", st, err)
	}
}

func TestInspectLockHolderFiles(t *testing.T) {
	t.Parallel()
	host, _ := os.Hostname()
	cases := []struct {
		name      string
		holder    *Holder // nil: no holder file
		raw       string  // written instead of holder when set
		wantStale bool
	}{
		{name: "no holder file is not stale"},
		{name: "a dead pid of this host is stale", holder: &Holder{PID: deadPID(t), Host: host, Command: "memctl create"}, wantStale: true},
		{name: "a dead pid with no host is stale", holder: &Holder{PID: deadPID(t), Command: "memctl create"}, wantStale: true},
		{name: "a live pid is not stale", holder: &Holder{PID: os.Getpid(), Host: host, Command: "memctl create"}},
		{name: "another host's pid is not stale", holder: &Holder{PID: deadPID(t), Host: "build-7.example", Command: "memctl review"}},
		{name: "an unreadable holder file is stale", raw: "{not json", wantStale: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "lock")
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			switch {
			case c.raw != "":
				if err := os.WriteFile(holderPath(p), []byte(c.raw), 0o644); err != nil {
					t.Fatal(err)
				}
			case c.holder != nil:
				writeHolder(t, p, *c.holder)
			}
			st, err := InspectLock(p)
			if err != nil {
				t.Fatal(err)
			}
			if st.Held || st.Stale != c.wantStale {
				t.Fatalf("InspectLock = %+v, want free, stale %v", st, c.wantStale)
			}
			removed, err := ClearStale(p)
			if err != nil || removed != c.wantStale {
				t.Fatalf("ClearStale = %v, %v; want %v", removed, err, c.wantStale)
			}
			_, statErr := os.Stat(holderPath(p))
			if gone := os.IsNotExist(statErr); gone != (c.wantStale || (c.holder == nil && c.raw == "")) {
				t.Fatalf("holder file gone = %v after ClearStale", gone)
			}
		})
	}
}

func TestIsTemp(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		".issues.jsonl.tmp-123456": true,
		".AGENTS.md.tmp-1":         true,
		"issues.jsonl.tmp-1":       false, // not dot-named
		".issues.jsonl.tmp-":       false,
		".issues.jsonl.tmp-12a":    false,
		".tmp-1":                   false,
		".gitkeep":                 false,
	} {
		if got := IsTemp(name); got != want {
			t.Errorf("IsTemp(%q) = %v, want %v", name, got, want)
		}
	}
	// What writeFile leaves is a temporary by IsTemp's account.
	dir := t.TempDir()
	f, err := os.CreateTemp(dir, tempPattern("issues.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if name := filepath.Base(f.Name()); !IsTemp(name) {
		t.Errorf("IsTemp(%q) = false for writeFile's own pattern", name)
	}
}
