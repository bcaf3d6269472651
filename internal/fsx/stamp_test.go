package fsx

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func TestStamps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.json"), []byte("12345"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Symlink("a.json", filepath.Join(dir, "link.json"))
	when := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	os.Chtimes(filepath.Join(dir, "a.json"), when, when)
	got, err := Stamps(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != "a.json" || got[0].Size != 5 || got[0].ModTime != when.UnixNano() {
		t.Fatalf("got %+v, want a.json only, with its size and time", got)
	}
	// replaced by a rename, same size and time: a new inode tells
	tmp := filepath.Join(dir, "tmp")
	os.WriteFile(tmp, []byte("54321"), 0o644)
	os.Chtimes(tmp, when, when)
	os.Rename(tmp, filepath.Join(dir, "a.json"))
	again, _ := Stamps(dir)
	if runtime.GOOS != "windows" && (len(again) != 1 || again[0] == got[0]) {
		t.Errorf("a file replaced by a rename has the same stamp: %+v", again)
	}
	if _, err := Stamps(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("missing dir: %v", err)
	}
}
