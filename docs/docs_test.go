package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEveryTopicIsEmbedded(t *testing.T) {
	for _, tp := range Topics {
		text, ok := Text(tp.Name)
		if !ok || !strings.HasPrefix(text, "# ") {
			t.Errorf("topic %q: missing or not a Markdown document", tp.Name)
		}
		if strings.Contains(text, ".md)") {
			t.Errorf("topic %q: a link to a .md file survived: a user's repository has no docs/", tp.Name)
		}
	}
	names, _ := fs.Glob(files, "*.md")
	if len(names) != len(Topics) {
		t.Errorf("embedded %d files for %d topics; list every embedded file in Topics", len(names), len(Topics))
	}
}

func TestTerminalLinks(t *testing.T) {
	for in, want := range map[string]string{
		"see [json.md](json.md#init) here":               "see memctl help json here",
		"see [the shapes](json.md#init)":                 "see the shapes (memctl help json)",
		"[commands.md](commands.md#memctl-check)":        "memctl help commands",
		"[actions](https://github.com/features/actions)": "actions <https://github.com/features/actions>",
		"[below](#lock-waits)":                           "below",
		"[development](development.md)":                  "development",
		"[src](../internal/x.go)":                        "src",
	} {
		if got := terminalLinks(in); got != want {
			t.Errorf("terminalLinks(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNoConflictMarkers keeps a merge's leftovers out of the guides (they
// are shown by memctl help), the README and the changelog.
func TestNoConflictMarkers(t *testing.T) {
	paths, _ := filepath.Glob("*.md")
	paths = append(paths, filepath.Join("..", "README.md"), filepath.Join("..", "CHANGELOG.md"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "<<<<<<< ") || strings.HasPrefix(line, ">>>>>>> ") || line == "<<<<<<<" || line == ">>>>>>>" {
				t.Errorf("%s:%d: a conflict marker: %q", p, i+1, line)
			}
		}
	}
}
