package main

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/memctl/memctl/internal/cli"
	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/secrets/secretstest"
)

// testNow is the clock of every script unless it sets MEMCTL_TEST_NOW.
const testNow = "2026-11-22T10:00:00Z"

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"memctl": func() {
			// As in main.go: SIGINT and SIGTERM cancel the command's context.
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			code := cli.Main(ctx, os.Args[1:], testEnv())
			stop()
			os.Exit(code)
		},
		// The binary under the name bd: bd's drop-in mode (cli.ProgramArgs).
		"bd": func() {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			code := cli.Main(ctx, cli.ProgramArgs(os.Args[0], os.Args[1:]), testEnv())
			stop()
			os.Exit(code)
		},
	})
}

// testEnv is the system Env with the clock and randomness pinned, so that
// scripts can compare output byte for byte. Only tests read MEMCTL_TEST_NOW:
// the shipped binary has no hidden clock switch. MEMCTL_TEST_NOW=system
// keeps the system clock and crypto/rand, as shipped: the stress test runs
// many processes at once, which must not all mint the same ids.
func testEnv() *cli.Env {
	env := cli.SystemEnv()
	if os.Getenv("MEMCTL_TEST_NOW") == "system" {
		return env
	}
	now, err := time.Parse(time.RFC3339, os.Getenv("MEMCTL_TEST_NOW"))
	if err != nil {
		now, _ = time.Parse(time.RFC3339, testNow)
	}
	env.Now = func() time.Time { return now }
	env.Rand = chachaReader{rand.NewChaCha8([32]byte{'m', 'e', 'm', 'c', 't', 'l'})}
	return env
}

type chachaReader struct{ c *rand.ChaCha8 }

func (r chachaReader) Read(p []byte) (int, error) { return r.c.Read(p) }

func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", "script"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       os.Getenv("MEMCTL_UPDATE") == "1",
		Setup:               scriptSetup,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"gitinit":     cmdGitInit,
			"stdout2env":  cmdStdout2Env,
			"holdlock":    cmdHoldLock,
			"exitcode":    cmdExitCode,
			"embedserver": cmdEmbedServer,
			"session":     cmdSession,
			"snapshot":    cmdSnapshot,
		},
	})
}

// scriptSetup gives every script its own home and git configuration, so
// nothing of the developer's machine leaks in.
func scriptSetup(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, ".home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	gitconfig := filepath.Join(home, ".gitconfig")
	if err := os.WriteFile(gitconfig, []byte("[user]\n\tname = Test User\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644); err != nil {
		return err
	}
	for k, v := range map[string]string{
		"HOME":                home,
		"XDG_CONFIG_HOME":     filepath.Join(home, ".config"),
		"XDG_CACHE_HOME":      filepath.Join(home, ".cache"),
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_CONFIG_GLOBAL":   gitconfig,
		"MEMCTL_TEST_NOW":     testNow,
		"GITHUB_ACTIONS":      "",
		"NO_COLOR":            "1",
	} {
		env.Setenv(k, v)
	}
	// $MEMCTL is the memctl testscript put on PATH, and $PATH_WITHOUT_MEMCTL
	// a PATH without it, nor any other memctl (one make install put in
	// GOBIN), for scripts that show what git does when it cannot find
	// memctl by name.
	bin, err := exec.LookPath("memctl")
	if err != nil {
		return err
	}
	var dirs []string
	for _, d := range filepath.SplitList(env.Getenv("PATH")) {
		if fi, err := os.Stat(filepath.Join(d, "memctl")); d == filepath.Dir(bin) || err == nil && !fi.IsDir() {
			continue
		}
		dirs = append(dirs, d)
	}
	env.Setenv("MEMCTL", bin)
	env.Setenv("PATH_WITHOUT_MEMCTL", strings.Join(dirs, string(filepath.ListSeparator)))
	// Fake credentials for the write-gate scripts, built from pieces so
	// that no script holds one a secret scanner would flag:
	// $SECRET_GITHUB, $SECRET_AWS, … (secretstest.Secrets).
	for _, s := range secretstest.Secrets() {
		env.Setenv("SECRET_"+s.Kind, s.Text)
	}
	// Characters a script cannot type, for the write-gate scripts:
	// a${NL}b is one argument with a newline in it.
	for k, v := range map[string]string{"NL": "\n", "CR": "\r", "ESC": "\x1b", "RLO": "\u202e"} {
		env.Setenv(k, v)
	}
	env.Values[lockKey{}] = &lockHolder{}
	env.Values[sessionsKey{}] = map[string]*session{}
	return nil
}

// gitinit [dir]: make dir (default: the work dir) a git repository, with
// go-git so the scripts need no git binary.
func cmdGitInit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 1 {
		ts.Fatalf("usage: gitinit [dir]")
	}
	dir := ts.Getenv("WORK")
	if len(args) == 1 {
		dir = ts.MkAbs(args[0])
	}
	if _, err := git.PlainInit(dir, false); err != nil {
		ts.Fatalf("gitinit: %v", err)
	}
}

