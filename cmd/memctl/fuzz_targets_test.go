package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFuzzTargetsListed: make fuzz runs every fuzz target of the
// repository, so that a new one is not left to run only on its seeds.
func TestFuzzTargetsListed(t *testing.T) {
	root := filepath.Join("..", "..")
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\t(\S+):(\S+):(Fuzz\w+)`).FindAllStringSubmatch(string(makefile), -1) {
		mod := strings.Replace(m[1], "$(GITLEAKSCHECK)", "internal/secrets/gitleakscheck", 1)
		listed[filepath.ToSlash(filepath.Join(mod, m[2]))+":"+m[3]] = true
	}
	fuzzFunc := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`)
	found := 0
	err = filepath.WalkDir(filepath.Join(root, "internal"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		for _, m := range fuzzFunc.FindAllStringSubmatch(string(src), -1) {
			found++
			if key := filepath.ToSlash(rel) + ":" + m[1]; !listed[key] {
				t.Errorf("%s: %s is not in the Makefile's FUZZ_TARGETS; add it", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found != len(listed) {
		t.Errorf("FUZZ_TARGETS lists %d targets, the code has %d", len(listed), found)
	}
}
