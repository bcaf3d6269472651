package archive

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/secrets"
	"github.com/memctl/memctl/internal/secrets/secretstest"
)

var created = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

// workspace writes files (path → content) under a new root.
func workspace(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for rel, data := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

var sample = map[string]string{
	".ledger/config.toml":                 "[tasks]\nprefix = \"demo\"\n",
	".ledger/facts/pitfalls.md":           "# Pitfalls\n\n- The fixture DB needs TZ=UTC.\n",
	".ledger/facts/preferences.md":        "# Preferences\n\n- Tabs, not spaces.\n",
	".ledger/proposals/p-1.json":          "{\n  \"id\": \"p-1\"\n}\n",
	".ledger/proposals/.gitkeep":          "",
	".ledger/runs/2026-11/r-1.json":       "{\n  \"run_id\": \"r-1\"\n}\n",
	".ledger/playbooks/0123456789ab.md":   "# Playbook 0123456789ab\n",
	".beads/issues.jsonl":                 `{"id":"demo-1","title":"one","status":"open","priority":2,"issue_type":"task","created_at":"2026-11-20T10:00:00Z","updated_at":"2026-11-20T10:00:00Z"}` + "\n",
	".beads/beads.db":                     "bd's own",
	".ledger/notes.txt":                   "not memctl's",
	".ledger/facts/.pitfalls.md.tmp-1234": "a temporary",
}

func export(t *testing.T, root string) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := Export(&b, root, ExportOptions{MemctlVersion: "test", Created: created}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func opener(data []byte) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
}

// snapshot is every file under root with its content.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		data, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestExportIsDeterministicAndListsMemctlFilesOnly(t *testing.T) {
	root := workspace(t, sample)
	a, b := export(t, root), export(t, root)
	if !bytes.Equal(a, b) {
		t.Fatal("two exports of the same files differ")
	}
	var res *ExportResult
	res, err := Export(io.Discard, root, ExportOptions{Created: created})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{".ledger/notes.txt"}; !slices.Equal(res.Skipped, want) {
		t.Errorf("skipped %v, want %v", res.Skipped, want)
	}
	names := entryNames(t, a)
	want := []string{ManifestName, ".beads/issues.jsonl", ".ledger/config.toml", ".ledger/facts/pitfalls.md", ".ledger/facts/preferences.md",
		".ledger/playbooks/0123456789ab.md", ".ledger/proposals/.gitkeep", ".ledger/proposals/p-1.json", ".ledger/runs/2026-11/r-1.json"}
	if !slices.Equal(names, want) {
		t.Errorf("entries %v, want %v", names, want)
	}
}

func entryNames(t *testing.T, data []byte) []string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var names []string
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		if !h.ModTime.Equal(epoch) || h.Uid != 0 || h.Uname != "" {
			t.Errorf("%s: header not fixed: %v %d %q", h.Name, h.ModTime, h.Uid, h.Uname)
		}
		names = append(names, h.Name)
	}
}

