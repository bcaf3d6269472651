// Package release tests what a release ships: install.sh against a
// release directory, the files every archive takes, and, after `make
// release-snapshot` (MEMCTL_RELEASE_DIST), the archives and packages
// themselves.
package release

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// goBin is the go command on the PATH, which the tests build memctl with.
func goBin(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on the PATH")
	}
	return p
}

// root is the repository's root.
var root = func() string {
	wd, _ := os.Getwd()
	return filepath.Join(wd, "..", "..")
}()

// shipped is what every archive holds besides the binary.
var shipped = []string{"README.md", "LICENSE", "NOTICE", "CHANGELOG.md",
	"completions/memctl.bash", "completions/_memctl", "completions/memctl.fish", "manpages/memctl.1.gz", "manpages/memctl-ready.1.gz"}

// archiveFiles are the patterns of the archives' files: in .goreleaser.yaml.
func archiveFiles(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in := false
	for _, l := range strings.Split(string(data), "\n") {
		switch {
		case strings.TrimSpace(l) == "files:":
			in = true
		case in && strings.HasPrefix(strings.TrimSpace(l), "- "):
			out = append(out, strings.TrimPrefix(strings.TrimSpace(l), "- "))
		case in:
			in = false
		}
	}
	return out
}

// The release extras script makes what .goreleaser.yaml ships, and every
// pattern of the archives' files matches what is in the tree then.
func TestReleaseExtrasMatchTheConfig(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	work := t.TempDir()
	// A copy of the tree (tracked files and new ones git does not ignore),
	// which the script builds memctl from.
	cmd := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	list, err := cmd.Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	for _, rel := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		src := filepath.Join(root, rel)
		fi, err := os.Lstat(src)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(work, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	run := exec.Command("sh", "scripts/release-extras.sh", goBin(t))
	run.Dir = work
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("release-extras.sh: %v\n%s", err, out)
	}
	for _, f := range shipped {
		if _, err := os.Stat(filepath.Join(work, f)); err != nil {
			t.Errorf("%s is not in the tree after release-extras.sh", f)
		}
	}
	patterns := archiveFiles(t)
	for _, want := range []string{"README.md", "LICENSE", "NOTICE", "completions/*", "manpages/*"} {
		if !slices.Contains(patterns, want) {
			t.Errorf(".goreleaser.yaml's archives do not take %s (they take %v)", want, patterns)
		}
	}
	for _, p := range patterns {
		if m, _ := filepath.Glob(filepath.Join(work, p)); len(m) == 0 {
			t.Errorf("the archive pattern %s matches nothing", p)
		}
	}
	man, err := os.ReadFile(filepath.Join(work, "manpages/memctl-ready.1.gz"))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(man))
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(zr)
	if !bytes.HasPrefix(page, []byte(`.TH "MEMCTL-READY"`)) {
		t.Errorf("memctl-ready.1.gz is not its man page: %.60q", page)
	}
}

// What `make release-snapshot` built: each archive has the binary and
// every shipped file, the checksums cover them, and there are deb and rpm
// packages and a Homebrew cask. Skipped unless MEMCTL_RELEASE_DIST names
// goreleaser's dist directory.
func TestReleaseSnapshotContents(t *testing.T) {
	dist := os.Getenv("MEMCTL_RELEASE_DIST")
	if dist == "" {
		t.Skip("MEMCTL_RELEASE_DIST is not set: run make release-snapshot")
	}
	sums := readChecksums(t, filepath.Join(dist, "checksums.txt"))
	targets := 0
	for _, goos := range []string{"linux", "darwin", "windows"} {
		for _, arch := range []string{"amd64", "arm64"} {
			ext := ".tar.gz"
			bin := "memctl"
			if goos == "windows" {
				ext, bin = ".zip", "memctl.exe"
			}
			matches, _ := filepath.Glob(filepath.Join(dist, "memctl_*_"+goos+"_"+arch+ext))
			if len(matches) != 1 {
				t.Errorf("%s/%s: archives %v", goos, arch, matches)
				continue
			}
			targets++
			a := matches[0]
			names := archiveNames(t, a)
			for _, want := range append([]string{bin}, shipped...) {
				if !slices.Contains(names, want) {
					t.Errorf("%s lacks %s", filepath.Base(a), want)
				}
			}
			if sum, ok := sums[filepath.Base(a)]; !ok || sum != fileSHA256(t, a) {
				t.Errorf("%s: checksum %q does not match the file", filepath.Base(a), sum)
			}
		}
	}
	for _, pkg := range []string{"deb", "rpm"} {
		for _, arch := range []string{"amd64", "arm64"} {
			if m, _ := filepath.Glob(filepath.Join(dist, "memctl_*_linux_"+arch+"."+pkg)); len(m) != 1 {
				t.Errorf("no %s package for linux/%s", pkg, arch)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dist, "homebrew", "Casks", "memctl.rb")); err != nil {
		t.Errorf("no Homebrew cask: %v", err)
	}
	if targets != 6 {
		t.Errorf("%d of 6 targets archived", targets)
	}
}

func readChecksums(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		if sum, name, ok := strings.Cut(s.Text(), "  "); ok {
			out[name] = sum
		}
	}
	return out
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// archiveNames lists a .tar.gz's or a .zip's files.
func archiveNames(t *testing.T, path string) []string {
	t.Helper()
	var names []string
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			names = append(names, f.Name)
		}
		return names
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		names = append(names, h.Name)
	}
}

