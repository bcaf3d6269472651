package ledger

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/ids"
	"github.com/memctl/memctl/internal/secrets"
)

func TestPersonalPreferences(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "memctl", "preferences.md")

	f, err := LoadPersonal(path)
	if err != nil || len(f.Facts) != 0 {
		t.Fatalf("LoadPersonal(missing) = %v, %v; want no facts", f, err)
	}
	a, err := AddPersonal(path, "  Answer in British English.\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := ids.Fact(PreferencesCategory, "Answer in British English."); a.ID != want || a.Text != "Answer in British English." {
		t.Errorf("added %+v, want id %s and the trimmed text", a, want)
	}
	if _, err := AddPersonal(path, "Prefer table-driven tests."); err != nil {
		t.Fatal(err)
	}
	var dup *DuplicateError
	if _, err := AddPersonal(path, "Answer in  British English."); !errors.As(err, &dup) || dup.ID != a.ID {
		t.Errorf("adding the same text again: %v, want a *DuplicateError for %s", err, a.ID)
	}
	src, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(src), "# Preferences\n") || !strings.Contains(string(src), "- Answer in British English. <!-- id:"+a.ID+" -->\n") {
		t.Errorf("file:\n%s", src)
	}
	f, err = LoadPersonal(path)
	if err != nil || len(f.Facts) != 2 || len(f.Problems) != 0 {
		t.Fatalf("LoadPersonal = %+v, %v; want 2 facts and no problems", f, err)
	}

	r, err := RemovePersonal(path, a.ID)
	if err != nil || r.ID != a.ID {
		t.Fatalf("RemovePersonal = %+v, %v", r, err)
	}
	f, _ = LoadPersonal(path)
	if len(f.Facts) != 1 || f.Facts[0].Text != "Prefer table-driven tests." {
		t.Errorf("after removal: %+v", f.Facts)
	}
	if _, err := RemovePersonal(path, a.ID); !errors.Is(err, ErrFactNotFound) {
		t.Errorf("removing it twice: %v, want ErrFactNotFound", err)
	}
}

func TestAddPersonalRefuses(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "preferences.md")
	var refused *secrets.RefusedError
	if _, err := AddPersonal(path, "deploy with AKIAIOSFODNN7EXAMPLQ as the key"); !errors.As(err, &refused) {
		t.Errorf("a credential: %v, want *secrets.RefusedError", err)
	}
	var text *secrets.TextError
	if _, err := AddPersonal(path, "red \x1b[31mtext"); !errors.As(err, &text) {
		t.Errorf("an escape: %v, want *secrets.TextError", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused preference wrote the file: %v", err)
	}
	if err := os.WriteFile(path, []byte("# Preferences\n\n<<<<<<< HEAD\n- a\n=======\n- b\n>>>>>>> x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var cfl *ConflictError
	if _, err := AddPersonal(path, "c"); !errors.As(err, &cfl) {
		t.Errorf("a file with conflict markers: %v, want *ConflictError", err)
	}
}

// A dotfiles manager (stow, chezmoi's symlink mode) links the file into
// ~/.config; memctl writes the file the link names and keeps the link.
func TestPersonalThroughSymlink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "preferences.md")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte("# Preferences\n\n- Use tabs.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "config", "memctl", "preferences.md")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	a, err := AddPersonal(link, "Keep answers short.")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := RemovePersonal(link, ids.Fact(PreferencesCategory, "Use tabs.")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	src, _ := os.ReadFile(real)
	if want := "# Preferences\n\n- Keep answers short. <!-- id:" + a.ID + " -->\n"; string(src) != want {
		t.Errorf("the linked file is\n%q, want\n%q", src, want)
	}
}
