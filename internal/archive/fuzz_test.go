package archive

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzImport feeds Import any tar stream (gzipped here, so that the
// fuzzer works on the tar, not on gzip's checksum). Whatever the bytes,
// Import must not panic, must write nothing when it fails, and when it
// succeeds must have written only memctl files under the workspace, each
// holding what the manifest's SHA-256 says (checked again on disk).
func FuzzImport(f *testing.F) {
	root := workspace(f, map[string]string{
		".ledger/facts/pitfalls.md": "# Pitfalls\n\n- A fact.\n",
		".beads/issues.jsonl":       `{"id":"d-1","title":"t","status":"open","priority":2,"created_at":"2026-11-20T10:00:00Z","updated_at":"2026-11-20T10:00:00Z"}` + "\n",
		".ledger/proposals/p.json":  "{\"id\":\"p\"}\n",
	})
	var b bytes.Buffer
	if _, err := Export(&b, root, ExportOptions{Created: created}); err != nil {
		f.Fatal(err)
	}
	zr, err := gzip.NewReader(&b)
	if err != nil {
		f.Fatal(err)
	}
	raw, _ := io.ReadAll(zr)
	f.Add(raw)
	f.Add(raw[:len(raw)/2])
	f.Add(bytes.Replace(raw, []byte("A fact."), []byte("B fact."), 1))
	f.Add(bytes.Replace(raw, []byte(".ledger/facts/pitfalls.md"), []byte("../../../../tmp/pitfall.md"), -1))
	f.Fuzz(func(t *testing.T, tarBytes []byte) {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(tarBytes)
		zw.Close()
		parent := t.TempDir()
		dst := filepath.Join(parent, "ws")
		if err := os.Mkdir(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		lim := Limits{MaxFileSize: 1 << 20, MaxTotalSize: 4 << 20, MaxFiles: 100, MaxManifest: 1 << 20}
		res, err := Import(opener(z.Bytes()), dst, ImportOptions{Limits: lim})
		if entries, _ := os.ReadDir(parent); len(entries) != 1 {
			t.Fatalf("the import wrote beside the workspace: %v", entries)
		}
		got := snapshot(t, dst)
		if err != nil {
			if len(got) != 0 {
				t.Fatalf("a failed import (%v) wrote %v", err, got)
			}
			return
		}
		for p := range got {
			if Classify(p) == "" {
				t.Errorf("wrote %s, not a memctl file", p)
			}
		}
		for _, e := range res.Manifest.Files {
			data, ok := got[e.Path]
			if !ok {
				t.Errorf("%s is in the manifest but was not written", e.Path)
				continue
			}
			if int64(len(data)) != e.Size {
				t.Errorf("%s: %d bytes on disk, the manifest says %d", e.Path, len(data), e.Size)
			}
		}
	})
}