// stdout2env NAME: set $NAME to the last command's stdout, trimmed; of a
// table row (id<TAB>…), only the first field.
func cmdStdout2Env(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: stdout2env NAME")
	}
	v := strings.TrimSpace(ts.ReadFile("stdout"))
	if first, _, ok := strings.Cut(v, "\t"); ok && !strings.Contains(first, "\n") {
		v = first
	}
	ts.Setenv(args[0], v)
}

// exitcode N PROG [ARGS...]: run PROG like exec and require exit code N,
// so scripts pin memctl's documented codes, not just "non-zero".
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %q is not a number", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}

// holdlock PATH | holdlock -release: take (or let go of) the file lock memctl
// uses for workspace writes, from this test process, so a script can show
// what a second writer sees. The holder announces itself as "memctl review"
// with this process's pid, since 09:31:02 on the scripts' day.
func cmdHoldLock(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: holdlock PATH | holdlock -release")
	}
	h := ts.Value(lockKey{}).(*lockHolder)
	if args[0] == "-release" {
		ts.Check(h.lock.Release())
		return
	}
	l, err := fsx.Acquire(context.Background(), ts.MkAbs(args[0]), time.Second)
	if err != nil {
		ts.Fatalf("holdlock: %v", err)
	}
	h.lock = l
	ts.Defer(func() { _ = l.Release() })
	since := time.Date(2026, 11, 22, 9, 31, 2, 0, time.UTC)
	ts.Check(l.Announce(fsx.Holder{PID: os.Getpid(), Command: "memctl review", Since: since}))
}

type lockKey struct{}

type lockHolder struct{ lock *fsx.Lock }

// embedserver NAME fail|ok [DOWNFILE]: start an HTTP server that answers
// embedding requests (Ollama's and OpenAI's paths) with 503s, or with
// vectors of the built-in embedder, and set $NAME to its URL. With
// DOWNFILE it answers 503s while that file exists: the same server goes
// down and comes back.
func cmdEmbedServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 || (args[1] != "fail" && args[1] != "ok") {
		ts.Fatalf("usage: embedserver NAME fail|ok [DOWNFILE]")
	}
	down := ""
	if len(args) == 3 {
		down = ts.MkAbs(args[2])
	}
	inner := embed.NewStatic(embed.Corpus{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := os.Stat(down)
		if args[1] == "fail" || down != "" && err == nil {
			http.Error(w, "embedding model is loading", http.StatusServiceUnavailable)
			return
		}
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		vs, _ := inner.Embed(r.Context(), req.Input)
		json.NewEncoder(w).Encode(map[string]any{"embeddings": vs})
	}))
	ts.Defer(srv.Close)
	ts.Setenv(args[0], srv.URL)
}
