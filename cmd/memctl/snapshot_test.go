package main

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// snapshot FILE DIR...: write to FILE every directory and file under the
// DIRs, in path order, with each file's size and SHA-256, so that cmp of
// two snapshots shows a command changed nothing there: no file written,
// created or removed, no directory made.
func cmdSnapshot(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: snapshot FILE DIR...")
	}
	var b strings.Builder
	for _, dir := range args[1:] {
		root := ts.MkAbs(dir)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(ts.Getenv("WORK"), path)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				fmt.Fprintf(&b, "%s/\n", rel)
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "%s %d %x\n", rel, len(data), sha256.Sum256(data))
			return nil
		})
		if err != nil {
			ts.Fatalf("snapshot: %v", err)
		}
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
}
