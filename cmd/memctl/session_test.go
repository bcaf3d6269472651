package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

// session drives a memctl process that runs while the script goes on,
// with a stdin pipe that stays open until the script closes it, so a
// script can show what happens while an interactive command waits for a
// person:
//
//	session start NAME ARGS...   start memctl ARGS in the background
//	session await NAME REGEXP    block until its stderr matches
//	session send NAME TEXT       write TEXT and a newline to its stdin
//	session close NAME           close its stdin (the end of input)
//	session signal NAME INT|TERM send it a signal
//	session wait NAME CODE       wait for it to exit with CODE; its stdout
//	                             and stderr become the script's
//
// await blocks on the process's output, not on a clock: it wakes at each
// write and fails if the process exits without printing the match.
func cmdSession(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: session start|await|send|close|signal|wait NAME ...")
	}
	sessions := ts.Value(sessionsKey{}).(map[string]*session)
	verb, name, rest := args[0], args[1], args[2:]
	if verb == "start" {
		if sessions[name] != nil {
			ts.Fatalf("session %s: already started", name)
		}
		sessions[name] = startSession(ts, rest)
		return
	}
	s := sessions[name]
	if s == nil {
		ts.Fatalf("session %s: not started", name)
	}
	switch {
	case verb == "await" && len(rest) == 1:
		s.await(ts, regexp.MustCompile(rest[0]))
	case verb == "send" && len(rest) == 1:
		if _, err := io.WriteString(s.stdin, rest[0]+"\n"); err != nil {
			ts.Fatalf("session %s: send: %v", name, err)
		}
	case verb == "close" && len(rest) == 0:
		ts.Check(s.stdin.Close())
	case verb == "signal" && len(rest) == 1:
		sig := map[string]os.Signal{"INT": os.Interrupt, "TERM": syscall.SIGTERM}[rest[0]]
		if sig == nil {
			ts.Fatalf("session %s: unknown signal %s", name, rest[0])
		}
		ts.Check(s.cmd.Process.Signal(sig))
	case verb == "wait" && len(rest) == 1:
		want, err := strconv.Atoi(rest[0])
		if err != nil {
			ts.Fatalf("session %s: %q is not an exit code", name, rest[0])
		}
		<-s.done
		got := 0
		var ee *exec.ExitError
		if errors.As(s.err, &ee) {
			got = ee.ExitCode()
		} else if s.err != nil {
			ts.Fatalf("session %s: %v", name, s.err)
		}
		stdout, stderr := s.output()
		ts.Stdout().Write(stdout)
		ts.Stderr().Write(stderr)
		delete(sessions, name)
		if got != want {
			ts.Fatalf("session %s exited with %d, want %d", name, got, want)
		}
	default:
		ts.Fatalf("usage: session start|await|send|close|signal|wait NAME ...")
	}
}

type sessionsKey struct{}

type session struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{}
	err   error // from Wait, once done is closed

	mu             sync.Mutex
	changed        *sync.Cond // broadcast at each write and at exit
	stdout, stderr bytes.Buffer
	exited         bool
}

func startSession(ts *testscript.TestScript, args []string) *session {
	path, err := exec.LookPath("memctl")
	if err != nil {
		ts.Fatalf("session: %v", err)
	}
	s := &session{cmd: exec.Command(path, args...), done: make(chan struct{})}
	s.changed = sync.NewCond(&s.mu)
	s.cmd.Dir = ts.MkAbs(".")
	s.cmd.Env = scriptEnviron(ts)
	s.cmd.Stdout = &sessionWriter{s, &s.stdout}
	s.cmd.Stderr = &sessionWriter{s, &s.stderr}
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		ts.Fatalf("session: %v", err)
	}
	if err := s.cmd.Start(); err != nil {
		ts.Fatalf("session: %v", err)
	}
	go func() {
		s.err = s.cmd.Wait()
		s.mu.Lock()
		s.exited = true
		s.changed.Broadcast()
		s.mu.Unlock()
		close(s.done)
	}()
	ts.Defer(func() {
		_ = s.cmd.Process.Kill()
		<-s.done
	})
	return s
}

func (s *session) await(ts *testscript.TestScript, re *regexp.Regexp) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for !re.Match(s.stderr.Bytes()) {
		if s.exited {
			ts.Fatalf("session exited before its stderr matched %q:\n%s", re, s.stderr.String())
		}
		s.changed.Wait()
	}
}

func (s *session) output() (stdout, stderr []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.stdout.Bytes()), bytes.Clone(s.stderr.Bytes())
}

type sessionWriter struct {
	s   *session
	buf *bytes.Buffer
}

func (w *sessionWriter) Write(p []byte) (int, error) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	w.buf.Write(p)
	w.s.changed.Broadcast()
	return len(p), nil
}

// scriptEnviron is the environment the script gives its commands: the
// process's own with every variable scriptSetup sets or a script may set
// taken from the script. (testscript does not export its environment.)
func scriptEnviron(ts *testscript.TestScript) []string {
	names := []string{"PATH", "WORK", "TMPDIR", "HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "GIT_CONFIG_NOSYSTEM",
		"GIT_CONFIG_GLOBAL", "GITHUB_ACTIONS", "NO_COLOR", "MEMCTL_TEST_NOW", "MEMCTL_ACTOR", "MEMCTL_ACCESSIBLE",
		"MEMCTL_LOCK_TIMEOUT", "GOGC"}
	env := os.Environ()
	for _, n := range names {
		env = append(env, n+"="+ts.Getenv(n))
	}
	return append(env, "PWD="+ts.MkAbs("."))
}
