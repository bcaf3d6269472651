package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestEnsureIgnore(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, before, after string
		created, changed    bool
	}{
		{name: "a missing file is created", after: ignoreComment + "\n" + IgnoreLine + "\n", created: true, changed: true},
		{name: "bd's file gets the line, its own kept", before: "dolt/\n*.db", after: "dolt/\n*.db\n" + ignoreComment + "\n" + IgnoreLine + "\n", changed: true},
		{name: "a file with the line is left alone", before: "*.db\n  " + IgnoreLine + "  \n", after: "*.db\n  " + IgnoreLine + "  \n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			rel := BeadsDir + "/.gitignore"
			path := filepath.Join(root, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if c.before != "" {
				if err := os.WriteFile(path, []byte(c.before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			created, changed, err := EnsureIgnore(root, rel)
			if err != nil || created != c.created || changed != c.changed {
				t.Fatalf("EnsureIgnore = %v, %v, %v; want %v, %v", created, changed, err, c.created, c.changed)
			}
			data, _ := os.ReadFile(path)
			if string(data) != c.after {
				t.Fatalf("file = %q, want %q", data, c.after)
			}
			if ok, err := HasIgnore(root, rel); !ok || err != nil {
				t.Fatalf("HasIgnore after = %v, %v", ok, err)
			}
		})
	}
}
