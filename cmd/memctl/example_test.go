package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"

	"github.com/memctl/memctl/internal/cli"
)

// TestExampleWorkspace keeps examples/workspace, which `make demo` runs on,
// a workspace that initialises and passes check.
func TestExampleWorkspace(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "examples", "workspace"))); err != nil {
		t.Fatal(err)
	}
	if _, err := git.PlainInit(dir, false); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		env := testEnv()
		env.In, env.Out, env.Err = strings.NewReader(""), &out, &errb
		env.StdinTTY, env.StdoutTTY = false, false
		env.Getwd = func() (string, error) { return dir, nil }
		env.Getenv = func(string) string { return "" }
		code := cli.Main(context.Background(), args, env)
		return out.String(), errb.String(), code
	}
	if _, stderr, code := run("init"); code != 0 {
		t.Fatalf("init: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := run("check"); code != 0 {
		t.Fatalf("check: exit %d\n%s", code, stderr)
	}
	out, stderr, code := run("facts", "--json")
	if code != 0 || !strings.Contains(out, `"id": "inv-limits"`) {
		t.Fatalf("facts: exit %d\n%s\n%s", code, out, stderr)
	}
}

// TestDemoPrintsCommandsAsTyped: make demo shows each command before its
// output; the line must be one a reader can paste into a shell and get the
// same arguments (it printed $* before, which lost the quoting).
func TestDemoPrintsCommandsAsTyped(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("make demo needs bash, and there is none")
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "demo.sh"))
	if err != nil {
		t.Fatal(err)
	}
	var funcs []string
	for _, name := range []string{"quote", "step"} {
		m := regexp.MustCompile(`(?ms)^` + name + `\(\) \{\n.*?^\}\n`).Find(src)
		if m == nil {
			t.Fatalf("examples/demo.sh has no function %s", name)
		}
		funcs = append(funcs, string(m))
	}
	script := strings.Join(funcs, "") + `bold= plain=
step propose --category preferences --reason "saw it in a review" --text "it's \$HOME & \"quoted\"" ''
line=$(step propose --category preferences --reason "saw it in a review" --text "it's \$HOME & \"quoted\"" '' | tail -1)
eval "set -- ${line#\$ memctl }"
printf '<%s>' "$@"
`
	out, err := exec.Command(bash, "-c", script).CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	wantLine := `$ memctl propose --category preferences --reason 'saw it in a review' --text 'it'\''s $HOME & "quoted"' ''`
	if len(lines) != 3 || lines[1] != wantLine {
		t.Fatalf("step printed %q, want the line %q", out, wantLine)
	}
	if want := `<propose><--category><preferences><--reason><saw it in a review><--text><it's $HOME & "quoted"><>`; lines[2] != want {
		t.Errorf("pasting the line back gives %s, want %s", lines[2], want)
	}
}

// TestMakeInstall: scripts/install.sh (make install) copies the binary to
// PREFIX/bin, says where, and warns when that directory is not on PATH.
func TestMakeInstall(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("make install needs sh, and there is none")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "memctl-built")
	// A stand-in for the built binary: install.sh runs it for its version.
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho 'memctl v9.9.9'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(dir, "prefix")
	install := func(path string) (string, string) {
		cmd := exec.Command(sh, filepath.Join("..", "..", "scripts", "install.sh"), bin, prefix)
		cmd.Env = append(os.Environ(), "PATH="+path)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("install.sh: %v\n%s%s", err, out.String(), errb.String())
		}
		return out.String(), errb.String()
	}
	sysPath := os.Getenv("PATH")
	out, stderr := install(sysPath)
	target := filepath.Join(prefix, "bin", "memctl")
	if want := "installed " + target + " (memctl v9.9.9)\n"; out != want {
		t.Errorf("stdout = %q, want %q", out, want)
	}
	if !strings.Contains(stderr, "warning: "+filepath.Join(prefix, "bin")+" is not on your PATH") {
		t.Errorf("no warning that the directory is not on PATH:\n%s", stderr)
	}
	if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("installed binary: %v, %v", fi, err)
	}
	// With the directory on PATH, no warning; a second install replaces
	// the file (through a rename, so a running memctl keeps its own).
	_, stderr = install(filepath.Join(prefix, "bin") + string(filepath.ListSeparator) + sysPath)
	if stderr != "" {
		t.Errorf("stderr with the directory on PATH: %q", stderr)
	}
	if entries, _ := os.ReadDir(filepath.Join(prefix, "bin")); len(entries) != 1 {
		t.Errorf("left behind in the install directory: %v", entries)
	}
}