func TestImportRestoresEveryFile(t *testing.T) {
	src := workspace(t, sample)
	dst := t.TempDir()
	res, err := Import(opener(export(t, src)), dst, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Count(ActionWrite) != 8 {
		t.Errorf("written %d, want 8: %+v", res.Count(ActionWrite), res.Files)
	}
	want := snapshot(t, src)
	delete(want, ".beads/beads.db")
	delete(want, ".ledger/notes.txt")
	delete(want, ".ledger/facts/.pitfalls.md.tmp-1234")
	got := snapshot(t, dst)
	if len(got) != len(want) {
		t.Errorf("restored %d files, want %d", len(got), len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	// Again: everything is unchanged, nothing is a conflict.
	res, err = Import(opener(export(t, src)), dst, ImportOptions{})
	if err != nil || res.Count(ActionUnchanged) != 8 {
		t.Errorf("second import: %v, %+v", err, res)
	}
}

func TestImportConflicts(t *testing.T) {
	src := workspace(t, sample)
	data := export(t, src)
	dst := workspace(t, map[string]string{
		".ledger/facts/pitfalls.md":    "# Pitfalls\n\n- Something else.\n",
		".ledger/facts/preferences.md": "# Preferences\n\n- Spaces.\n",
		".ledger/config.toml":          "init's",
		".beads/issues.jsonl":          "",
	})
	before := snapshot(t, dst)
	starter := map[string][]byte{".ledger/config.toml": []byte("init's"), ".beads/issues.jsonl": nil}
	_, err := Import(opener(data), dst, ImportOptions{Starter: starter})
	var ce *ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("err %v, want a *ConflictError", err)
	}
	if want := []string{".ledger/facts/pitfalls.md", ".ledger/facts/preferences.md"}; !slices.Equal(ce.Paths, want) {
		t.Errorf("conflicts %v, want every differing file %v", ce.Paths, want)
	}
	if !mapsEqual(snapshot(t, dst), before) {
		t.Error("a refused import changed the workspace")
	}
	res, err := Import(opener(data), dst, ImportOptions{Starter: starter, DryRun: true, Force: true})
	if err != nil || res.Count(ActionOverwrite) != 2 || res.Count(ActionReplace) != 2 || !mapsEqual(snapshot(t, dst), before) {
		t.Errorf("dry run: %v %+v, or it wrote", err, res)
	}
	res, err = Import(opener(data), dst, ImportOptions{Starter: starter, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Count(ActionOverwrite) != 2 || res.Count(ActionReplace) != 2 {
		t.Errorf("forced: %+v", res.Files)
	}
	if got := snapshot(t, dst)[".ledger/facts/pitfalls.md"]; got != sample[".ledger/facts/pitfalls.md"] {
		t.Errorf("forced import left %q", got)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if bv, ok := b[k]; !ok || bv != v {
			return false
		}
	}
	return true
}

// entry is one tar entry of a crafted archive.
type entry struct {
	name string
	typ  byte
	data string
	link string
	size int64 // header size when not len(data)
}

// craft builds an archive whose manifest lists files (path → content),
// with the given tar entries after it.
func craft(t *testing.T, files map[string]string, entries []entry) []byte {
	t.Helper()
	m := &Manifest{FormatVersion: FormatVersion, MemctlVersion: "test", Created: created}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		sum := sha256.Sum256([]byte(files[p]))
		m.Files = append(m.Files, Entry{Path: p, Kind: Classify(p), Size: int64(len(files[p])), SHA256: hex.EncodeToString(sum[:]), Mode: 0o644})
	}
	return craftRaw(t, encodeManifest(m), entries)
}

func craftRaw(t *testing.T, manifest []byte, entries []entry) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	all := append([]entry{{name: ManifestName, typ: tar.TypeReg, data: string(manifest)}}, entries...)
	for _, e := range all {
		size := e.size
		if size == 0 && e.typ == tar.TypeReg {
			size = int64(len(e.data))
		}
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Size: size, Mode: 0o644, Linkname: e.link, ModTime: epoch}
		if e.typ != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if e.typ == tar.TypeReg {
			if _, err := io.WriteString(tw, e.data); err != nil && !errors.Is(err, tar.ErrWriteTooLong) {
				t.Fatal(err)
			}
		}
	}
	tw.Close()
	zw.Close()
	return b.Bytes()
}

func TestImportRefusesUnsafeArchives(t *testing.T) {
	fact := ".ledger/facts/pitfalls.md"
	text := "# Pitfalls\n\n- A fact.\n"
	reg := func(name, data string) entry { return entry{name: name, typ: tar.TypeReg, data: data} }
	good := export(t, workspace(t, map[string]string{fact: text}))
	tampered := craft(t, map[string]string{fact: text}, []entry{reg(fact, strings.Replace(text, "A", "B", 1))})
	cases := []struct {
		name string
		data []byte
		lim  Limits
		want string
	}{
		{"a changed byte", tampered, Limits{}, "SHA-256 is not the manifest's"},
		{"a gzip byte flipped", flip(good, len(good)/2), Limits{}, ""},
		{"an absolute path", craft(t, map[string]string{"/etc/passwd": "x"}, []entry{reg("/etc/passwd", "x")}), Limits{}, "absolute path"},
		{"a path with ..", craft(t, map[string]string{".ledger/facts/../../evil.md": "x"}, nil), Limits{}, "not a clean path"},
		{"a path outside memctl's directories", craft(t, map[string]string{".git/hooks/pre-commit": "x"}, nil), Limits{}, "not a memctl file"},
		{"an entry not in the manifest", craft(t, map[string]string{fact: text}, []entry{reg(fact, text), reg(".ledger/facts/extra.md", "x")}), Limits{}, "not in the manifest"},
		{"an entry twice", craft(t, map[string]string{fact: text}, []entry{reg(fact, text), reg(fact, text)}), Limits{}, "in the archive twice"},
		{"a second manifest", craft(t, map[string]string{fact: text}, []entry{reg(fact, text), reg(ManifestName, "{}")}), Limits{}, "in the archive twice"},
		{"a symbolic link", craft(t, map[string]string{fact: text}, []entry{{name: fact, typ: tar.TypeSymlink, link: "/etc/passwd"}}), Limits{}, "symbolic link"},
		{"a hard link", craft(t, map[string]string{fact: text}, []entry{{name: fact, typ: tar.TypeLink, link: ".ledger/config.toml"}}), Limits{}, "hard link"},
		{"a device", craft(t, map[string]string{fact: text}, []entry{{name: fact, typ: tar.TypeChar}}), Limits{}, "device"},
		{"a missing entry", craft(t, map[string]string{fact: text}, nil), Limits{}, "not in the archive"},
		{"a size unlike the manifest's", craft(t, map[string]string{fact: text}, []entry{reg(fact, text+"more")}), Limits{}, "the manifest says"},
		{"an entry over the limit", craft(t, map[string]string{fact: text}, []entry{reg(fact, text)}), Limits{MaxFileSize: 8, MaxTotalSize: 1 << 20, MaxFiles: 10, MaxManifest: 1 << 20}, "outside 0 to 8 bytes"},
		{"a bomb: the header's size over the limit", craftRaw(t, []byte(strings.Repeat(" ", 64<<10)), nil), Limits{MaxFileSize: 8, MaxTotalSize: 8, MaxFiles: 10, MaxManifest: 4}, "65536 bytes, over the 4 an entry may have"},
		{"the files over the total", craft(t, map[string]string{fact: text, ".ledger/facts/b.md": text}, nil), Limits{MaxFileSize: 1 << 20, MaxTotalSize: int64(len(text)) + 1, MaxFiles: 10, MaxManifest: 1 << 20}, "add up to more than"},
		{"no manifest first", craftRaw(t, nil, nil)[:0], Limits{}, "not a gzip"},
		{"a newer format", craftRaw(t, []byte(`{"format":"memctl-export","format_version":2,"created_at":"2026-11-23T10:00:00Z","files":[]}`), nil), Limits{}, "newer than this memctl reads"},
		{"another format", craftRaw(t, []byte(`{"format":"zip","format_version":1}`), nil), Limits{}, "not a memctl export"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dst := workspace(t, map[string]string{".ledger/config.toml": "mine"})
			before := snapshot(t, dst)
			_, err := Import(opener(c.data), dst, ImportOptions{Limits: c.lim})
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("err %v, want a *FormatError", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %q, want it to say %q", err, c.want)
			}
			if !mapsEqual(snapshot(t, dst), before) {
				t.Error("a refused archive changed the workspace")
			}
		})
	}
}

