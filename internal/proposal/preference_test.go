package proposal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProposePreference(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"preferences.md": "# Preferences\n\n- Prefer table-driven tests. <!-- id:f-tabled1 -->\n",
		"pitfalls.md":    "# Pitfalls\n\n- Port 7070 is shared. <!-- id:f-pit0001 -->\n",
	}
	t.Run("an add is a pending proposal in preferences with the default reason", func(t *testing.T) {
		t.Parallel()
		b := book(t, files, nil)
		p, err := b.ProposePreference("Squash before merging.", "", "ann", now, rnd())
		if err != nil {
			t.Fatal(err)
		}
		if p.Category != "preferences" || p.Action != ActionAdd || p.Status != StatusPending || p.Reason != PreferenceAddReason {
			t.Errorf("proposal = %+v", p)
		}
	})
	t.Run("an append policy for preferences applies an add at once", func(t *testing.T) {
		t.Parallel()
		b := book(t, files, map[string]string{"preferences": "append"})
		p, err := b.ProposePreference("Squash before merging.", "team call", "ann", now, rnd())
		if err != nil {
			t.Fatal(err)
		}
		src, _ := os.ReadFile(filepath.Join(b.FactsDir, "preferences.md"))
		if p.Status != StatusApproved || !strings.Contains(string(src), "- Squash before merging.") {
			t.Errorf("status %s, file:\n%s", p.Status, src)
		}
	})
	t.Run("a removal names the preference and waits for review", func(t *testing.T) {
		t.Parallel()
		b := book(t, files, map[string]string{"preferences": "append"})
		p, err := b.ProposePreferenceRemoval("f-tabled1", "", "ann", now, rnd())
		if err != nil {
			t.Fatal(err)
		}
		if p.Action != ActionRemove || p.FactID != "f-tabled1" || p.Status != StatusPending || p.Reason != PreferenceRemoveReason {
			t.Errorf("proposal = %+v", p)
		}
	})
	t.Run("a fact of another category is not a preference", func(t *testing.T) {
		t.Parallel()
		var np *NotPreferenceError
		if _, err := book(t, files, nil).ProposePreferenceRemoval("f-pit0001", "", "ann", now, rnd()); !errors.As(err, &np) || np.Category != "pitfalls" {
			t.Errorf("err = %v, want a *NotPreferenceError naming pitfalls", err)
		}
	})
	t.Run("an unknown id is not found", func(t *testing.T) {
		t.Parallel()
		if _, err := book(t, files, nil).ProposePreferenceRemoval("f-nope", "", "ann", now, rnd()); !errors.Is(err, ErrFactNotFound) {
			t.Errorf("err = %v, want ErrFactNotFound", err)
		}
	})
}
