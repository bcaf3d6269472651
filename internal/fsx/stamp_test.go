package fsx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
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

func TestStampsFollow(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "target.md")
	os.WriteFile(target, []byte("1234567"), 0o644)
	os.Symlink(target, filepath.Join(dir, "link.md"))
	os.Symlink("nowhere", filepath.Join(dir, "dangling.md"))
	os.Symlink(t.TempDir(), filepath.Join(dir, "dir.md"))
	os.WriteFile(filepath.Join(dir, "plain.md"), []byte("1"), 0o644)
	got, err := StampsFollow(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := StatStamp(target)
	want.Name = "link.md"
	if len(got) != 2 || !slices.Contains(got, want) {
		t.Fatalf("got %+v, want plain.md and link.md with its target's stamp %+v", got, want)
	}
	if plain, _ := Stamps(dir); len(plain) != 1 || plain[0].Name != "plain.md" {
		t.Errorf("Stamps follows links: %+v", plain)
	}
	if _, err := StatStamp(filepath.Join(dir, "dangling.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a dangling link: %v, want not found", err)
	}
}

// An edit in place of the same size whose modification time is put back
// (cp -p, rsync -t, touch -r) changes the stamp: the change time moves.
func TestStampChangeTime(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no change time on Windows")
	}
	p := filepath.Join(t.TempDir(), "issues.jsonl")
	os.WriteFile(p, []byte("old title"), 0o644)
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	os.Chtimes(p, when, when)
	before, err := StatStamp(p)
	if err != nil {
		t.Fatal(err)
	}
	// The change time is the file system's clock: wait for it to move
	// past before's, without sleeping a fixed time.
	for after, _ := StatStamp(p); after.ChangeTime == before.ChangeTime; after, _ = StatStamp(p) {
		os.Chtimes(p, when, when)
	}
	os.WriteFile(p, []byte("new title"), 0o644)
	os.Chtimes(p, when, when)
	after, _ := StatStamp(p)
	if after.Size != before.Size || after.ModTime != before.ModTime || after.Ino != before.Ino {
		t.Fatalf("the edit did not keep size, mtime and inode: %+v, %+v", before, after)
	}
	if after == before {
		t.Errorf("an edit in place with its mtime put back has the same stamp: %+v", after)
	}
}

func TestReadSettled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src, derived := filepath.Join(dir, "src"), filepath.Join(dir, "derived")
	os.WriteFile(src, []byte("x"), 0o644)
	os.WriteFile(derived, []byte("summary"), 0o644)
	st, _ := StatStamp(src)
	built := time.Unix(0, st.Newest())
	for _, c := range []struct {
		written time.Time
		ok      bool
	}{
		{built, false},
		{built.Add(RacyWindow - time.Millisecond), false},
		{built.Add(-time.Hour), false},
		{built.Add(RacyWindow), true},
		{built.Add(time.Hour), true},
	} {
		os.Chtimes(derived, c.written, c.written)
		data, ok := ReadSettled(derived, st.Newest())
		if ok != c.ok || ok && string(data) != "summary" {
			t.Errorf("written %v after the source: %q, %v; want ok %v", c.written.Sub(built), data, ok, c.ok)
		}
	}
	if _, ok := ReadSettled(filepath.Join(dir, "missing"), 0); ok {
		t.Error("a missing file is read")
	}
}
