package gitx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// trialTimeout bounds tryDriver's run of the driver.
const trialTimeout = 10 * time.Second

// DriverArgs are the arguments git passes to memctl's merge driver: the
// base, ours and theirs temporary files and the path being merged.
const DriverArgs = "merge-driver %O %A %B %P"

// DriverCommand is the merge.memctl.driver value that runs the memctl
// binary at program: its path quoted for the sh -c that git runs drivers
// through, then DriverArgs.
func DriverCommand(program string) string {
	return ShellQuote(filepath.ToSlash(program)) + " " + DriverArgs
}

// DriverProgram is the path memctl registers as its merge driver: the
// memctl that PATH finds, as PATH spells it (a stable link such as
// /opt/homebrew/bin/memctl survives upgrades), when that is the running
// binary; otherwise the running binary itself. Always absolute, because git
// runs drivers with its own PATH: an editor or a GUI client started
// outside the shell often does not have the directory memctl lives in.
func DriverProgram() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the memctl binary: %w", err)
	}
	if onPath, err := exec.LookPath("memctl"); err == nil {
		if abs, err := filepath.Abs(onPath); err == nil && sameFile(abs, exe) {
			return abs, nil
		}
	}
	return exe, nil
}

// BuildCachePath reports whether program lives in a directory that go run
// or go test builds into and deletes afterwards ("go-build…" under the
// temporary directory): a driver registered there stops working as soon
// as the command ends.
func BuildCachePath(program string) bool {
	for _, part := range strings.FieldsFunc(program, func(r rune) bool { return r == '/' || r == '\\' }) {
		if strings.HasPrefix(part, "go-build") {
			return true
		}
	}
	return false
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// ShellQuote quotes s for a POSIX shell: as is when it holds only safe
// characters, else in single quotes.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@,=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// EnsureMergeDriver sets merge.memctl.driver in the repository's own git
// config to command unless it is set so already, and reports whether it
// wrote. .gitattributes routes the issues file to the driver.
func EnsureMergeDriver(root, command string) (bool, error) {
	r, err := open(root)
	if err != nil {
		return false, err
	}
	cfg, err := r.Config()
	if err != nil {
		return false, fmt.Errorf("read git config: %w", err)
	}
	sec := cfg.Raw.Section("merge").Subsection("memctl")
	if sec.Option("driver") == command {
		return false, nil
	}
	sec.SetOption("name", "memctl keyed merge of .beads/issues.jsonl")
	sec.SetOption("driver", command)
	if err := r.SetConfig(cfg); err != nil {
		return false, fmt.Errorf("write git config: %w", err)
	}
	return true, nil
}

// RegisterMergeDriver points merge.memctl.driver at this memctl binary by
// absolute path (refreshing an older or bare-name registration), then tries
// the driver as git would run it. It reports whether it wrote the config.
// A binary in go's build cache is not registered: go run deletes it.
func RegisterMergeDriver(ctx context.Context, root string) (bool, error) {
	program, err := DriverProgram()
	if err != nil {
		return false, err
	}
	if BuildCachePath(program) {
		return false, fmt.Errorf("this memctl runs from go's build cache (%s), which go run deletes when it ends; the merge driver was not registered", program)
	}
	wrote, err := EnsureMergeDriver(root, DriverCommand(program))
	if err != nil {
		return false, err
	}
	return wrote, VerifyMergeDriver(ctx, root)
}

// ErrDriverUnset says that no merge.memctl.driver is configured, so git
// merges .beads/issues.jsonl as text.
var ErrDriverUnset = errors.New("merge.memctl.driver is not set")

// DriverError says that the configured merge driver did not run cleanly on
// a trial merge: git would then leave the file unmerged, as ours, without
// conflict markers.
type DriverError struct {
	Command  string
	ExitCode int    // 127: the shell did not find the program
	Output   string // what the command printed, trimmed
}

func (e *DriverError) Error() string {
	what := fmt.Sprintf("exited with status %d", e.ExitCode)
	if e.ExitCode == 127 {
		what = "cannot be found (exit status 127)"
	}
	msg := fmt.Sprintf("git cannot run the merge driver %q: it %s", e.Command, what)
	if e.Output != "" {
		msg += ": " + e.Output
	}
	return msg
}

// configuredDriver returns merge.memctl.driver as git sees it in the
// repository at root, with its includes, worktree config and GIT_CONFIG_*
// variables, when the git binary is there; otherwise as go-git reads the
// repository's own config. It returns ErrDriverUnset when it is not set.
func configuredDriver(ctx context.Context, root string) (string, error) {
	if _, err := exec.LookPath("git"); err == nil {
		out, err := Git(ctx, root, "config", "--get", "merge.memctl.driver")
		var ge *GitError
		var ee *exec.ExitError
		switch {
		case err == nil:
			return strings.TrimSpace(out), nil
		case errors.As(err, &ge) && errors.As(err, &ee) && ee.ExitCode() == 1:
			return "", ErrDriverUnset
		default:
			return "", err
		}
	}
	v, err := localDriver(root)
	if err == nil && v == "" {
		err = ErrDriverUnset
	}
	return v, err
}

// localDriver reads merge.memctl.driver from the repository's own config
// with go-git; "" when it is not set there.
func localDriver(root string) (string, error) {
	r, err := open(root)
	if err != nil {
		return "", err
	}
	cfg, err := r.Config()
	if err != nil {
		return "", fmt.Errorf("read git config: %w", err)
	}
	return cfg.Raw.Section("merge").Subsection("memctl").Option("driver"), nil
}

// tryDriver runs command the way git runs a merge driver (sh -c in the
// working tree's root, %O %A %B replaced by temporary files, %P by the
// quoted path, %L by the marker size) on three copies of an empty issues
// file, and returns a *DriverError unless it exits 0. Without a sh on PATH
// (Windows outside Git Bash) it cannot tell and returns nil.
func tryDriver(ctx context.Context, root, command string) error {
	sh, err := exec.LookPath("sh")
	if err != nil {
		if runtime.GOOS == "windows" {
			return nil
		}
		return fmt.Errorf("try the merge driver: %w", err)
	}
	dir, err := os.MkdirTemp("", "memctl-driver-*")
	if err != nil {
		return fmt.Errorf("try the merge driver: %w", err)
	}
	defer os.RemoveAll(dir)
	files := map[byte]string{}
	for _, c := range []byte("OAB") {
		p := filepath.Join(dir, string(c))
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			return fmt.Errorf("try the merge driver: %w", err)
		}
		files[c] = ShellQuote(filepath.ToSlash(p))
	}
	var line strings.Builder
	for i := 0; i < len(command); i++ {
		if command[i] != '%' || i+1 == len(command) {
			line.WriteByte(command[i])
			continue
		}
		i++
		switch c := command[i]; c {
		case 'O', 'A', 'B':
			line.WriteString(files[c])
		case 'P':
			line.WriteString(ShellQuote(".beads/issues.jsonl"))
		case 'L':
			line.WriteString("7")
		case '%':
			line.WriteByte('%')
		default:
			line.WriteByte('%')
			line.WriteByte(c)
		}
	}
	// A driver that hangs on empty input must not hang init.
	ctx, cancel := context.WithTimeout(ctx, trialTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, sh, "-c", line.String())
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		return &DriverError{Command: command, ExitCode: ee.ExitCode(), Output: strings.TrimSpace(out.String())}
	default:
		return fmt.Errorf("try the merge driver: %w", err)
	}
}

