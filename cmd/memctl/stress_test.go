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
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestStress runs memctl writers in parallel against one workspace, each
// process its own actor making mixed writes (create, update, comment,
// close, propose, run record, pref add) one command at a time, as agents
// in several terminals do. Then every write must be there (each task, its
// labels, comments and close; each proposal and team preference; each run
// record), every id once, and every file valid (memctl check passes,
// issues.jsonl and each run file decode). A write that fails, even with
// exit 5, fails the test. The lock wait is a minute, not the default 10 s:
// what is tested is that no write is lost, and on a machine busy with
// other tests one writer has waited 10.5 s behind seven others (exiting 5
// with nothing changed, as lock_timeout.txtar checks it should).
func TestStress(t *testing.T) {
	procs, writes := 8, 50
	if testing.Short() {
		writes = 10
	}
	bin, err := exec.LookPath("memctl")
	if err != nil {
		t.Fatal(err)
	}
	dir, env := binWorkspace(t, bin)
	env = append(env, "MEMCTL_TEST_NOW=system", // real clock and ids: see testEnv
		"MEMCTL_LOCK_TIMEOUT=1m")

	start := time.Now()
	results := make([]*stressWriter, procs)
	var wg sync.WaitGroup
	for p := range procs {
		w := &stressWriter{t: t, bin: bin, dir: dir, actor: fmt.Sprintf("agent-%d", p),
			env: append(slices.Clone(env), fmt.Sprintf("MEMCTL_ACTOR=agent-%d", p)),
			rng: rand.New(rand.NewPCG(uint64(p), 14))}
		results[p] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(writes)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)

	want := stressWant{tasks: map[string]*stressTask{}, proposals: map[string]string{}, runs: map[string]string{}}
	var slowest time.Duration
	for _, w := range results {
		want.add(&w.want)
		slowest = max(slowest, w.slowest)
	}
	lost := want.verify(t, bin, dir, env)
	t.Logf("stress: %d processes × %d writes = %d writes in %v, the slowest %v (%d tasks, %d updates, %d comments, %d closes, %d proposals, %d runs, %d team preferences); records lost: %d",
		procs, writes, procs*writes, elapsed.Round(time.Millisecond), slowest.Round(time.Millisecond), len(want.tasks), want.updates, want.comments, want.closes,
		len(want.proposals), len(want.runs), want.prefs, lost)
}

// stressWriter is one process's writes and what they must leave behind.
type stressWriter struct {
	t          *testing.T
	bin, dir   string
	actor      string
	env        []string
	rng        *rand.Rand
	open, mine []string // its open tasks, and all it created
	slowest    time.Duration
	want       stressWant
}

// stressWant is what the writes must have left: per task, the labels
// its updates added, its comments, whether it was closed; per proposal
// (facts and team preferences), its text; per run, its intent.
type stressWant struct {
	tasks                            map[string]*stressTask
	proposals                        map[string]string
	runs                             map[string]string
	updates, comments, closes, prefs int
}

type stressTask struct {
	title    string
	labels   []string
	comments []string
	closed   bool
}

func (w *stressWant) add(o *stressWant) {
	for id, v := range o.tasks {
		if w.tasks[id] != nil {
			w.tasks[id+" (again)"] = v // two creates printed one id: verify counts it missing
			continue
		}
		w.tasks[id] = v
	}
	for id, v := range o.proposals {
		w.proposals[id] = v
	}
	for id, v := range o.runs {
		w.runs[id] = v
	}
	w.updates += o.updates
	w.comments += o.comments
	w.closes += o.closes
	w.prefs += o.prefs
}

// words make the texts: proposals that differ in a word or two are
// near-duplicates, which is allowed but not what an agent writes.
var stressWords = strings.Fields(`parser cache index config lock merge driver token budget
	schema retry timeout socket buffer cursor ledger review digest branch commit fixture
	migration worker queue shard replica backoff checksum manifest payload header`)

