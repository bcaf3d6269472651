package gitx

import (
	"context"
	"errors"
	"os/exec"
	"testing"

	git "github.com/go-git/go-git/v5"
)

func TestShellQuote(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"/usr/local/bin/memctl":  "/usr/local/bin/memctl",
		"/home/a b/bin/memctl":   "'/home/a b/bin/memctl'",
		"/tmp/it's/memctl":       `'/tmp/it'\''s/memctl'`,
		"C:/Program Files/m.exe": "'C:/Program Files/m.exe'",
		"/x/$HOME/`id`/memctl":   "'/x/$HOME/`id`/memctl'",
		"":                       "''",
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
	if got := DriverCommand("/opt/my tools/memctl"); got != "'/opt/my tools/memctl' merge-driver %O %A %B %P" {
		t.Errorf("DriverCommand = %s", got)
	}
}

func TestBuildCachePath(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]bool{
		"/tmp/go-build1234/b001/exe/memctl":                            true,
		`C:\Users\a\AppData\Local\Temp\go-build99\b001\exe\memctl.exe`: true,
		"/usr/local/bin/memctl":                                        false,
		"/home/a/go/bin/memctl":                                        false,
	} {
		if got := BuildCachePath(path); got != want {
			t.Errorf("BuildCachePath(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestTryDriver(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
	t.Parallel()
	root := t.TempDir()
	ctx := context.Background()
	if err := tryDriver(ctx, root, "test -f %O && test -f %A && test -f %B && test %P = .beads/issues.jsonl && test %L = 7"); err != nil {
		t.Errorf("a driver that finds its files: %v", err)
	}
	var de *DriverError
	if err := tryDriver(ctx, root, "memctl-no-such-program merge-driver %O %A %B %P"); !errors.As(err, &de) || de.ExitCode != 127 {
		t.Errorf("a missing program: err = %v, want a DriverError with exit 127", err)
	}
	if err := tryDriver(ctx, root, "echo broken >&2; exit 3"); !errors.As(err, &de) || de.ExitCode != 3 || de.Output != "broken" {
		t.Errorf("a failing driver: err = %#v", err)
	}
}

func TestEnsureAndConfiguredDriver(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if _, err := git.PlainInit(root, false); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := configuredDriver(ctx, root); !errors.Is(err, ErrDriverUnset) {
		t.Fatalf("before: err = %v, want ErrDriverUnset", err)
	}
	cmd := DriverCommand("/usr/bin/memctl")
	for i, want := range []bool{true, false} {
		wrote, err := EnsureMergeDriver(root, cmd)
		if err != nil || wrote != want {
			t.Fatalf("EnsureMergeDriver #%d = %v, %v, want %v", i+1, wrote, err, want)
		}
	}
	if got, err := configuredDriver(ctx, root); err != nil || got != cmd {
		t.Errorf("configuredDriver = %q, %v, want %q", got, err, cmd)
	}
}

func TestUsesDriver(t *testing.T) {
	t.Parallel()
	for attrs, want := range map[string]bool{
		".beads/issues.jsonl merge=memctl\n":                    true,
		"*.png binary\n.beads/issues.jsonl  -text merge=memctl": true,
		"# .beads/issues.jsonl merge=memctl\n":                  false,
		".beads/issues.jsonl merge=union\n":                     false,
		"merge=memctl\n":                                        false,
		"":                                                      false,
	} {
		if got := usesDriver([]byte(attrs)); got != want {
			t.Errorf("usesDriver(%q) = %v, want %v", attrs, got, want)
		}
	}
}
