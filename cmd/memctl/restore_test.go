package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// memctlIn runs the memctl binary in dir and returns its stdout, stderr
// and exit code.
type memctlIn struct {
	t   *testing.T
	bin string
	dir string
	env []string
}

func (m memctlIn) run(args ...string) (stdout, stderr string, code int) {
	m.t.Helper()
	cmd := exec.Command(m.bin, args...)
	cmd.Dir, cmd.Env = m.dir, m.env
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		m.t.Fatalf("memctl %s: %v", strings.Join(args, " "), err)
	}
	return o.String(), e.String(), code
}

// ok runs memctl and fails the test unless it exits 0.
func (m memctlIn) ok(args ...string) string {
	m.t.Helper()
	out, errOut, code := m.run(args...)
	if code != 0 {
		m.t.Fatalf("memctl %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	return out
}

// TestRestoreDrill is the restore drill: a workspace with every kind of
// memctl file (tasks with dependencies, a parent and comments, one closed;
// approved and pending fact proposals; a team preference; runs with an
// error; an approved playbook) is exported, a fresh repository is set up
// with memctl init, and the archive imported there. Every read an agent
// makes (list --all, facts, runs, review --list, pref list, show, and
// recall of several queries, with ids, order, scores and provenance) must
// then print the same bytes in both; what is normalised is the workspace
// directory where it is printed (none of these outputs prints it today:
// the check stays so that a future field with an absolute path does not
// fail the drill for the wrong reason). A changed byte in the archive, a
// conflicting file and a path out of the workspace are refused with
// nothing written; --force overwrites.
func TestRestoreDrill(t *testing.T) {
	bin, err := exec.LookPath("memctl")
	if err != nil {
		t.Fatal(err)
	}
	srcDir, env := binWorkspace(t, bin)
	src := memctlIn{t, bin, srcDir, env}
	a := strings.TrimSpace(src.ok("create", "write the config parser", "-d", "TOML with line numbers in errors", "-p", "1", "-l", "parser", "--silent"))
	b := strings.TrimSpace(src.ok("create", "wire the parser into the CLI", "--deps", "blocked-by:"+a, "--silent"))
	c := strings.TrimSpace(src.ok("create", "document the config keys", "--parent", a, "--silent"))
	src.ok("comment", a, "the decoder gives offsets, not lines")
	src.ok("close", c, "-r", "done in the README")
	src.ok("update", b, "--claim")
	p1 := firstField(src.ok("propose", "--category", "pitfalls", "--text", "The TOML decoder reports byte offsets; convert them to lines.", "--reason", "cost an hour"))
	src.ok("review", p1, "--approve", "--reviewer", "rita")
	src.ok("propose", "--category", "invariants", "--text", "Config parse errors always name the file and line.", "--reason", "pending on purpose")
	pp := firstField(src.ok("pref", "add", "Prefer table-driven tests."))
	src.ok("review", pp, "--approve", "--reviewer", "rita")
	src.ok("run", "record", "--run-id", "r-parse1", "--task", a, "--status", "failure", "--intent", "parse the config",
		"--error", "config.toml:3: expected '=' after key", "--gotcha", "the decoder counts bytes", "--started", "2026-11-20T10:00:00Z")
	src.ok("run", "record", "--run-id", "r-parse2", "--task", a, "--status", "success", "--intent", "parse the config again",
		"--result", "errors name lines", "--started", "2026-11-21T10:00:00Z")
	pb := firstField(src.ok("playbook", "propose", "--error", "config.toml:3: expected '=' after key", "--steps", "Convert the offset to a line", "--evidence", "run:r-parse1"))
	src.ok("review", pb, "--approve", "--reviewer", "rita")
	src.ok("pref", "add", "--personal", "Answer in British English.")

	reads := [][]string{
		{"list", "--all", "--json"},
		{"facts", "--json"},
		{"runs", "--json"},
		{"review", "--list", "--json"},
		{"pref", "list", "--json"},
		{"show", a, b, c, "--json"},
		{"ready", "--json"},
		{"recall", "config parser line numbers", "--json"},
		{"recall", "decoder byte offsets", "--kind", "fact", "--json"},
		{"recall", "--error", "config.toml:3: expected '=' after key", "--json"},
		{"recall", "parse the config", "--kind", "run", "--json"},
	}
	// The recall index is derived and not exported: the restored workspace
	// builds its own from the restored files. Its dense vectors are fitted
	// to the documents indexed when it was built (memctl help recall), and
	// the source's was fitted to the first few and updated since; so the
	// source drops its index too, and both answer from a fit to the same
	// files. Everything else is compared as printed.
	dropIndex(t, srcDir)
	want := map[string]string{}
	for _, r := range reads {
		want[strings.Join(r, " ")] = strings.ReplaceAll(src.ok(r...), srcDir, "$WS")
		if w := want[strings.Join(r, " ")]; !strings.Contains(w, `"id": "`) && !strings.Contains(w, `"run_id": "`) {
			t.Fatalf("memctl %s shows nothing to compare:\n%s", strings.Join(r, " "), want[strings.Join(r, " ")])
		}
	}
	archive := filepath.Join(t.TempDir(), "backup.tar.gz")
	src.ok("export", "-o", archive)

	dstDir, _ := binWorkspace(t, bin)
	dst := memctlIn{t, bin, dstDir, env}
	out := dst.ok("import", archive)
	if strings.Contains(out, "overwritten") {
		t.Errorf("a fresh workspace had a conflicting file:\n%s", out)
	}
	for _, r := range reads {
		k := strings.Join(r, " ")
		if got := strings.ReplaceAll(dst.ok(r...), dstDir, "$WS"); got != want[k] {
			t.Errorf("memctl %s differs after the restore:\n--- source\n%s\n--- restored\n%s", k, want[k], got)
		}
	}
	if _, errOut, code := dst.run("check"); code != 0 {
		t.Errorf("memctl check in the restored workspace: exit %d\n%s", code, errOut)
	}
	if data, err := os.ReadFile(archive); err != nil || bytes.Contains(gunzip(t, data), []byte("British English")) {
		t.Errorf("the archive holds a personal preference (or cannot be read: %v)", err)
	}

	t.Run("a changed byte is refused, nothing written", func(t *testing.T) {
		fresh, _ := binWorkspace(t, bin)
		m := memctlIn{t, bin, fresh, env}
		data, _ := os.ReadFile(archive)
		raw := gunzip(t, data)
		i := bytes.Index(raw, []byte("write the config parser"))
		if i < 0 {
			t.Fatal("the task is not in the archive")
		}
		raw[i] = 'W'
		bad := filepath.Join(t.TempDir(), "tampered.tar.gz")
		writeGzip(t, bad, raw)
		before := tree(t, fresh)
		_, errOut, code := m.run("import", bad)
		if code != 1 || !strings.Contains(errOut, "archive entry .beads/issues.jsonl: its SHA-256 is not the manifest's") {
			t.Errorf("exit %d, stderr:\n%s", code, errOut)
		}
		if after := tree(t, fresh); after != before {
			t.Errorf("a refused import changed the workspace:\n%s\n---\n%s", before, after)
		}
	})

	t.Run("a conflicting file is refused, then overwritten with --force", func(t *testing.T) {
		pit := filepath.Join(dstDir, ".ledger", "facts", "pitfalls.md")
		orig, _ := os.ReadFile(pit)
		if err := os.WriteFile(pit, append(orig, "- Edited here.\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
		before := tree(t, dstDir)
		_, errOut, code := dst.run("import", archive)
		if code != 1 || !strings.Contains(errOut, "1 file(s) in the workspace differ from the archive: .ledger/facts/pitfalls.md") {
			t.Errorf("exit %d, stderr:\n%s", code, errOut)
		}
		if after := tree(t, dstDir); after != before {
			t.Error("a refused import changed the workspace")
		}
		out := dst.ok("import", archive, "--force")
		if !strings.Contains(out, "overwritten\t.ledger/facts/pitfalls.md") {
			t.Errorf("--force:\n%s", out)
		}
		if got, _ := os.ReadFile(pit); !bytes.Equal(got, orig) {
			t.Errorf("--force left %q", got)
		}
	})

	t.Run("a path out of the workspace is refused", func(t *testing.T) {
		outside := t.TempDir()
		fresh := filepath.Join(outside, "ws")
		if err := os.Mkdir(fresh, 0o755); err != nil {
			t.Fatal(err)
		}
		m := memctlIn{t, bin, fresh, env}
		copyTree(t, dstDir, fresh)
		for _, evil := range []string{"../evil.md", ".ledger/../../evil.md", "/tmp/evil.md", ".git/hooks/pre-commit"} {
			bad := filepath.Join(t.TempDir(), "evil.tar.gz")
			writeGzip(t, bad, evilTar(t, evil, "pwned\n"))
			_, errOut, code := m.run("import", bad)
			if code != 1 || !strings.Contains(errOut, "archive entry manifest.json: files[0]") {
				t.Errorf("%s: exit %d, stderr:\n%s", evil, code, errOut)
			}
		}
		if _, err := os.Stat(filepath.Join(outside, "evil.md")); err == nil {
			t.Error("the import wrote outside the workspace")
		}
		if _, err := os.Stat(filepath.Join(fresh, ".git", "hooks", "pre-commit")); err == nil {
			t.Error("the import wrote a git hook")
		}
	})
}

// dropIndex deletes the recall index of the workspace at dir (the
// derived files under .git/memctl; the lock and caches stay).
func dropIndex(t *testing.T, dir string) {
	t.Helper()
	for _, name := range []string{"index.db", "index.db-journal", "index.db-wal", "bm25"} {
		if err := os.RemoveAll(filepath.Join(dir, ".git", "memctl", name)); err != nil {
			t.Fatal(err)
		}
	}
}

func firstField(s string) string {
	f, _, _ := strings.Cut(strings.TrimSpace(s), "\t")
	return f
}

func gunzip(t *testing.T, data []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func writeGzip(t *testing.T, path string, raw []byte) {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(raw)
	zw.Close()
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// evilTar is an archive whose manifest and entry name path, with a
// correct SHA-256: only the path is wrong.
func evilTar(t *testing.T, path, content string) []byte {
	t.Helper()
	sum := sha256.Sum256([]byte(content))
	manifest := fmt.Sprintf(`{"format":"memctl-export","format_version":1,"memctl_version":"x","created_at":"2026-11-22T10:00:00Z","files":[{"path":%q,"kind":"facts","size":%d,"sha256":%q,"mode":"0644"}]}`,
		path, len(content), hex.EncodeToString(sum[:]))
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, e := range [][2]string{{"manifest.json", manifest}, {path, content}} {
		if err := tw.WriteHeader(&tar.Header{Name: e[0], Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(e[1]))}); err != nil {
			t.Fatal(err)
		}
		io.WriteString(tw, e[1])
	}
	tw.Close()
	return b.Bytes()
}

// tree lists every file under dir but the git directory, with a hash of
// its content.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == ".home") {
			return fs.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		sum := sha256.Sum256(data)
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(&b, "%s %x\n", rel, sum[:8])
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// copyTree copies the files under src (a workspace, .git included) to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
