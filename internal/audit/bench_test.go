package audit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage"

	"github.com/memctl/memctl/internal/gitx"
)

// benchLog runs Log over the repository at dir: cold removes the log
// cache before each run, so every version of every file is read.
func benchLog(b *testing.B, dir string, cold bool) {
	repo, err := gitx.Find(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if cold {
			b.StopTimer()
			_ = os.Remove(CachePath(repo.CommonDir))
			b.StartTimer()
		}
		res, err := Log(context.Background(), repo, Query{}, func(string) bool { return true })
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Entries) == 0 {
			b.Fatal("the log is empty")
		}
	}
}

// benchRepo is the repository MEMCTL_BENCH_LOG_REPO names (made with
// scripts/bench-log.sh, packed by git); skipped without it.
func benchRepo(b *testing.B) string {
	dir := os.Getenv("MEMCTL_BENCH_LOG_REPO")
	if dir == "" {
		b.Skip("MEMCTL_BENCH_LOG_REPO is not set")
	}
	return dir
}

func BenchmarkLogRepo(b *testing.B)       { benchLog(b, benchRepo(b), true) }
func BenchmarkLogRepoCached(b *testing.B) { benchLog(b, benchRepo(b), false) }

// BenchmarkLog{1k,10k}: the first log (no cache) of 100 (30) commits, each
// changing the priority of 1 to 4 of n tasks in .beads/issues.jsonl,
// packed by go-git.
func BenchmarkLog1k(b *testing.B)  { benchLog(b, packedIssuesHistory(b, 1_000, 100), true) }
func BenchmarkLog10k(b *testing.B) { benchLog(b, packedIssuesHistory(b, 10_000, 30), true) }

// packedIssuesHistory makes a repository whose .beads/issues.jsonl has n
// tasks and commits versions, each changing 1 to 4 tasks, all in one pack
// (go-git's, with its deltas) and no loose objects. The data comes from a
// fixed seed.
func packedIssuesHistory(b *testing.B, n, commits int) string {
	b.Helper()
	root := b.TempDir()
	r, err := git.PlainInit(root, false)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(14, 500))
	issue := func(i, prio, minute int) string {
		return fmt.Sprintf(`{"id":"bd-%05d","title":"task %d: make the parser keep comments %x","description":"%s","status":"open","priority":%d,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-02-01T00:%02d:00Z"}`,
			i, i, rng.Uint64(), strings.Repeat("a sentence of the description. ", 1+rng.IntN(20)), prio, minute%60)
	}
	lines := make([]string, n)
	for i := range lines {
		lines[i] = issue(i, rng.IntN(5), 0)
	}
	var parent plumbing.Hash
	for c := range commits {
		if c > 0 {
			for range 1 + rng.IntN(4) {
				i := rng.IntN(n)
				lines[i] = issue(i, rng.IntN(5), c)
			}
		}
		blob := storeObject(b, r.Storer, plumbing.BlobObject, []byte(strings.Join(lines, "\n")+"\n"))
		beads := storeTree(b, r.Storer, object.TreeEntry{Name: "issues.jsonl", Mode: filemode.Regular, Hash: blob})
		top := storeTree(b, r.Storer, object.TreeEntry{Name: ".beads", Mode: filemode.Dir, Hash: beads})
		sig := object.Signature{Name: "Bench", Email: "bench@example.com", When: time.Unix(1767225600+int64(c)*60, 0).UTC()}
		commit := &object.Commit{Author: sig, Committer: sig, Message: fmt.Sprintf("change %d", c), TreeHash: top}
		if c > 0 {
			commit.ParentHashes = []plumbing.Hash{parent}
		}
		obj := r.Storer.NewEncodedObject()
		if err := commit.Encode(obj); err != nil {
			b.Fatal(err)
		}
		if parent, err = r.Storer.SetEncodedObject(obj); err != nil {
			b.Fatal(err)
		}
	}
	if err := r.Storer.SetReference(plumbing.NewHashReference("refs/heads/master", parent)); err != nil {
		b.Fatal(err)
	}
	if err := r.RepackObjects(&git.RepackConfig{}); err != nil {
		b.Fatal(err)
	}
	loose, err := filepath.Glob(filepath.Join(root, ".git", "objects", "[0-9a-f][0-9a-f]"))
	if err != nil {
		b.Fatal(err)
	}
	for _, dir := range loose {
		if err := os.RemoveAll(dir); err != nil {
			b.Fatal(err)
		}
	}
	return root
}

func storeObject(b *testing.B, s storage.Storer, typ plumbing.ObjectType, data []byte) plumbing.Hash {
	b.Helper()
	obj := s.NewEncodedObject()
	obj.SetType(typ)
	w, err := obj.Writer()
	if err == nil {
		_, err = w.Write(data)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		b.Fatal(err)
	}
	h, err := s.SetEncodedObject(obj)
	if err != nil {
		b.Fatal(err)
	}
	return h
}

func storeTree(b *testing.B, s storage.Storer, entries ...object.TreeEntry) plumbing.Hash {
	b.Helper()
	obj := s.NewEncodedObject()
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		b.Fatal(err)
	}
	h, err := s.SetEncodedObject(obj)
	if err != nil {
		b.Fatal(err)
	}
	return h
}