func flip(data []byte, i int) []byte {
	out := slices.Clone(data)
	out[i] ^= 0x40
	return out
}

func TestImportRefusesWhatTheGateRefuses(t *testing.T) {
	secret := secretstest.Secrets()[0]
	cases := map[string]map[string]string{
		"a secret in a fact":                 {".ledger/facts/pitfalls.md": "- " + secret.Text + "\n"},
		"a secret in an issue":               {".beads/issues.jsonl": `{"id":"d-1","title":"t","description":"` + secret.Text + `","status":"open","priority":2,"created_at":"2026-11-20T10:00:00Z","updated_at":"2026-11-20T10:00:00Z"}` + "\n"},
		"an escape in an issue":              {".beads/issues.jsonl": `{"id":"d-1","title":"t\u001b[2J","status":"open","priority":2,"created_at":"2026-11-20T10:00:00Z","updated_at":"2026-11-20T10:00:00Z"}` + "\n"},
		"a bidi override in a proposal file": {".ledger/proposals/p-1.json": "{\n  \"content\": \"a\\u202eb\"\n}\n"},
		"an escape in a fact":                {".ledger/facts/pitfalls.md": "- red \x1b[31m\n"},
	}
	for name, files := range cases {
		t.Run(name, func(t *testing.T) {
			var entries []entry
			for p, d := range files {
				entries = append(entries, entry{name: p, typ: tar.TypeReg, data: d})
			}
			dst := t.TempDir()
			_, err := Import(opener(craft(t, files, entries)), dst, ImportOptions{})
			var ge *GateError
			if !errors.As(err, &ge) {
				t.Fatalf("err %v, want a *GateError", err)
			}
			if strings.Contains(err.Error(), secret.Text) {
				t.Error("the error shows the secret")
			}
			if len(snapshot(t, dst)) != 0 {
				t.Error("a refused archive wrote files")
			}
		})
	}
}