// fakeRelease writes a release directory for this machine: an archive
// with a stand-in memctl (a script printing version) and the shipped
// files, and checksums.txt (with another platform's line first).
func fakeRelease(t *testing.T, version string) (dir, archive string) {
	t.Helper()
	dir = t.TempDir()
	archive = fmt.Sprintf("memctl_%s_%s_%s.tar.gz", version, runtime.GOOS, runtime.GOARCH)
	files := []archived{{"memctl", 0o755, []byte("#!/bin/sh\necho 'memctl v" + version + " (test)'\n")}}
	for _, f := range shipped {
		files = append(files, archived{f, 0o644, []byte("content of " + f + "\n")})
	}
	other := fmt.Sprintf("%s  memctl_%s_plan9_386.tar.gz\n", strings.Repeat("0", 64), version)
	writeRelease(t, dir, archive, files, other)
	return dir, archive
}

// archived is a file of an archive writeRelease makes.
type archived struct {
	name string
	mode int64
	body []byte
}

// writeRelease writes dir/archive, a .tar.gz of files, and checksums.txt
// with the lines of before and then the archive's.
func writeRelease(t *testing.T, dir, archive string, files []archived, before string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, archive), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(buf.Bytes())
	if err := os.WriteFile(filepath.Join(dir, "checksums.txt"), []byte(before+hex.EncodeToString(sum[:])+"  "+archive+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// install.sh installs a release's archive for this machine into a prefix,
// with its man pages and completions, after checking its checksum; a
// corrupted download installs nothing.
func TestInstallScript(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" || runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skip("install.sh installs linux and darwin releases")
	}
	for _, tool := range []string{"sh", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	dir, archive := fakeRelease(t, "9.9.9")
	prefix := filepath.Join(t.TempDir(), "prefix")
	install := func() (string, error) {
		cmd := exec.Command("sh", filepath.Join(root, "install.sh"), "--from", dir, "--prefix", prefix)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := install()
	if err != nil {
		t.Fatalf("install.sh: %v\n%s", err, out)
	}
	if !strings.Contains(out, "installed "+prefix+"/bin/memctl (memctl v9.9.9 (test))") {
		t.Errorf("install.sh said:\n%s", out)
	}
	for _, f := range []string{"bin/memctl", "share/man/man1/memctl.1.gz", "share/man/man1/memctl-ready.1.gz",
		"share/bash-completion/completions/memctl", "share/zsh/site-functions/_memctl", "share/fish/vendor_completions.d/memctl.fish"} {
		if _, err := os.Stat(filepath.Join(prefix, f)); err != nil {
			t.Errorf("not installed: %s", f)
		}
	}
	if fi, err := os.Stat(filepath.Join(prefix, "bin", "memctl")); err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Errorf("bin/memctl is not executable: %v", err)
	}
	// A download that does not match its checksum: refused, nothing
	// replaced.
	if err := os.Remove(filepath.Join(prefix, "bin", "memctl")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, archive))
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(filepath.Join(dir, archive), data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = install()
	if err == nil || !strings.Contains(out, "checksum mismatch for "+archive) {
		t.Errorf("a corrupted archive: err %v, said:\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(prefix, "bin", "memctl")); err == nil {
		t.Error("a corrupted archive was installed")
	}
}
