package release

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/secrets/secretstest"
)

// The action's two steps, run as GitHub's runner runs them (its
// environment, GITHUB_PATH, the inputs as INPUT_*), against a scratch
// repository: the install step puts a verified release of memctl on the
// PATH, the check step prints GitHub annotations for the findings and
// exits as check does.
func TestActionSteps(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the action's steps run on Linux and macOS runners here")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	action, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`run: bash "$GITHUB_ACTION_PATH/scripts/action/install.sh"`, `run: bash "$GITHUB_ACTION_PATH/scripts/action/check.sh"`,
		"INPUT_VERSION: ${{ inputs.version }}", "INPUT_ARGS: ${{ inputs.args }}", "INPUT_BUILD_FROM_SOURCE: ${{ inputs.build-from-source }}",
		"working-directory: ${{ inputs.working-directory }}", "using: composite"} {
		if !bytes.Contains(action, []byte(want)) {
			t.Errorf("action.yml lacks %q", want)
		}
	}

	// A release of the real memctl, built for this machine.
	work := t.TempDir()
	bin := filepath.Join(work, "memctl")
	build := exec.Command(goBin(t), "build", "-o", bin, "./cmd/memctl")
	build.Dir, build.Env = root, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	release := filepath.Join(work, "release")
	archive := fmt.Sprintf("memctl_9.9.9_%s_%s.tar.gz", runtime.GOOS, runtime.GOARCH)
	body, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	writeRelease(t, release, archive, []archived{{"memctl", 0o755, body}}, "")

	runnerOS := map[string]string{"linux": "Linux", "darwin": "macOS"}[runtime.GOOS]
	runnerArch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	home := t.TempDir()
	baseEnv := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + filepath.Join(home, "none"), "GITHUB_ACTIONS=true", "CI=true",
		"RUNNER_OS=" + runnerOS, "RUNNER_ARCH=" + runnerArch, "GITHUB_ACTION_PATH=" + root}
	step := func(dir string, env []string, script string) (string, int) {
		cmd := exec.Command(bash, filepath.Join(root, "scripts", "action", script))
		cmd.Dir, cmd.Env = dir, append(append([]string{}, baseEnv...), env...)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}

	// The install step.
	temp := t.TempDir()
	ghPath, ghOutput := filepath.Join(temp, "path"), filepath.Join(temp, "output")
	installEnv := []string{"RUNNER_TEMP=" + temp, "GITHUB_PATH=" + ghPath, "GITHUB_OUTPUT=" + ghOutput,
		"MEMCTL_RELEASE_DIR=" + release, "INPUT_VERSION=v9.9.9", "INPUT_BUILD_FROM_SOURCE=false"}
	out, code := step(work, installEnv, "install.sh")
	if code != 0 {
		t.Fatalf("install step: exit %d\n%s", code, out)
	}
	added, _ := os.ReadFile(ghPath)
	dir := strings.TrimSpace(string(added))
	if _, err := os.Stat(filepath.Join(dir, "memctl")); err != nil {
		t.Fatalf("GITHUB_PATH names %q, which has no memctl", dir)
	}
	if o, _ := os.ReadFile(ghOutput); !bytes.HasPrefix(o, []byte("version=memctl ")) {
		t.Errorf("GITHUB_OUTPUT: %q", o)
	}

	// A scratch repository with a secret in a facts file.
	repo := t.TempDir()
	withMemctl := []string{"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH")}
	for _, args := range [][]string{{"git", "init", "-q"}, {"memctl", "init"}} {
		c := exec.Command(args[0], args[1:]...)
		c.Dir, c.Env = repo, append(append([]string{}, baseEnv...), withMemctl...)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	out, code = step(repo, withMemctl, "check.sh")
	if code != 0 || strings.Contains(out, "::error") {
		t.Fatalf("clean repository: exit %d\n%s", code, out)
	}
	token := secretstest.Secrets()[0].Text
	f, err := os.OpenFile(filepath.Join(repo, ".ledger", "facts", "pitfalls.md"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "- CI pushes with %s\n", token)
	f.Close()
	facts, _ := os.ReadFile(filepath.Join(repo, ".ledger", "facts", "pitfalls.md"))
	line := bytes.Count(facts, []byte("\n"))
	out, code = step(repo, withMemctl, "check.sh")
	want := fmt.Sprintf("::error file=.ledger/facts/pitfalls.md,line=%d,title=memctl secret::", line)
	if code != 1 || !strings.Contains(out, want) || strings.Contains(out, "ghp_") {
		t.Errorf("a secret: exit %d, want 1 and %q, never the secret:\n%s", code, want, out)
	}
	// Extra arguments reach check: --json instead of annotations.
	out, code = step(repo, append(withMemctl, "INPUT_ARGS=--json"), "check.sh")
	if code != 1 || !strings.Contains(out, `"rule": "secret"`) || strings.Contains(out, "::error") {
		t.Errorf("args --json: exit %d:\n%s", code, out)
	}

	// A download that does not match its checksum: the step fails with an
	// annotation and falls back to nothing.
	data, _ := os.ReadFile(filepath.Join(release, archive))
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(filepath.Join(release, archive), data, 0o644); err != nil {
		t.Fatal(err)
	}
	temp2 := t.TempDir()
	bad := []string{"RUNNER_TEMP=" + temp2, "GITHUB_PATH=" + filepath.Join(temp2, "path"),
		"MEMCTL_RELEASE_DIR=" + release, "INPUT_VERSION=v9.9.9", "INPUT_BUILD_FROM_SOURCE=fallback"}
	out, code = step(work, bad, "install.sh")
	if code == 0 || !strings.Contains(out, "::error title=memctl::checksum mismatch for "+archive) {
		t.Errorf("a corrupted archive: exit %d:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(temp2, "path")); err == nil {
		t.Error("a corrupted archive was put on the PATH")
	}
}
