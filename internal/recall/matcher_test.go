package recall

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/index"
	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/proposal"
)

func TestMatcherJudgesFactsThroughTheIndex(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	facts := "# Pitfalls\n\n" +
		"- The integration tests share port 7070; run them with -p 1 or they flake.\n" +
		"- Windows cannot rename a file over an open file; close the old log first.\n" +
		"- Timestamps in the API are UTC, formatted as RFC 3339.\n"
	dir := filepath.Join(root, ".ledger", "facts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pitfalls.md"), []byte(facts), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	x, err := index.Open(ctx, index.Options{Dir: filepath.Join(root, "idx"), Embedder: embed.NewStatic(embed.Corpus{})})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if _, err := x.Update(ctx, root, Sources()); err != nil {
		t.Fatal(err)
	}
	parsed := ledger.Parse("pitfalls", ".ledger/facts/pitfalls.md", []byte(facts)).Facts
	m := &Matcher{Ctx: ctx, Index: x}
	for _, c := range []struct {
		text     string
		relation string // "" for nothing flagged
	}{
		{"Integration tests flake when run in parallel because they share port 7070; use -p 1.", "near-duplicate"},
		{"The integration tests share port 8080; run them with -p 1 or they flake.", "possible-contradiction"},
		{"Prefer table-driven tests with descriptive names.", ""},
	} {
		got := m.Similar("pitfalls", c.text, parsed)
		lex := proposal.Lexical{}.Similar("pitfalls", c.text, parsed)
		t.Logf("%q: hybrid %+v, lexical %+v", c.text, got, lex)
		if c.relation == "" {
			if len(got) != 0 {
				t.Errorf("%q: flagged %+v", c.text, got)
			}
			continue
		}
		if len(got) == 0 || got[0].Relation != c.relation || got[0].FactID != parsed[0].ID {
			t.Errorf("%q: got %+v, want %s of %s", c.text, got, c.relation, parsed[0].ID)
		}
	}
	if m.Err != nil {
		t.Error(m.Err)
	}
}
