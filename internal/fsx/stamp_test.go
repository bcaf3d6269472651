package fsx

import (
	"os"
	"path/filepath"
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
	if len(got) != 1 || got[0] != (Stamp{Name: "a.json", Size: 5, ModTime: when.UnixNano()}) {
		t.Errorf("got %+v, want a.json only, with its size and time", got)
	}
	if _, err := Stamps(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("missing dir: %v", err)
	}
}
