// Command benchcli times memctl's agent-facing commands as whole processes
// on generated Beads graphs, side by side with a Go hello-world built on
// the same machine (the floor any Go CLI pays) and, when given, real bd
// binaries on the same graphs. It prints a Markdown report: for each graph
// size and command, the median, minimum and maximum wall time of the runs
// after the warm-up, the median peak RSS, and the median of the per-run
// ratios memctl/bd (runs are interleaved, so the ratios hold when the
// machine's speed drifts).
//
//	go run ./scripts/benchcli -memctl bin/memctl -data ../shared/bench \
//	    [-bd049 bd-0.49.6] [-bd bd-1.0.5] [-sizes 1000,10000,50000] [-runs 10]
//
// The graphs come from the Beads generator in the shared benchmark data
// (beads/gen_beads_jsonl.py, run with python3), which is not part of this
// repository. bd 0.49.6 reads the JSONL directly (--no-db); bd 1.0.5 must
// import it into its Dolt database first, which takes minutes at 10k
// issues, so it runs at the sizes in -bd-sizes only.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type config struct {
	memctl, bd, bd049, data string
	sizes, bdSizes          []int
	runs, warmup            int
	only                    string
	out                     string
	keep                    bool
}

func main() {
	var c config
	var sizes, bdSizes string
	flag.StringVar(&c.memctl, "memctl", "bin/memctl", "the memctl binary to time")
	flag.StringVar(&c.bd049, "bd049", os.Getenv("BD049"), "a bd 0.49.6 binary (run with --no-db); empty: no bd 0.49.6 column")
	flag.StringVar(&c.bd, "bd", os.Getenv("BD"), "a bd 1.0.5 binary; empty: no bd 1.0.5 column")
	flag.StringVar(&c.data, "data", envOr("MEMCTL_BENCH_DATA", "../shared/bench"), "the shared benchmark data directory")
	flag.StringVar(&sizes, "sizes", "1000,10000,50000", "graph sizes, comma-separated")
	flag.StringVar(&bdSizes, "bd-sizes", "1000", "the sizes at which bd 1.0.5 runs (its import is slow)")
	flag.IntVar(&c.runs, "runs", 10, "counted runs of each command")
	flag.IntVar(&c.warmup, "warmup", 1, "runs before the counted ones")
	flag.StringVar(&c.only, "only", "", "time only the commands whose names contain this")
	flag.StringVar(&c.out, "o", "", "also write the report to this file")
	flag.BoolVar(&c.keep, "keep", false, "keep the workspaces (their paths go to stderr)")
	flag.Parse()
	var err error
	if c.sizes, err = parseSizes(sizes); err == nil {
		c.bdSizes, err = parseSizes(bdSizes)
	}
	if err == nil {
		err = run(c)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchcli:", err)
		os.Exit(1)
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("size %q: want a positive number", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// A command is timed on every tool that has it. Arguments may hold {id}
// (one open issue, the same every run) and {next} (a different open issue
// each run, so that claiming or closing it is real work each time).
type command struct {
	name   string
	memctl string
	bd     string // bd 1.0.5's and bd 0.49.6's form; empty: memctl only
	// needsIndex: the memctl workspace needs memctl index first.
	needsIndex bool
	// env is added to the environment of every run.
	env []string
}

var commands = []command{
	{name: "version", memctl: "version", bd: "version"},
	{name: "ready --json", memctl: "ready --json", bd: "ready --json"},
	{name: "ready --json --limit 0", memctl: "ready --json --limit 0", bd: "ready --json --limit 0"},
	{name: "list --json", memctl: "list --json", bd: "list --json"},
	{name: "show <id> --json", memctl: "show {id} --json", bd: "show {id} --json"},
	{name: "blocked --json", memctl: "blocked --json", bd: "blocked --json"},
	{name: "count --json", memctl: "count --json", bd: "count --json"},
	{name: "stats --json", memctl: "stats --json", bd: "stats --json"},
	{name: "create", memctl: "create Bench_issue --json", bd: "create Bench_issue --json"},
	{name: "update --claim", memctl: "update {next} --claim --json", bd: "update {next} --claim --json"},
	{name: "close", memctl: "close {next} --json", bd: "close {next} --json"},
	{name: "comment", memctl: "comments add {next} Bench_note --json", bd: "comments add {next} Bench_note --json"},
	// check outside CI remembers what it found clean: every run after the
	// first reads nothing again (a pre-commit hook on an unchanged graph);
	// with CI set it reads everything, every run.
	{name: "check", memctl: "check", env: []string{"CI="}},
	{name: "check, CI set", memctl: "check", env: []string{"CI=true"}},
	{name: "recall", memctl: "recall compaction_goroutine --json", needsIndex: true},
	{name: "prime --json", memctl: "prime --json"},
	{name: "flush", memctl: "flush --quiet"},
}

// A tool is one program timed in one workspace.
type tool struct {
	name   string
	bin    string
	pre    []string // arguments before the command's (bd 0.49.6: --no-db)
	dir    string
	memctl bool
	floor  bool // the hello-world: only "version", with no arguments
}

type sample struct {
	wall time.Duration
	rss  int64 // bytes
	code int
	err  string
}

func run(c config) error {
	gen := filepath.Join(c.data, "beads", "gen_beads_jsonl.py")
	if _, err := os.Stat(gen); err != nil {
		return fmt.Errorf("no Beads generator at %s: give -data or MEMCTL_BENCH_DATA", gen)
	}
	memctl, err := filepath.Abs(c.memctl)
	if err != nil {
		return err
	}
	if _, err := os.Stat(memctl); err != nil {
		return fmt.Errorf("%s: build memctl first (make build)", memctl)
	}
	root, err := os.MkdirTemp("", "memctl-benchcli-")
	if err != nil {
		return err
	}
	if c.keep {
		fmt.Fprintln(os.Stderr, "benchcli: workspaces in", root)
	} else {
		defer os.RemoveAll(root)
	}
	hello, err := buildHello(root)
	if err != nil {
		return fmt.Errorf("building the Go hello-world: %w", err)
	}
	var report bytes.Buffer
	w := io.MultiWriter(os.Stdout, &report)
	fmt.Fprintf(w, "# memctl whole-process figures\n\n%s, %s/%s, %d CPUs; %d runs after %d warm-up, interleaved; wall ms as median (min–max), peak RSS MiB as median.\n\n",
		time.Now().UTC().Format("2006-01-02"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), c.runs, c.warmup)
	for _, n := range c.sizes {
		if err := runSize(c, w, root, gen, memctl, hello, n); err != nil {
			return fmt.Errorf("%d issues: %w", n, err)
		}
	}
	if c.out != "" {
		return os.WriteFile(c.out, report.Bytes(), 0o644)
	}
	return nil
}

func buildHello(root string) (string, error) {
	dir := filepath.Join(root, "hello")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	src := "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n\ngo 1.21\n"), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "hello")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%v\n%s", err, out)
	}
	return bin, nil
}

