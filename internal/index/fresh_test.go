package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckComparesTheIndexWithTheFiles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	check := func() Freshness {
		t.Helper()
		fr, err := Check(context.Background(), f.dir, f.root, []Source{noteSource{}})
		if err != nil {
			t.Fatal(err)
		}
		return fr
	}
	if fr := check(); fr.Present {
		t.Fatalf("before any update: %+v, want absent", fr)
	}
	if _, err := os.Stat(f.dir); err == nil {
		t.Fatal("Check made the index directory; it must not write")
	}
	f.write("a.txt", notesA)
	f.write("b.txt", "x|category=pitfalls|Another note.")
	x := f.open(nil)
	f.update(x)
	if fr := check(); !fr.Present || fr.Changed != 0 || fr.Rebuild != "" {
		t.Fatalf("after an update: %+v, want present and fresh", fr)
	}
	// Check reads while the index is open: it takes no lock.
	f.write("a.txt", notesA+"\nnew|category=pitfalls|A new note.")
	os.Remove(filepath.Join(f.root, "notes", "b.txt"))
	f.write("c.txt", "c|category=pitfalls|A third note.")
	if fr := check(); fr.Changed != 3 {
		t.Fatalf("after a change, a removal and an addition: %+v, want 3 changed", fr)
	}
	f.update(x)
	if fr := check(); fr.Changed != 0 {
		t.Fatalf("after the next update: %+v, want fresh", fr)
	}
	x.setMeta("dirty", "1")
	if fr := check(); !strings.Contains(fr.Rebuild, "interrupted") {
		t.Fatalf("an interrupted update: %+v, want a rebuild", fr)
	}
}

func TestVerifyFindsDamage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	verify := func() Health {
		t.Helper()
		h, err := Verify(context.Background(), f.dir)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	if h := verify(); h.Present || h.Damage != "" {
		t.Fatalf("before any update: %+v, want absent", h)
	}
	f.write("a.txt", notesA)
	x := f.open(nil)
	f.update(x)
	x.Close()
	h := verify()
	if !h.Present || h.Damage != "" || h.Docs == 0 {
		t.Fatalf("after an update: %+v, want present, sound, with documents", h)
	}
	segs, _ := filepath.Glob(filepath.Join(f.dir, bleveName, "store", "*.zap"))
	if len(segs) == 0 {
		t.Fatal("no word index segment to damage")
	}
	data, err := os.ReadFile(segs[0])
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(segs[0], data, 0o644); err != nil {
		t.Fatal(err)
	}
	if h := verify(); !strings.Contains(h.Damage, "checksum") {
		t.Fatalf("a flipped byte in a segment: %+v, want damage named", h)
	}
	if err := os.WriteFile(filepath.Join(f.dir, dbName), []byte("not a database, not at all, but long enough to be read"), 0o644); err != nil {
		t.Fatal(err)
	}
	if h := verify(); h.Damage == "" {
		t.Fatalf("a database that is not one: %+v, want damage", h)
	}
}