func TestImportRefusesBrokenContent(t *testing.T) {
	files := map[string]string{".beads/issues.jsonl": `{"id":"d-1"}` + "\n"}
	_, err := Import(opener(craft(t, files, []entry{{name: ".beads/issues.jsonl", typ: tar.TypeReg, data: files[".beads/issues.jsonl"]}})), t.TempDir(), ImportOptions{})
	var ce *ContentError
	if !errors.As(err, &ce) || ce.Line != 1 || ce.Field != "title" {
		t.Fatalf("err %v, want a *ContentError naming line 1, field title", err)
	}
}

func TestImportDoesNotWriteThroughLinks(t *testing.T) {
	src := workspace(t, sample)
	dst := t.TempDir()
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dst, ".ledger"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dst, ".ledger", "proposals")); err != nil {
		t.Fatal(err)
	}
	_, err := Import(opener(export(t, src)), dst, ImportOptions{Force: true})
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("err %v, want a refusal naming the link", err)
	}
	if len(snapshot(t, outside)) != 0 {
		t.Error("the import wrote through the link")
	}
}

func TestClassify(t *testing.T) {
	for rel, want := range map[string]string{
		".ledger/config.toml":             KindConfig,
		".ledger/facts/a.md":              KindFacts,
		".ledger/facts/sub/a.md":          "",
		".ledger/proposals/p.json":        KindProposal,
		".ledger/runs/2026-11/r.json":     KindRun,
		".ledger/runs/r.json":             "",
		".ledger/runs/.x/r.json":          "",
		".ledger/playbooks/abc.md":        KindPlaybook,
		".ledger/runs/.gitkeep":           KindKeep,
		".beads/issues.jsonl":             KindIssues,
		".beads/config.yaml":              "",
		".ledger/facts/.a.md.tmp-1":       "",
		"AGENTS.md":                       "",
		".git/memctl/lock":                "",
		".ledger/proposals/p.json.tmp-12": "",
	} {
		if got := Classify(rel); got != want {
			t.Errorf("Classify(%q) = %q, want %q", rel, got, want)
		}
	}
}