func (s *stressWriter) text(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = stressWords[s.rng.IntN(len(stressWords))]
	}
	return strings.Join(ws, " ")
}

// memctl runs one command; a failure is the test's.
func (s *stressWriter) memctl(args ...string) []byte {
	cmd := exec.Command(s.bin, args...)
	cmd.Dir, cmd.Env = s.dir, s.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	err := cmd.Run()
	s.slowest = max(s.slowest, time.Since(began))
	if err != nil {
		s.t.Errorf("%s: memctl %s: %v\n%s", s.actor, strings.Join(args, " "), err, stderr.Bytes())
		return nil
	}
	return stdout.Bytes()
}

func (s *stressWriter) run(writes int) {
	s.want = stressWant{tasks: map[string]*stressTask{}, proposals: map[string]string{}, runs: map[string]string{}}
	for i := range writes {
		tag := fmt.Sprintf("%s-w%d", s.actor, i)
		// Every kind within the first 7 writes, the close last: the
		// next write creates again.
		op := i % 7
		if len(s.open) == 0 {
			op = 0 // nothing to update or close yet
		}
		switch op {
		case 0:
			title := tag + " " + s.text(4)
			out := s.memctl("create", title, "--silent")
			if id := strings.TrimSpace(string(out)); id != "" {
				s.want.tasks[id] = &stressTask{title: title}
				s.open, s.mine = append(s.open, id), append(s.mine, id)
			}
		case 1:
			id := s.mine[s.rng.IntN(len(s.mine))]
			label := "u-" + tag
			if s.memctl("update", id, "--add-label", label, "--json") != nil {
				s.want.tasks[id].labels = append(s.want.tasks[id].labels, label)
				s.want.updates++
			}
		case 2:
			id := s.mine[s.rng.IntN(len(s.mine))]
			text := tag + ": " + s.text(8)
			if s.memctl("comment", id, text, "--json") != nil {
				s.want.tasks[id].comments = append(s.want.tasks[id].comments, text)
				s.want.comments++
			}
		case 3:
			intent := tag + " " + s.text(5)
			var out struct {
				Run struct {
					RunID string `json:"run_id"`
				}
			}
			if s.decode(s.memctl("run", "record", "--intent", intent, "--status", "success", "--task", s.mine[len(s.mine)-1], "--json"), &out) {
				s.want.runs[out.Run.RunID] = intent
			}
		case 4:
			text := fmt.Sprintf("In %s the %s breaks when the %s changes.", tag, s.text(3), s.text(2))
			var out struct{ ID string }
			if s.decode(s.memctl("propose", "--category", "pitfalls", "--reason", "stress "+tag, "--text", text, "--json"), &out) {
				s.want.proposals[out.ID] = text
			}
		case 5:
			text := fmt.Sprintf("Prefer %s in %s.", s.text(4), tag)
			var out struct{ Proposal struct{ ID string } }
			if s.decode(s.memctl("pref", "add", text, "--json"), &out) {
				s.want.proposals[out.Proposal.ID] = text
				s.want.prefs++
			}
		case 6:
			id := s.open[0]
			if s.memctl("close", id, "--reason", "done in "+tag, "--json") != nil {
				s.open = s.open[1:]
				s.want.tasks[id].closed = true
				s.want.closes++
			}
		}
	}
}

func (s *stressWriter) decode(out []byte, v any) bool {
	if out == nil {
		return false
	}
	if err := json.Unmarshal(out, v); err != nil {
		s.t.Errorf("%s: %v in %s", s.actor, err, out)
		return false
	}
	return true
}