func runSize(c config, w io.Writer, root, gen, memctl, hello string, n int) error {
	dir := filepath.Join(root, strconv.Itoa(n))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	file := filepath.Join(dir, "issues.jsonl")
	if out, err := exec.Command("python3", gen, "-n", strconv.Itoa(n), "-o", file, "--seed", "7", "--prefix", "bd").CombinedOutput(); err != nil {
		return fmt.Errorf("generator: %v\n%s", err, out)
	}
	open, err := openIDs(file)
	if err != nil {
		return err
	}
	need := c.warmup + c.runs
	if len(open) < 1+need {
		return fmt.Errorf("the graph has %d open issues free of edges; %d runs need %d", len(open), c.runs, 1+need)
	}
	env := benchEnv(root)
	tools := []*tool{{name: "hello-world", bin: hello, floor: true}}
	m := &tool{name: "memctl", bin: memctl, dir: filepath.Join(dir, "memctl"), memctl: true}
	if err := setupMemctl(m, file, env); err != nil {
		return err
	}
	tools = append(tools, m)
	if c.bd049 != "" {
		t := &tool{name: "bd 0.49.6", bin: c.bd049, pre: []string{"--no-db"}, dir: filepath.Join(dir, "bd049")}
		if err := setupBd(t, file, env, false); err != nil {
			return err
		}
		tools = append(tools, t)
	}
	if c.bd != "" && slices.Contains(c.bdSizes, n) {
		t := &tool{name: "bd 1.0.5", bin: c.bd, dir: filepath.Join(dir, "bd105")}
		if err := setupBd(t, file, env, true); err != nil {
			return err
		}
		tools = append(tools, t)
	}

	debug.FreeOSMemory() // keep this program's footprint out of the children's peaks
	fmt.Fprintf(w, "## %s issues\n\n", thousands(n))
	head := "| command | memctl | above floor | RSS"
	sep := "|---|---|---|---"
	for _, t := range tools[2:] {
		head += " | " + t.name + " | RSS | memctl / " + t.name
		sep += "|---|---|---"
	}
	fmt.Fprintln(w, head+" |")
	fmt.Fprintln(w, sep+"|")

	var floor time.Duration
	indexed := false
	for _, cmd := range commands {
		if c.only != "" && !strings.Contains(cmd.name, c.only) && cmd.name != "version" {
			continue
		}
		if cmd.needsIndex && !indexed {
			if _, err := runOnce(m, []string{"index"}, env); err != nil {
				return fmt.Errorf("memctl index: %w", err)
			}
			indexed = true
		}
		var active []*tool
		for _, t := range tools {
			if t.floor && cmd.name != "version" || !t.memctl && !t.floor && cmd.bd == "" {
				continue
			}
			active = append(active, t)
		}
		got := map[*tool][]sample{}
		for r := 0; r < need; r++ {
			for _, t := range active {
				args := argsFor(t, cmd, open, r)
				s, err := runOnce(t, args, slices.Concat(env, cmd.env))
				if err != nil {
					return err
				}
				if s.code != 0 && !t.floor {
					fmt.Fprintf(os.Stderr, "benchcli: %s %s: exit %d: %s\n", t.name, strings.Join(args, " "), s.code, s.err)
				}
				if r >= c.warmup {
					got[t] = append(got[t], s)
				}
			}
		}
		ms := got[m]
		mmed := median(walls(ms))
		if cmd.name == "version" {
			floor = mmed
			hs := got[tools[0]]
			fmt.Fprintf(w, "| Go hello-world | %s |  | %.1f |%s\n", spread(walls(hs)), mib(hs), strings.Repeat(" |", 3*(len(tools)-2)))
		}
		row := fmt.Sprintf("| `%s` | %s | %+.1f | %.1f", cmd.name, spread(walls(ms)), ms2(mmed-floor), mib(ms))
		for _, t := range tools[2:] {
			bs, ok := got[t]
			if !ok {
				row += " | – | | "
				continue
			}
			row += fmt.Sprintf(" | %s | %.1f | %.2f", spread(walls(bs)), mib(bs), ratio(ms, bs))
		}
		fmt.Fprintln(w, row+" |")
		if cmd.name == "version" {
			hs := got[tools[0]]
			fmt.Fprintf(os.Stderr, "benchcli: %d issues: floor %s ms, %.2f× the hello-world\n", n, fmtms(floor), ratio(ms, hs))
		}
	}
	fmt.Fprintln(w)
	return nil
}

