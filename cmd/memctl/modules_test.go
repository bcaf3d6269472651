package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestMakefileCoversEveryModule keeps every module of the tree in CI.
// go test ./... stops at a nested go.mod, so the tests of a nested module
// (internal/secrets/gitleakscheck holds the differential test against
// gitleaks) run only if make test, which CI runs, goes there itself: the
// Makefile's MODULES must list every directory with a go.mod, and test,
// lint and tidy-check must loop over it.
func TestMakefileCoversEveryModule(t *testing.T) {
	root := filepath.Join("..", "..")
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "bin" || d.Name() == "dist") {
			return filepath.SkipDir // not modules of the build (go ignores testdata)
		}
		if d.Name() == "go.mod" {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			found = append(found, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(found, ".") || len(found) < 2 {
		t.Fatalf("found modules %v; want memctl's and internal/secrets/gitleakscheck at least", found)
	}

	src, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	mk := string(src)
	vars := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^([A-Z_]+)\s*:=\s*(.*)$`).FindAllStringSubmatch(mk, -1) {
		vars[m[1]] = m[2]
	}
	listed, ok := vars["MODULES"]
	if !ok {
		t.Fatalf("the Makefile has no MODULES := line; list every module (%s) there", strings.Join(found, " "))
	}
	var modules []string
	for _, w := range strings.Fields(listed) {
		if name, ok := strings.CutPrefix(w, "$("); ok {
			w = vars[strings.TrimSuffix(name, ")")]
		}
		modules = append(modules, filepath.ToSlash(filepath.Clean(w)))
	}
	for _, m := range found {
		if !slices.Contains(modules, m) {
			t.Errorf("module %s is not in the Makefile's MODULES (%s)", m, listed)
		}
	}
	for _, target := range []string{"test", "lint", "tidy-check"} {
		if !strings.Contains(recipe(mk, target), "for m in $(MODULES)") {
			t.Errorf("make %s does not loop over $(MODULES)", target)
		}
	}
}

// recipe returns the command lines of a Makefile target.
func recipe(mk, target string) string {
	var b strings.Builder
	in := false
	for line := range strings.Lines(mk) {
		switch {
		case strings.HasPrefix(line, target+":"):
			in = true
		case in && strings.HasPrefix(line, "\t"):
			b.WriteString(line)
		case in:
			return b.String()
		}
	}
	return b.String()
}