// verify checks the workspace against want and returns how many writes
// it lost.
func (want *stressWant) verify(t *testing.T, bin, dir string, env []string) (lost int) {
	t.Helper()
	memctl := func(args ...string) []byte {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("memctl %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.Bytes())
		}
		return out
	}
	missing := func(format string, args ...any) {
		t.Errorf("lost: "+format, args...)
		lost++
	}

	// The task graph as list prints it, and issues.jsonl line by line.
	var listed []struct {
		ID, Title, Status string
		Labels            []string
	}
	if err := json.Unmarshal(memctl("list", "--all", "--json", "--limit", "0"), &listed); err != nil {
		t.Fatalf("list --all --json: %v", err)
	}
	type comment struct{ Text string }
	type issue struct {
		ID       string
		Comments []comment
	}
	file := map[string]issue{}
	data, err := os.ReadFile(filepath.Join(dir, ".beads", "issues.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		var is issue
		if err := json.Unmarshal(sc.Bytes(), &is); err != nil || is.ID == "" {
			t.Errorf("issues.jsonl:%d: not an issue (%v): %s", n, err, sc.Bytes())
			continue
		}
		if _, dup := file[is.ID]; dup {
			t.Errorf("issues.jsonl:%d: id %s again", n, is.ID)
		}
		file[is.ID] = is
	}
	seen := map[string]bool{}
	for _, is := range listed {
		if seen[is.ID] {
			t.Errorf("list: id %s twice", is.ID)
		}
		seen[is.ID] = true
		w := want.tasks[is.ID]
		if w == nil {
			t.Errorf("list: task %s (%q) was never created", is.ID, is.Title)
			continue
		}
		if is.Title != w.title {
			missing("task %s: title %q, want %q", is.ID, is.Title, w.title)
		}
		for _, l := range w.labels {
			if !slices.Contains(is.Labels, l) {
				missing("task %s: update's label %q (has %v)", is.ID, l, is.Labels)
			}
		}
		if w.closed != (is.Status == "closed") {
			missing("task %s: status %s, closed = %v", is.ID, is.Status, w.closed)
		}
		var texts []string
		for _, c := range file[is.ID].Comments {
			texts = append(texts, c.Text)
		}
		for _, c := range w.comments {
			if !slices.Contains(texts, c) {
				missing("task %s: comment %q", is.ID, c)
			}
		}
	}
	for id := range want.tasks {
		if !seen[id] {
			missing("task %s created but not listed", id)
		}
	}

	// Proposals, fact and preference alike: one file each, with the text.
	for id, text := range want.proposals {
		data, err := os.ReadFile(filepath.Join(dir, ".ledger", "proposals", id+".json"))
		var p struct{ Content string }
		if err == nil {
			err = json.Unmarshal(data, &p)
		}
		if err != nil || p.Content != text {
			missing("proposal %s: %q (%v)", id, p.Content, err)
		}
	}

	// Runs: each file decodes, and runs --json lists each recorded one.
	err = filepath.WalkDir(filepath.Join(dir, ".ledger", "runs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".json" {
			return err // .gitkeep and the like are not records
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var r struct {
			RunID string `json:"run_id"`
		}
		if err := json.Unmarshal(data, &r); err != nil || r.RunID == "" {
			t.Errorf("%s: not a run record (%v)", path, err)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
	var runs struct {
		Runs []struct {
			RunID  string `json:"run_id"`
			Digest struct{ Intent string }
		}
	}
	if err := json.Unmarshal(memctl("runs", "--json", "--limit", "0"), &runs); err != nil {
		t.Fatalf("runs --json: %v", err)
	}
	intents := map[string]string{}
	for _, r := range runs.Runs {
		if _, dup := intents[r.RunID]; dup {
			t.Errorf("runs: id %s twice", r.RunID)
		}
		intents[r.RunID] = r.Digest.Intent
	}
	for id, intent := range want.runs {
		if intents[id] != intent {
			missing("run %s: intent %q, want %q", id, intents[id], intent)
		}
	}

	// Every file valid: check reads them all.
	cmd := exec.Command(bin, "check")
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatal(err)
		}
		t.Errorf("memctl check: exit %d\n%s", ee.ExitCode(), out)
	}
	return lost
}