// argsFor returns t's command line for cmd's run r.
func argsFor(t *tool, cmd command, open []string, r int) []string {
	if t.floor {
		return nil
	}
	line := cmd.memctl
	if !t.memctl {
		line = cmd.bd
	}
	// The commands that take {next} walk the same issues in turn: each is
	// claimed, then closed, then commented on.
	args := append([]string{}, t.pre...)
	for _, f := range strings.Fields(line) {
		switch f {
		case "{id}":
			f = open[0]
		case "{next}":
			f = open[1+r]
		}
		args = append(args, strings.ReplaceAll(f, "_", " "))
	}
	return args
}

func benchEnv(root string) []string {
	home := filepath.Join(root, "home")
	_ = os.MkdirAll(home, 0o755)
	return append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com",
		"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com", "NO_COLOR=1",
		"BD_NO_DAEMON=1", "BEADS_NO_DAEMON=1", "MEMCTL_ACTOR=bench", "BD_ACTOR=bench")
}

func runOnce(t *tool, args []string, env []string) (sample, error) {
	cmd := exec.Command(t.bin, args...)
	cmd.Dir, cmd.Env = t.dir, env
	cmd.Stdout = io.Discard
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return sample{}, fmt.Errorf("%s: %w", t.bin, err)
	}
	s := sample{wall: wall, code: cmd.ProcessState.ExitCode()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.rss = int64(ru.Maxrss)
		if runtime.GOOS != "darwin" {
			s.rss *= 1024 // kilobytes elsewhere
		}
	}
	if s.code != 0 {
		s.err, _, _ = strings.Cut(strings.TrimSpace(stderr.String()), "\n")
	}
	return s, nil
}

