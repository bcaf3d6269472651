package recall

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/index"
	"github.com/memctl/memctl/internal/runs"
	"github.com/memctl/memctl/internal/runs/signature"
)

// errorFixture is a workspace with a playbook for the signature of
// "parse.go:12: unexpected EOF", two runs that met that error, one that
// met a similar one and one about something else; indexed.
func errorFixture(t *testing.T) (*index.Index, *runs.Store, string) {
	t.Helper()
	root := t.TempDir()
	store := &runs.Store{Dir: filepath.Join(root, filepath.FromSlash(config.RunsDir)), Rel: config.RunsDir}
	hash := signature.Of("parse.go:12: unexpected EOF").Hash
	day := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	for i, r := range []*runs.Record{
		{RunID: "r-a", StartedAt: day.AddDate(0, 0, -9), Digest: runs.Digest{Intent: "fix the parser"}, Errors: []runs.Error{{Excerpt: "/home/ann/app/parse.go:12: unexpected EOF"}}},
		{RunID: "r-b", StartedAt: day, Digest: runs.Digest{Intent: "parser again"}, Errors: []runs.Error{{Excerpt: "parse.go:97: unexpected EOF"}}},
		{RunID: "r-c", StartedAt: day.AddDate(0, 0, -1), Digest: runs.Digest{Intent: "lexer"}, Errors: []runs.Error{{Excerpt: "lex.go:3: unexpected EOF in a string literal"}}},
		{RunID: "r-d", StartedAt: day, Digest: runs.Digest{Intent: "release notes"}},
	} {
		if _, _, err := store.Put(r, runs.PutOptions{Now: day}); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
	}
	pb := filepath.Join(root, filepath.FromSlash(config.PlaybooksDir))
	if err := os.MkdirAll(pb, 0o755); err != nil {
		t.Fatal(err)
	}
	md := fmt.Sprintf("# Playbook %s\n\n## Error\n\n```text\nparse.go:<n>: unexpected EOF\n```\n\n## Fix\n\n1. Close the brace the generator dropped.\n\n## Evidence\n\n- run:r-a\n", hash)
	if err := os.WriteFile(filepath.Join(pb, hash+".md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	x, err := index.Open(context.Background(), index.Options{Dir: filepath.Join(root, ".git", "memctl")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	if _, err := x.Update(context.Background(), root, []index.Source{runSource{}, playbookSource{}}); err != nil {
		t.Fatal(err)
	}
	return x, store, hash
}

func TestSearchErrorPutsSignatureMatchesFirst(t *testing.T) {
	t.Parallel()
	x, store, hash := errorFixture(t)
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name  string
		store *runs.Store
		opts  Options
		want  string
	}{
		{"playbook, runs newest first, then similar", store, Options{}, "playbook:" + hash + "=signature r-b=signature r-a=signature r-c=similar"},
		{"k cuts the exact matches too", store, Options{K: 2}, "playbook:" + hash + "=signature r-b=signature"},
		{"filters apply to exact matches", store, Options{Filter: index.Filter{Kinds: []string{"run"}, Since: now.AddDate(0, 0, -5)}}, "r-b=signature r-c=similar"},
		{"no run store: runs are only similar", nil, Options{}, "playbook:" + hash + "=signature"},
	} {
		c.opts.Mode, c.opts.Now = ModeBM25, now
		ans, err := SearchError(context.Background(), x, c.store, "\x1b[31m/tmp/build/parse.go:12: unexpected EOF\x1b[0m\n", c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if ans.Signature.Hash != hash {
			t.Errorf("%s: signature %s, want %s", c.name, ans.Signature.Hash, hash)
		}
		var got []string
		for _, r := range ans.Results {
			id := r.ID
			if r.Kind == index.KindPlaybook {
				id = "playbook:" + id
			}
			got = append(got, id+"="+r.Match)
		}
		// Without a run store the runs come by words, in rank order: only
		// the exact part is pinned.
		if g := strings.Join(got, " "); !strings.HasPrefix(g, c.want) || c.store != nil && g != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, g, c.want)
		}
	}
}

func TestSearchErrorRefusesNoise(t *testing.T) {
	t.Parallel()
	x, store, _ := errorFixture(t)
	if _, err := SearchError(context.Background(), x, store, "\x1b[0m\n\n", Options{Mode: ModeBM25}); err != ErrEmptyQuery {
		t.Errorf("err = %v, want ErrEmptyQuery", err)
	}
}
