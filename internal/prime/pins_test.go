package prime

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/fsx"
)

func TestPinsPath(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for _, actor := range []string{"Test User", "test user", "../../etc/passwd", "", "日本", strings.Repeat("a", 200), "a/b", "a_b"} {
		p := PinsPath("/pins", actor)
		if filepath.Dir(p) != "/pins" || !strings.HasSuffix(p, ".json") || len(filepath.Base(p)) > 64 {
			t.Errorf("%q: %s is not a short file in the directory", actor, p)
		}
		if other, ok := seen[p]; ok {
			t.Errorf("%q and %q share %s", actor, other, p)
		}
		seen[p] = actor
	}
	if got := filepath.Base(PinsPath("/pins", "Test User")); !strings.HasPrefix(got, "Test_User-") {
		t.Errorf("the readable part: %s", got)
	}
}

func TestPinsRoundTrip(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "pins")
	if pins, err := LoadPins(dir, "ann"); err != nil || pins != nil {
		t.Fatalf("no file: %v, %v", pins, err)
	}
	all, added := AddPins(nil, []Pin{{ID: "a", Kind: KindFact, PinnedAt: now0}, {ID: "b", Kind: KindTask, PinnedAt: now0}})
	all, again := AddPins(all, []Pin{{ID: "a", Kind: KindFact}})
	if len(added) != 2 || len(again) != 0 || len(all) != 2 {
		t.Fatalf("added %v, again %v", added, again)
	}
	if err := SavePins(dir, "ann", all); err != nil {
		t.Fatal(err)
	}
	got, err := LoadPins(dir, "ann")
	if err != nil || !slices.Equal(got, all) {
		t.Fatalf("loaded %v, %v", got, err)
	}
	if other, _ := LoadPins(dir, "bob"); other != nil {
		t.Errorf("bob sees ann's pins: %v", other)
	}
	kept, missing := RemovePins(got, []string{"b", "zz"})
	if len(kept) != 1 || kept[0].ID != "a" || !slices.Equal(missing, []string{"zz"}) {
		t.Errorf("kept %v, missing %v", kept, missing)
	}
}

func TestPlaybookID(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		".ledger/playbooks/0123456789ab.md": "0123456789ab",
		"0123456789ab":                      "0123456789ab",
		"notes.md":                          "notes.md",
	} {
		if got := PlaybookID(in); got != want {
			t.Errorf("PlaybookID(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestUpdatePinsLock: UpdatePins changes the pins under their own lock,
// which every worktree shares: none of the changes made at once is lost,
// and a held lock stops it before it reads.
func TestUpdatePinsLock(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "pins")
	acquire := func(ctx context.Context, path string) (*fsx.Lock, error) { return fsx.Acquire(ctx, path, time.Minute) }
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			_, err := UpdatePins(context.Background(), dir, "ann", acquire, func(have []Pin) []Pin {
				all, _ := AddPins(have, []Pin{{ID: fmt.Sprintf("f-%d", i), Kind: KindFact, PinnedAt: now0}})
				return all
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got, err := LoadPins(dir, "ann"); err != nil || len(got) != 8 {
		t.Fatalf("after 8 pins at once: %v, %v", got, err)
	}

	held, err := fsx.Acquire(context.Background(), PinsLockPath(dir, "ann"), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	noWait := func(ctx context.Context, path string) (*fsx.Lock, error) { return fsx.Acquire(ctx, path, 0) }
	_, err = UpdatePins(context.Background(), dir, "ann", noWait, func(have []Pin) []Pin {
		t.Error("update ran while another process held the pins' lock")
		return nil
	})
	if !errors.Is(err, fsx.ErrLocked) {
		t.Errorf("with the lock held: %v, want fsx.ErrLocked", err)
	}
	if got, _ := LoadPins(dir, "ann"); len(got) != 8 {
		t.Errorf("the pins changed under another's lock: %v", got)
	}
	// bob's pins have a lock of their own.
	if _, err := UpdatePins(context.Background(), dir, "bob", noWait, func([]Pin) []Pin { return []Pin{{ID: "b", Kind: KindTask}} }); err != nil {
		t.Errorf("bob's pins while ann's are locked: %v", err)
	}
}