// VerifyMergeDriver reports whether git, in the repository at root, would
// run a working merge driver for .beads/issues.jsonl: ErrDriverUnset, a
// *DriverError, or nil.
func VerifyMergeDriver(ctx context.Context, root string) error {
	command, err := configuredDriver(ctx, root)
	if err != nil {
		return err
	}
	return tryDriver(ctx, root, command)
}

// CheckMergeDriver is VerifyMergeDriver without the trial merge when git's
// merge.memctl.driver is exactly what RegisterMergeDriver writes for this
// memctl: the program is the one running, so the trial (a shell and a
// second memctl, most of memctl doctor's time) could only say what is
// known. Any other command is tried as VerifyMergeDriver tries it.
func CheckMergeDriver(ctx context.Context, root string) error {
	command, err := configuredDriver(ctx, root)
	if err != nil {
		return err
	}
	if program, err := DriverProgram(); err == nil && !BuildCachePath(program) && command == DriverCommand(program) {
		return nil
	}
	return tryDriver(ctx, root, command)
}

// attributesFile is the git attributes file at the root of a working tree.
const attributesFile = ".gitattributes"

// usesDriver reports whether git attributes text routes some path to
// memctl's merge driver (an attribute merge=memctl).
func usesDriver(attrs []byte) bool {
	for line := range bytes.Lines(attrs) {
		fields := strings.Fields(string(line))
		if len(fields) < 2 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		for _, attr := range fields[1:] {
			if attr == "merge=memctl" {
				return true
			}
		}
	}
	return false
}

// DriverMissing reports whether the working tree at root has a
// .gitattributes that routes a file to merge=memctl while git's config
// (as configuredDriver reads it) has no merge.memctl.driver: the state of
// a fresh clone before memctl init. Git then merges that file as text,
// silently: conflicts that the driver would have merged.
func DriverMissing(ctx context.Context, root string) (bool, error) {
	attrs, err := os.ReadFile(filepath.Join(root, attributesFile))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", attributesFile, err)
	}
	if !usesDriver(attrs) {
		return false, nil
	}
	// The repository's own config, where memctl init writes the driver,
	// is read without starting git; only a driver absent there sends the
	// question to git, which also sees the user's and included configs.
	v, err := localDriver(root)
	switch {
	case err == nil && v != "":
		return false, nil
	case err == nil:
		if _, lookErr := exec.LookPath("git"); lookErr != nil {
			return true, nil // without git, the repository's config is all there is
		}
	}
	_, err = configuredDriver(ctx, root)
	if errors.Is(err, ErrDriverUnset) {
		return true, nil
	}
	return false, err
}
