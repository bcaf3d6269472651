package config

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	git "github.com/go-git/go-git/v5"

	"github.com/memctl/memctl/internal/gitx"
)

// Starter is what Init writes, byte for byte: memctl import replaces such
// a file without --force, so a difference would make a fresh workspace
// refuse an archive (or, worse, count an edited file as untouched).
func TestStarterIsWhatInitWrites(t *testing.T) {
	dir := t.TempDir()
	if _, err := git.PlainInit(dir, false); err != nil {
		t.Fatal(err)
	}
	repo, err := gitx.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Init(repo, "demo")
	if err != nil {
		t.Fatal(err)
	}
	starter := Starter("demo")
	for _, rel := range res.Created {
		if rel == AttrsFile || slices.Contains(IgnoreFiles, rel) {
			continue // not a memctl file an archive holds
		}
		want, ok := starter[rel]
		if !ok {
			t.Errorf("Init created %s, which Starter does not list", rel)
			continue
		}
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: Init wrote %q, Starter says %q (%v)", rel, got, want, err)
		}
	}
	if n := len(res.Created) - 1 - len(IgnoreFiles); len(starter) != n {
		t.Errorf("Starter lists %d files, Init created %d besides %s and %v", len(starter), n, AttrsFile, IgnoreFiles)
	}
	if bytes.Equal(Starter("other")[ConfigFile], starter[ConfigFile]) {
		t.Error("the starter config does not depend on the prefix")
	}
}
