//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCrashSafety runs crashWrites memctl writes of mixed kinds (create,
// update, comment, propose, run record, flush), each a process of its own
// killed with SIGKILL after a random delay in a window about as long as a
// write takes, so that kills land before, inside and after the writes.
// After each one every memctl file must be the old or the new version,
// never partial: issues.jsonl parses and holds every record it held
// before (untouched but for the write's own task) plus at most the new
// one, every proposal and run record decodes, a write that exited 0 is
// there, and no file but fsx's dot-named temporaries appears. Every so
// often, and at the end, memctl check and memctl list --all --json must
// work. MEMCTL_CRASH_SEED repeats a run; the seed is logged.
func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns hundreds of processes")
	}
	bin, err := exec.LookPath("memctl")
	if err != nil {
		t.Fatal(err)
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("MEMCTL_CRASH_SEED"); s != "" {
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("MEMCTL_CRASH_SEED: %v", err)
		}
	}
	t.Logf("seed %d (MEMCTL_CRASH_SEED=%d repeats this run)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 0x6d656d63746c))

	dir, env := binWorkspace(t, bin)
	run := func(stdin string, args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, env
		cmd.Stdin = strings.NewReader(stdin)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return string(out), fmt.Errorf("memctl %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return string(out), nil
	}
	// Tasks for update and comment to work on, and how long a write takes.
	var tasks []string
	start := time.Now()
	for i := range 4 {
		out, err := run("", "create", fmt.Sprintf("seed task %d", i), "--silent")
		if err != nil {
			t.Fatal(err)
		}
		tasks = append(tasks, strings.TrimSpace(out))
	}
	window := 2 * time.Since(start) / 4
	t.Logf("kill window %v", window)

	const crashWrites = 200
	var kills, completed, failed, lost int
	before := snapshot(t, dir)
	for i := range crashWrites {
		var args []string
		var stdin string
		target := ""
		switch kind := rng.IntN(6); kind {
		case 0:
			args = []string{"create", fmt.Sprintf("crash task %d of seed %d", i, seed), "--silent"}
		case 1:
			target = tasks[rng.IntN(len(tasks))]
			args = []string{"update", target, "--append-notes", fmt.Sprintf("note %d", i), "--priority", "P" + strconv.Itoa(rng.IntN(4))}
		case 2:
			target = tasks[rng.IntN(len(tasks))]
			args = []string{"comment", target, fmt.Sprintf("comment %d of seed %d", i, seed)}
		case 3:
			args = []string{"propose", "--category", "pitfalls", "--reason", "crash test",
				"--text", fmt.Sprintf("Pitfall number %d of crash seed %d.", i, seed), "--json"}
		case 4:
			args = []string{"run", "record", "--status", "success", "--intent", fmt.Sprintf("run %d", i), "--task", tasks[0], "--json"}
		case 5:
			// The same session each time: flush merges into one record.
			args = []string{"flush", "--timeout", "10s"}
			stdin = `{"session_id":"crash-session","hook_event_name":"SessionEnd"}`
		}
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, env
		cmd.Stdin = strings.NewReader(stdin)
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		delay := time.Duration(rng.Int64N(int64(window) + 1))
		timer := time.AfterFunc(delay, func() { _ = cmd.Process.Signal(syscall.SIGKILL) })
		err := cmd.Wait()
		timer.Stop()
		var ee *exec.ExitError
		switch {
		case err == nil:
			completed++
		case errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signaled():
			kills++
		case errors.As(err, &ee):
			failed++ // refused (a duplicate, say): must have changed nothing of others'
		default:
			t.Fatal(err)
		}

		after := snapshot(t, dir)
		lost += compareSnapshots(t, i, args, target, before, after)
		if err == nil {
			switch args[0] {
			case "create":
				if id := strings.TrimSpace(stdout.String()); after.issues[id] == "" {
					t.Errorf("write %d (%s): exited 0 with %s, which is not in issues.jsonl", i, args[0], id)
				}
			case "propose":
				var p struct{ ID string }
				if json.Unmarshal(stdout.Bytes(), &p) != nil || !after.has(filepath.Join(".ledger", "proposals", p.ID+".json")) {
					t.Errorf("write %d (propose): exited 0, but its proposal %q is not in .ledger/proposals", i, p.ID)
				}
			}
		}
		before = after
		if t.Failed() {
			t.Fatalf("stopped at write %d: %s", i, strings.Join(args, " "))
		}
		if i%50 == 49 || i == crashWrites-1 {
			if _, err := run("", "check"); err != nil {
				t.Fatalf("after write %d: %v", i, err)
			}
			out, err := run("", "list", "--all", "--json")
			if err != nil {
				t.Fatalf("after write %d: %v", i, err)
			}
			var listed []struct{ ID string }
			if err := json.Unmarshal([]byte(out), &listed); err != nil {
				t.Fatalf("after write %d: list --all --json: %v", i, err)
			}
			if len(listed) != len(after.issues) {
				t.Fatalf("after write %d: list --all --json shows %d tasks, issues.jsonl holds %d", i, len(listed), len(after.issues))
			}
			// The readers of directories take no temporary for a record.
			for _, c := range []struct{ args, key, dir string }{
				{"proposals --status all --json", "proposals", "proposals"},
				{"runs --json --limit 0", "runs", "runs"},
			} {
				out, err := run("", strings.Fields(c.args)...)
				if err != nil {
					t.Fatalf("after write %d: %v", i, err)
				}
				var doc map[string]json.RawMessage
				var listed []json.RawMessage
				if err := json.Unmarshal([]byte(out), &doc); err != nil {
					t.Fatalf("after write %d: %s: %v", i, c.args, err)
				}
				if err := json.Unmarshal(doc[c.key], &listed); err != nil {
					t.Fatalf("after write %d: %s: %v", i, c.args, err)
				}
				if n := after.count(filepath.Join(".ledger", c.dir), ".json"); len(listed) != n {
					t.Fatalf("after write %d: %s shows %d, .ledger/%s holds %d", i, c.args, len(listed), c.dir, n)
				}
			}
		}
	}
	// A write after all that works, and leaves no temporary behind.
	if _, err := run("", "create", "after the crashes", "--silent"); err != nil {
		t.Fatal(err)
	}
	t.Logf("writes %d: killed %d, completed %d, refused %d; records lost %d; temporaries left by kills %d",
		crashWrites, kills, completed, failed, lost, len(before.temps))
	if lost != 0 {
		t.Errorf("%d records lost", lost)
	}
}

// crashState is what the crash test knows of a workspace: the task records
// by id (their line), and every other memctl file by path (its bytes).
type crashState struct {
	issues map[string]string
	order  []string
	files  map[string][]byte
	temps  []string
}

func (s crashState) has(rel string) bool { _, ok := s.files[rel]; return ok }

// count is the number of files under dir whose name ends in ext.
func (s crashState) count(dir, ext string) int {
	n := 0
	for rel := range s.files {
		if strings.HasPrefix(rel, dir+string(filepath.Separator)) && strings.HasSuffix(rel, ext) {
			n++
		}
	}
	return n
}

// snapshot reads the workspace, failing the test on any partial file.
func snapshot(t *testing.T, dir string) crashState {
	t.Helper()
	s := crashState{issues: map[string]string{}, files: map[string][]byte{}}
	data, err := os.ReadFile(filepath.Join(dir, ".beads", "issues.jsonl"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Errorf("issues.jsonl does not end in a newline: a partial write")
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for n := 1; sc.Scan(); n++ {
		var rec struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil || rec.ID == "" {
			t.Errorf("issues.jsonl:%d: not a record (%v): %.80q", n, err, sc.Text())
			continue
		}
		if _, dup := s.issues[rec.ID]; dup {
			t.Errorf("issues.jsonl:%d: %s a second time", n, rec.ID)
		}
		s.issues[rec.ID] = sc.Text()
		s.order = append(s.order, rec.ID)
	}
	for _, sub := range []string{".ledger", ".beads"} {
		err := filepath.WalkDir(filepath.Join(dir, sub), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(dir, path)
			if strings.HasPrefix(d.Name(), ".") && strings.Contains(d.Name(), ".tmp-") {
				s.temps = append(s.temps, rel)
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if strings.HasSuffix(path, ".json") && !json.Valid(b) {
				t.Errorf("%s: not valid JSON: a partial write (%d bytes)", rel, len(b))
			}
			s.files[rel] = b
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// compareSnapshots checks that after is before with at most the one write
// of args applied, and returns the number of records lost.
func compareSnapshots(t *testing.T, i int, args []string, target string, before, after crashState) int {
	t.Helper()
	lost := 0
	for _, id := range before.order {
		line, ok := after.issues[id]
		switch {
		case !ok:
			t.Errorf("write %d (%s): task %s lost", i, args[0], id)
			lost++
		case id != target && line != before.issues[id]:
			t.Errorf("write %d (%s): task %s changed, though the write was to %q:\nbefore %s\nafter  %s", i, args[0], id, target, before.issues[id], line)
		}
	}
	if n := len(after.issues) - len(before.issues); n > 1 || n > 0 && args[0] != "create" {
		t.Errorf("write %d (%s): %d new tasks", i, args[0], n)
	}
	var added []string
	for rel, b := range before.files {
		a, ok := after.files[rel]
		switch {
		case !ok:
			t.Errorf("write %d (%s): %s lost", i, args[0], rel)
			lost++
		case rel == filepath.Join(".beads", "issues.jsonl"):
		case !bytes.Equal(a, b) && !strings.HasPrefix(rel, filepath.Join(".ledger", "runs")):
			// Only run records (flush merging into its session's record)
			// and the task file are rewritten by these writes.
			t.Errorf("write %d (%s): %s changed", i, args[0], rel)
		}
	}
	for rel := range after.files {
		if _, ok := before.files[rel]; !ok {
			added = append(added, rel)
		}
	}
	if len(added) > 1 {
		t.Errorf("write %d (%s): %d new files: %v", i, args[0], len(added), added)
	}
	return lost
}

// TestRecallRebuildsDamagedIndex damages the recall index as a crash or a
// full disk would (the database cut in half or emptied, a word index
// segment cut short or with a byte changed) and runs memctl recall: it
// answers as before, with one line on stderr saying the index was rebuilt,
// and the recall after that says nothing.
func TestRecallRebuildsDamagedIndex(t *testing.T) {
	bin, err := exec.LookPath("memctl")
	if err != nil {
		t.Fatal(err)
	}
	dir, env := binWorkspace(t, bin)
	recall := func() (string, string) {
		t.Helper()
		cmd := exec.Command(bin, "recall", "parser config", "--json")
		cmd.Dir, cmd.Env = dir, env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("memctl recall: %v\n%s", err, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	for _, title := range []string{"write the parser for the config files", "the config parser rejects tabs", "release notes for 1.2"} {
		cmd := exec.Command(bin, "create", title, "--silent")
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("memctl create: %v\n%s", err, out)
		}
	}
	want, _ := recall()
	indexDir := filepath.Join(dir, ".git", "memctl")
	segment := func() string {
		names, _ := filepath.Glob(filepath.Join(indexDir, "bm25", "store", "*.zap"))
		if len(names) == 0 {
			t.Fatal("no word index segment")
		}
		return names[len(names)-1]
	}
	cut := func(p string, keep func(int64) int64) {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, keep(fi.Size())); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, note string
		damage     func()
	}{
		{"database cut in half", "database disk image is malformed", func() {
			cut(filepath.Join(indexDir, "index.db"), func(n int64) int64 { return n / 2 })
		}},
		{"empty database", "no such table", func() {
			cut(filepath.Join(indexDir, "index.db"), func(int64) int64 { return 0 })
		}},
		{"segment cut short", "is damaged", func() {
			cut(segment(), func(n int64) int64 { return n - 100 })
		}},
		{"segment damaged in the middle", "is damaged", func() {
			p := segment()
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/2] ^= 0x55
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		c.damage()
		got, stderr := recall()
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		if len(lines) != 1 || !strings.HasPrefix(lines[0], "memctl: rebuilding the recall index: ") || !strings.Contains(lines[0], c.note) {
			t.Errorf("%s: stderr %q, want one line saying the index is rebuilt (%s)", c.name, stderr, c.note)
		}
		if got != want {
			t.Errorf("%s: recall after the rebuild:\n%s\nwant\n%s", c.name, got, want)
		}
		if _, stderr := recall(); stderr != "" {
			t.Errorf("%s: the recall after the rebuild said %q", c.name, stderr)
		}
	}
}
