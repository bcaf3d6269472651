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