func TestMayActFindsEveryWayToWriteAnActingCharacter(t *testing.T) {
	for text, want := range map[string]bool{
		`{"t":"a \u003cb\u003e \u0026 ü 日本"}`: false,
		`{"t":"tab\tand\nnewline"}`:           false,
		`{"t":"a\\u001b is text"}`:            false, // an escaped backslash, then "u001b"
		`{"t":"\u001b[2J"}`:                   true,
		`{"t":"\u001B[2J"}`:                   true,
		`{"t":"x\u202ey"}`:                    true,
		"{\"t\":\"x\u202ey\"}":                true, // written as it is
		"{\"t\":\"x\x1by\"}":                  true,
		`{"t":"line\r"}`:                      true,
	} {
		if got := mayAct([]byte(text)); got != want {
			t.Errorf("mayAct(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestCollectSkipsLinksAndImportSanitisesModes(t *testing.T) {
	root := workspace(t, map[string]string{".ledger/facts/pitfalls.md": "- A fact.\n"})
	if err := os.Symlink("/etc/passwd", filepath.Join(root, ".ledger", "facts", "link.md")); err != nil {
		t.Fatal(err)
	}
	files, skipped, err := Collect(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || !slices.Equal(skipped, []string{".ledger/facts/link.md"}) {
		t.Errorf("files %+v, skipped %v: a link must be skipped, not followed", files, skipped)
	}

	data := craftModes(t, ".ledger/facts/a.md", "- A.\n", "0000")
	dst := t.TempDir()
	if _, err := Import(opener(data), dst, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dst, ".ledger", "facts", "a.md"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v (%v), want 0600: the owner keeps read and write", fi.Mode(), err)
	}
}

func craftModes(t *testing.T, path, content, mode string) []byte {
	t.Helper()
	sum := sha256.Sum256([]byte(content))
	manifest := `{"format":"memctl-export","format_version":1,"memctl_version":"x","created_at":"2026-11-22T10:00:00Z","files":[{"path":"` + path +
		`","kind":"facts","size":` + strconv.Itoa(len(content)) + `,"sha256":"` + hex.EncodeToString(sum[:]) + `","mode":"` + mode + `"}]}`
	return craftRaw(t, []byte(manifest), []entry{{name: path, typ: tar.TypeReg, data: content}})
}

// A secret the workspace's allow-list lets through is restored; the
// archive's own config.toml's allow-list is not trusted (a crafted archive
// could allow what it carries), and the refusal says it has one. Each
// refusal names the fingerprint to allow-list.
func TestImportHonoursTheAllowList(t *testing.T) {
	secret := secretstest.Secrets()[0]
	found, err := secrets.Scan(secret.Text)
	if err != nil || len(found) != 1 {
		t.Fatalf("the test needs one finding: %v, %v", found, err)
	}
	fp := found[0].Fingerprint
	fact := map[string]string{".ledger/facts/pitfalls.md": "- " + secret.Text + "\n"}
	archiveOf := func(files map[string]string) []byte {
		var entries []entry
		for p, d := range files {
			entries = append(entries, entry{name: p, typ: tar.TypeReg, data: d})
		}
		return craft(t, files, entries)
	}

	_, err = Import(opener(archiveOf(fact)), t.TempDir(), ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "fingerprint "+fp) {
		t.Fatalf("err %v, want a refusal naming fingerprint %s", err, fp)
	}
	allow := secrets.Policy{Allow: []secrets.Allow{{Fingerprint: fp}}}
	if _, err := Import(opener(archiveOf(fact)), t.TempDir(), ImportOptions{Secrets: allow}); err != nil {
		t.Errorf("with the workspace's allow-list: %v", err)
	}
	other := secrets.Policy{Allow: []secrets.Allow{{Fingerprint: secret.Rule + ":000000000000"}}}
	if _, err := Import(opener(archiveOf(fact)), t.TempDir(), ImportOptions{Secrets: other}); err == nil {
		t.Error("another fingerprint let the secret through")
	}

	withConfig := map[string]string{
		".ledger/facts/pitfalls.md": fact[".ledger/facts/pitfalls.md"],
		".ledger/config.toml":       string(config.Starter("d")[".ledger/config.toml"]) + "\n[[secrets.allow]]\nfingerprint = \"" + fp + "\"\nreason = \"a test key\"\n",
	}
	dst := t.TempDir()
	_, err = Import(opener(archiveOf(withConfig)), dst, ImportOptions{})
	var ge *GateError
	if !errors.As(err, &ge) || ge.ArchiveAllows != 1 || !strings.Contains(err.Error(), "allow-lists 1 of them") {
		t.Fatalf("err %v: an archive's own allow-list must not let its secrets in, and the refusal says it holds one", err)
	}
	if len(snapshot(t, dst)) != 0 {
		t.Error("a refused archive wrote files")
	}
	if _, err := Import(opener(archiveOf(withConfig)), dst, ImportOptions{Secrets: allow}); err != nil {
		t.Fatalf("with the entry copied into the workspace: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dst, ".ledger/facts/pitfalls.md")); string(got) != fact[".ledger/facts/pitfalls.md"] {
		t.Errorf("restored %q", got)
	}

	broken := map[string]string{".ledger/config.toml": "[secrets]\nmode = \"shred\"\n"}
	_, err = Import(opener(archiveOf(broken)), t.TempDir(), ImportOptions{})
	var ce *ContentError
	if !errors.As(err, &ce) || ce.Line != 2 || ce.Field != "secrets.mode" {
		t.Fatalf("err %v, want a *ContentError naming line 2, field secrets.mode", err)
	}
}