func setupMemctl(t *tool, file string, env []string) error {
	if err := gitInit(t.dir, env); err != nil {
		return err
	}
	if s, err := runOnce(t, []string{"init", "--prefix", "bd"}, env); err != nil || s.code != 0 {
		return fmt.Errorf("memctl init: %v %s", err, s.err)
	}
	return copyOld(file, filepath.Join(t.dir, ".beads", "issues.jsonl"))
}

// copyOld copies the graph and dates it a minute back, as a repository's
// file is when a session starts: memctl checks a file written just before
// its cache by its checksum (docs/tasks.md), which a fresh copy would make
// the first run pay.
func copyOld(src, dst string) error {
	if err := copyFile(src, dst); err != nil {
		return err
	}
	old := time.Now().Add(-time.Minute)
	return os.Chtimes(dst, old, old)
}

func setupBd(t *tool, file string, env []string, importDB bool) error {
	if err := gitInit(t.dir, env); err != nil {
		return err
	}
	if s, err := runOnce(t, append(slices.Clone(t.pre), "init", "--prefix", "bd", "--quiet"), env); err != nil || s.code != 0 {
		return fmt.Errorf("%s init: %v %s", t.name, err, s.err)
	}
	dst := filepath.Join(t.dir, ".beads", "issues.jsonl")
	if err := copyOld(file, dst); err != nil {
		return err
	}
	if importDB {
		start := time.Now()
		if s, err := runOnce(t, []string{"import", dst}, env); err != nil || s.code != 0 {
			return fmt.Errorf("%s import: %v %s", t.name, err, s.err)
		}
		fmt.Fprintf(os.Stderr, "benchcli: %s imported the graph in %s\n", t.name, time.Since(start).Round(time.Second))
	}
	return nil
}

func gitInit(dir string, env []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cmd := exec.Command("git", "init", "-q", ".")
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v\n%s", err, out)
	}
	return nil
}

// copyFile streams src to dst: reading a 50k-issue file into memory would
// raise this program's peak, and a child's peak RSS as Linux reports it
// can include the parent's at the fork.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// openIDs lists the issues of a JSONL file that every tool can claim,
// close and comment on, in file order: open, unassigned, with no
// dependencies and not a parent.
func openIDs(file string) ([]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ids []string
	parents := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		var rec struct {
			ID, Status, Assignee string
			Dependencies         []struct {
				DependsOnID string `json:"depends_on_id"`
			}
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue
		}
		for _, d := range rec.Dependencies {
			parents[d.DependsOnID] = true
		}
		if rec.Status == "open" && rec.ID != "" && rec.Assignee == "" && len(rec.Dependencies) == 0 {
			ids = append(ids, rec.ID)
		}
	}
	ids = slices.DeleteFunc(ids, func(id string) bool { return parents[id] })
	return ids, sc.Err()
}

func walls(ss []sample) []time.Duration {
	out := make([]time.Duration, len(ss))
	for i, s := range ss {
		out[i] = s.wall
	}
	return out
}

func median[T int64 | float64 | time.Duration](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ratio is the median of the per-run ratios a/b (runs were interleaved,
// so run i of each was taken at about the same time).
func ratio(a, b []sample) float64 {
	var rs []float64
	for i := range min(len(a), len(b)) {
		if b[i].wall > 0 {
			rs = append(rs, float64(a[i].wall)/float64(b[i].wall))
		}
	}
	return median(rs)
}

func spread(ds []time.Duration) string {
	if len(ds) == 0 {
		return "–"
	}
	return fmt.Sprintf("%s (%s–%s)", fmtms(median(ds)), fmtms(slices.Min(ds)), fmtms(slices.Max(ds)))
}

func fmtms(d time.Duration) string { return strconv.FormatFloat(ms2(d), 'f', 1, 64) }

func ms2(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func mib(ss []sample) float64 {
	rss := make([]int64, len(ss))
	for i, s := range ss {
		rss[i] = s.rss
	}
	return float64(median(rss)) / (1 << 20)
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
