package recall

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/index"
)

func TestPersonalSource(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	path := filepath.Join(home, ".config", "memctl", "preferences.md")
	s := PersonalSource{Path: path, Home: home}
	if files, err := s.Files(""); err != nil || len(files) != 0 {
		t.Errorf("no file yet: %v, %v; want none listed", files, err)
	}
	if err := os.MkdirAll(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if files, _ := s.Files(""); len(files) != 0 {
		t.Errorf("a directory in its place: %v; want none listed", files)
	}
	os.Remove(path)
	if err := os.WriteFile(path, []byte("# Preferences\n\n- Tabs, not spaces.\n- Answer in British English.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	files, err := s.Files("")
	if err != nil || !slices.Equal(files, []string{"~/.config/memctl/preferences.md"}) {
		t.Fatalf("files = %v, %v; want the file under ~", files, err)
	}
	if got := s.Locate(files[0]); got != path {
		t.Errorf("Locate = %q, want %q", got, path)
	}
	if files, _ := (PersonalSource{Path: path, Home: "/elsewhere"}).Files(""); !slices.Equal(files, []string{filepath.ToSlash(path)}) {
		t.Errorf("outside the home directory: %v, want the whole path", files)
	}
	data, _ := os.ReadFile(path)
	docs, err := s.Docs(files[0], data)
	if err != nil || len(docs) != 2 {
		t.Fatalf("docs = %+v, %v", docs, err)
	}
	d := docs[1]
	if d.Kind != index.KindPersonal || d.ID != "personal:"+d.Ref || d.Ref == "" || d.Body != "Answer in British English." ||
		d.File != "~/.config/memctl/preferences.md" || d.Line != 4 || d.Category != "preferences" || d.Approved || !d.Created.IsZero() {
		t.Errorf("document = %+v: want kind personal, its fact id, the ~ file and line, unapproved, no date", d)
	}
	if _, err := s.Docs(files[0], []byte("- a\n<<<<<<< HEAD\n- b\n=======\n- c\n>>>>>>> x\n")); err == nil {
		t.Error("conflict markers: no error (the index would drop what it had)")
	}
	if files, _ := (PersonalSource{}).Files(""); len(files) != 0 {
		t.Errorf("no path: %v", files)
	}
}

func TestPriorOfRuns(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	run := func(age time.Duration) index.Meta {
		return index.Meta{Kind: index.KindRun, Created: now.Add(-age)}
	}
	opts := Options{Now: now}
	opts.defaults()
	prior := func(m index.Meta, o Options) float64 { a, g := priors(m, o); return a * g }
	if p := prior(run(30*24*time.Hour), opts); p < 0.4999 || p > 0.5001 {
		t.Errorf("a run one half-life old: %g, want 0.5", p)
	}
	opts.HalfLife = NoDecay
	if p := prior(run(10*365*24*time.Hour), opts); p != 1 {
		t.Errorf("NoDecay: %g, want 1", p)
	}
	if p := prior(index.Meta{Kind: index.KindPersonal}, opts); p != 1 {
		t.Errorf("a personal preference: %g, want 1 (not approved)", p)
	}
}
