package index

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/index/indextest"
)

// noteSource reads notes/*.txt: each line "id|kind-extras|text" is one
// document. Extras are key=value pairs separated by commas (category,
// status, label, created, files).
type noteSource struct{}

func (noteSource) Kind() string { return "note" }

func (noteSource) Files(root string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(root, "notes"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	var out []string
	for _, e := range entries {
		out = append(out, path.Join("notes", e.Name()))
	}
	return out, err
}

func (noteSource) Docs(file string, data []byte) ([]Doc, error) {
	var docs []Doc
	for i, line := range strings.Split(string(data), "\n") {
		parts := strings.SplitN(line, "|", 3)
		if len(parts) != 3 {
			continue
		}
		d := Doc{ID: "note:" + parts[0], Kind: "note", Ref: parts[0], Body: parts[2], File: file, Line: i + 1, Priority: -1}
		for _, kv := range strings.Split(parts[1], ",") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "category":
				d.Category = v
			case "status":
				d.Status = v
			case "label":
				d.Labels = append(d.Labels, v)
			case "kind":
				d.Kind = v
			case "created":
				var err error
				if d.Created, err = time.Parse(time.RFC3339Nano, v); err != nil {
					d.Created, _ = time.Parse("2006-01-02", v)
				}
			case "files":
				d.Files = append(d.Files, v)
			}
		}
		docs = append(docs, d)
	}
	return docs, nil
}

type fixture struct {
	t       *testing.T
	root    string
	dir     string
	notices []string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, root: root, dir: filepath.Join(root, ".git", "memctl")}
}

func (f *fixture) write(name, content string) {
	f.t.Helper()
	p := filepath.Join(f.root, "notes", name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
	// A later write must look changed even within the mtime's resolution.
	later := time.Now().Add(time.Duration(len(content)) * time.Second)
	os.Chtimes(p, later, later)
}

func (f *fixture) open(e embed.Embedder) *Index {
	f.t.Helper()
	x, err := Open(context.Background(), Options{Dir: f.dir, Embedder: e, Notice: func(s string) { f.notices = append(f.notices, s) }})
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { x.Close() })
	return x
}

func (f *fixture) update(x *Index) UpdateStats {
	f.t.Helper()
	st, err := x.Update(context.Background(), f.root, []Source{noteSource{}})
	if err != nil {
		f.t.Fatal(err)
	}
	return st
}

func ids(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
}

const notesA = `pg|category=architecture|We use PostgreSQL 16 for metadata; the log stays on local disk.
port|category=pitfalls,label=ci|The integration tests share port 7070; run them with -p 1 or they flake.
fsync|category=invariants|Every write to the log is fsynced before the client gets 200 OK.`

func TestUpdateIsIncremental(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.write("a.txt", notesA)
	f.write("b.txt", "limits|category=invariants|Keys are at most 256 bytes.")
	x := f.open(embed.NewStatic(embed.Corpus{}))

	st := f.update(x)
	if st.Read != 2 || st.Added != 4 || st.Docs != 4 || st.Embedded != 4 || !st.Refit {
		t.Fatalf("first update: %+v", st)
	}
	if st = f.update(x); st.Read != 0 || st.Added+st.Changed+st.Deleted+st.Embedded != 0 {
		t.Errorf("update with nothing changed: %+v", st)
	}
	// One line changed, one added, one unchanged.
	f.write("a.txt", strings.Replace(notesA, "PostgreSQL 16", "PostgreSQL 17", 1)+"\nnew|category=pitfalls|Windows cannot rename over an open file.")
	st = f.update(x)
	if st.Read != 1 || st.Changed != 1 || st.Added != 1 || st.Deleted != 0 || st.Embedded != 2 || st.Docs != 5 {
		t.Errorf("after editing a.txt: %+v", st)
	}
	// Same content, new mtime: hashed, not parsed.
	p := filepath.Join(f.root, "notes", "b.txt")
	later := time.Now().Add(time.Hour)
	os.Chtimes(p, later, later)
	if st = f.update(x); st.Read != 0 {
		t.Errorf("a touched file was parsed again: %+v", st)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	st = f.update(x)
	if st.Removed != 1 || st.Deleted != 1 || st.Docs != 4 {
		t.Errorf("after removing b.txt: %+v", st)
	}
	hits, err := x.SearchWords(context.Background(), "bytes keys", Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 0 {
		t.Errorf("a removed file's document is still found: %v", ids(hits))
	}
	docs, _ := x.Docs(context.Background(), []string{"note:pg"})
	if !strings.Contains(docs[0].Body, "PostgreSQL 17") || docs[0].Line != 1 || docs[0].File != "notes/a.txt" {
		t.Errorf("doc after edit: %+v", docs[0])
	}
}

func TestADocumentMovingBetweenFiles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.write("a.txt", "x|category=one|moving text about kafka")
	x := f.open(nil)
	f.update(x)
	f.write("a.txt", "")
	f.write("b.txt", "x|category=two|moving text about kafka")
	f.update(x)
	docs, _ := x.Docs(context.Background(), []string{"note:x"})
	if docs[0].File != "notes/b.txt" || docs[0].Category != "two" {
		t.Errorf("moved doc: %+v", docs[0])
	}
	hits, _ := x.SearchWords(context.Background(), "kafka", Filter{}, 10)
	if !slices.Equal(ids(hits), []string{"note:x"}) {
		t.Errorf("hits %v", ids(hits))
	}
}

func TestSearchFindsByWordsAndByMeaning(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.write("a.txt", notesA)
	x := f.open(embed.NewStatic(embed.Corpus{}))
	f.update(x)
	ctx := context.Background()
	hits, err := x.SearchWords(ctx, "flaky port", Filter{}, 10)
	if err != nil || len(hits) == 0 || hits[0].ID != "note:port" {
		t.Fatalf("words: %v %v", ids(hits), err)
	}
	q, err := x.EmbedQuery(ctx, "which database do we use")
	if err != nil {
		t.Fatal(err)
	}
	hits, err = x.SearchVector(ctx, q, Filter{}, 3)
	if err != nil || len(hits) != 3 || hits[0].ID != "note:pg" {
		t.Fatalf("vectors: %v %v", hits, err)
	}
	if !(hits[0].Score > hits[1].Score && hits[1].Score >= hits[2].Score) {
		t.Errorf("scores not descending: %v", hits)
	}
}

func TestFiltersApplyToBothRankings(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.write("a.txt", `t1|kind=task,status=open,label=db,created=2026-01-10|database migration for postgres
t2|kind=task,status=closed,label=ui,created=2025-06-01|database button in the settings page
f1|kind=fact,category=architecture,files=internal/db/pg.go|database is postgres
p1|kind=proposal,category=pitfalls,status=pending,created=2026-02-01|database connections leak
s1|kind=run,created=2026-03-01T10:00:00.5Z|database dump ran for an hour
me|kind=personal,category=preferences|database answers in British English`)
	x := f.open(embed.NewStatic(embed.Corpus{}))
	f.update(x)
	ctx := context.Background()
	q, _ := x.EmbedQuery(ctx, "database")
	for _, c := range []struct {
		name string
		f    Filter
		want []string
	}{
		{"no filter", Filter{}, []string{"note:f1", "note:me", "note:p1", "note:s1", "note:t1", "note:t2"}},
		{"kind", Filter{Kinds: []string{"task"}}, []string{"note:t1", "note:t2"}},
		{"kinds", Filter{Kinds: []string{"fact", "proposal"}}, []string{"note:f1", "note:p1"}},
		{"every filter at once", Filter{Kinds: []string{"fact"}, Category: "pitfalls"}, nil},
		{"every filter at once, again", Filter{Kinds: []string{"task"}, Status: "open", Label: "db", Since: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, []string{"note:t1"}},
		{"category", Filter{Category: "pitfalls"}, []string{"note:p1"}},
		{"status", Filter{Status: "open"}, []string{"note:t1"}},
		{"label", Filter{Label: "ui"}, []string{"note:t2"}},
		{"since", Filter{Since: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, []string{"note:p1", "note:s1", "note:t1"}},
		{"since before 1970 still needs a date", Filter{Since: time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC)}, []string{"note:p1", "note:s1", "note:t1", "note:t2"}},
		{"since before Bleve's dates", Filter{Since: time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)}, []string{"note:p1", "note:s1", "note:t1", "note:t2"}},
		{"since within the second after", Filter{Since: time.Date(2026, 3, 1, 10, 0, 0, 7e8, time.UTC)}, nil},
		{"since the second", Filter{Since: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}, []string{"note:s1"}},
		{"until, inclusive", Filter{Until: time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)}, []string{"note:t1", "note:t2"}},
		{"until the second before", Filter{Until: time.Date(2026, 1, 9, 23, 59, 59, 0, time.UTC)}, []string{"note:t2"}},
		{"until the second, in nanoseconds", Filter{Until: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}, []string{"note:p1", "note:s1", "note:t1", "note:t2"}},
		{"until past Bleve's dates", Filter{Until: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)}, []string{"note:p1", "note:s1", "note:t1", "note:t2"}},
		{"since and until", Filter{Since: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2026, 1, 31, 23, 59, 59, 999, time.UTC)}, []string{"note:t1"}},
		{"since after until", Filter{Since: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, nil},
		{"team", Filter{Origin: OriginTeam}, []string{"note:f1", "note:p1", "note:s1", "note:t1", "note:t2"}},
		{"personal", Filter{Origin: OriginPersonal}, []string{"note:me"}},
		{"personal and a kind", Filter{Origin: OriginPersonal, Kinds: []string{"task"}}, nil},
		{"scope of the file", Filter{Scopes: []string{"notes/"}}, []string{"note:f1", "note:p1", "note:s1", "note:t1", "note:t2"}},
		{"scope of files a doc is about", Filter{Scopes: []string{"internal/db"}}, []string{"note:f1"}},
		{"nothing", Filter{Category: "none"}, nil},
	} {
		words, err := x.SearchWords(ctx, "database", c.f, 10)
		if err != nil {
			t.Fatal(err)
		}
		dense, err := x.SearchVector(ctx, q, c.f, 10)
		if err != nil {
			t.Fatal(err)
		}
		w, d := ids(words), ids(dense)
		slices.Sort(w)
		slices.Sort(d)
		if !slices.Equal(w, c.want) || !slices.Equal(d, c.want) {
			t.Errorf("%s: words %v, dense %v, want %v", c.name, w, d, c.want)
		}
		// Select filters ids found otherwise the same way, in their order.
		sel, err := x.Select(ctx, []string{"note:t2", "note:p1", "note:gone", "note:f1", "note:t1", "note:t2", "note:s1", "note:me"}, c.f)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(sel)
		if !slices.Equal(sel, c.want) && !(len(sel) == 0 && c.want == nil) {
			t.Errorf("%s: select %v, want %v", c.name, sel, c.want)
		}
	}
	sel, _ := x.Select(ctx, []string{"note:t2", "note:gone", "note:t1", "note:t2"}, Filter{})
	if !slices.Equal(sel, []string{"note:t2", "note:t1"}) {
		t.Errorf("select keeps the order given, once each, without ids not indexed: %v", sel)
	}
}

func TestIndexIsRebuiltWhenItCannotBeTrusted(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		break_ func(f *fixture, x *Index)
		notice string
	}{
		{"format", func(f *fixture, x *Index) { x.setMeta("format", "0") }, "format 0"},
		{"interrupted update", func(f *fixture, x *Index) { x.setMeta("dirty", "1") }, "interrupted"},
		{"corrupt database", func(f *fixture, x *Index) {
			x.Close()
			os.WriteFile(filepath.Join(f.dir, dbName), []byte("this is not a database, not at all, no"), 0o644)
		}, "rebuilding"},
		{"deleted word index", func(f *fixture, x *Index) {
			x.Close()
			os.RemoveAll(filepath.Join(f.dir, bleveName))
		}, "rebuilding"},
		// What a crash or a full disk leaves: stores cut short or damaged.
		{"database cut in half", func(f *fixture, x *Index) {
			x.Close()
			p := filepath.Join(f.dir, dbName)
			fi, _ := os.Stat(p)
			os.Truncate(p, fi.Size()/2)
		}, "database disk image is malformed"},
		{"empty database", func(f *fixture, x *Index) {
			x.Close()
			os.Truncate(filepath.Join(f.dir, dbName), 0)
		}, "no such table: meta"},
		{"segment cut short", func(f *fixture, x *Index) {
			x.Close()
			p := segment(f)
			fi, _ := os.Stat(p)
			os.Truncate(p, fi.Size()/2)
		}, "is damaged"},
		{"empty segment", func(f *fixture, x *Index) {
			x.Close()
			os.Truncate(segment(f), 0)
		}, "is cut short"},
		{"segment damaged in the middle", func(f *fixture, x *Index) {
			x.Close()
			p := segment(f)
			b, _ := os.ReadFile(p)
			b[len(b)/2] ^= 0xff
			os.WriteFile(p, b, 0o600)
		}, "is damaged"},
		{"segment gone", func(f *fixture, x *Index) {
			x.Close()
			os.Remove(segment(f))
		}, "rebuilding"},
		{"segment Bleve cannot load", func(f *fixture, x *Index) {
			// Its checksum matches: Bleve skips it, says so only on the
			// standard logger, and then fails for another reason.
			x.Close()
			b := []byte("not a zap segment at all")
			os.WriteFile(segment(f), binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b)), 0o600)
		}, "unable to load snapshot"},
		{"word index rolled back", func(f *fixture, x *Index) {
			// A snapshot Bleve could load, but older than the database.
			x.bm.Delete("note:pg")
		}, "the word index holds 2 documents, the database 3"},
		{"damaged word index metadata", func(f *fixture, x *Index) {
			x.Close()
			os.WriteFile(filepath.Join(f.dir, bleveName, "index_meta.json"), []byte("{\"storage\":"), 0o600)
		}, "rebuilding"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			f.write("a.txt", notesA)
			x := f.open(nil)
			f.update(x)
			c.break_(f, x)
			x.Close()
			x = f.open(nil)
			if len(f.notices) != 1 || !strings.Contains(f.notices[0], c.notice) || strings.Contains(f.notices[0], "\n") {
				t.Fatalf("notices %q, want one line with %q", f.notices, c.notice)
			}
			if st := f.update(x); st.Added != 3 || st.Docs != 3 {
				t.Errorf("update after the rebuild: %+v", st)
			}
			hits, err := x.SearchWords(context.Background(), "port 7070", Filter{}, 3)
			if err != nil || len(hits) == 0 || hits[0].ID != "note:port" {
				t.Errorf("search after the rebuild: %v, %v", ids(hits), err)
			}
		})
	}
	t.Run("another embedder", func(t *testing.T) {
		f := newFixture(t)
		f.write("a.txt", notesA)
		x := f.open(nil)
		f.update(x)
		x.Close()
		x = f.open(embed.NewStatic(embed.Corpus{}))
		if len(f.notices) != 1 || !strings.Contains(f.notices[0], "embedder changed from none to builtin") {
			t.Fatalf("notices %q", f.notices)
		}
		if st := f.update(x); st.Embedded != 3 {
			t.Errorf("update after the embedder changed: %+v", st)
		}
	})
}

// failing is an embedder that fails until ok is set.
type failing struct {
	ok bool
	embed.Embedder
}

func (e *failing) ID() string { return "test:failing" }

func (e *failing) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if !e.ok {
		return nil, errors.New("connection refused")
	}
	return e.Embedder.Embed(ctx, texts)
}

func TestEmbedderFailureLeavesVectorsForLater(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.write("a.txt", notesA)
	e := &failing{Embedder: embed.NewStatic(embed.Corpus{})}
	x := f.open(e)
	st := f.update(x)
	if st.Docs != 3 || st.Missing != 3 || st.Embedded != 0 {
		t.Fatalf("update with a failing embedder: %+v", st)
	}
	if len(f.notices) != 1 || !strings.Contains(f.notices[0], "connection refused") || !strings.Contains(f.notices[0], "3 documents have no vector") {
		t.Errorf("notices %q", f.notices)
	}
	if hits, err := x.SearchWords(context.Background(), "postgresql", Filter{}, 10); err != nil || len(hits) != 1 {
		t.Errorf("words still work: %v %v", ids(hits), err)
	}
	e.ok = true
	if st = f.update(x); st.Embedded != 3 || st.Missing != 0 {
		t.Errorf("the next update fills the vectors: %+v", st)
	}
	if st = f.update(x); st.Embedded != 0 {
		t.Errorf("and the one after has nothing to do: %+v", st)
	}
}

func TestDriftRefitsTheBuiltInEmbedder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.write("a.txt", notesA)
	x := f.open(embed.NewStatic(embed.Corpus{}))
	if st := f.update(x); !st.Refit || x.fit.docs != 3 {
		t.Fatalf("first update: %+v, fit %+v", st, x.fit)
	}
	var b strings.Builder
	for i := range 10 {
		b.WriteString("n" + string(rune('a'+i)) + "|category=x|another note about the build\n")
	}
	f.write("b.txt", b.String())
	if st := f.update(x); st.Refit {
		t.Errorf("10 more documents (under 20) refitted: %+v", st)
	}
	b.Reset()
	for i := range 30 {
		b.WriteString("m" + string(rune('a'+i)) + "|category=x|yet another note\n")
	}
	f.write("c.txt", b.String())
	st := f.update(x)
	if !st.Refit || st.Embedded != st.Docs || x.fit.docs != 43 {
		t.Errorf("30 more documents: %+v, fit docs %d", st, x.fit.docs)
	}
	// The fit survives a reopen: queries use the same statistics.
	x.Close()
	x = f.open(embed.NewStatic(embed.Corpus{}))
	if x.fit == nil || x.fit.docs != 43 || len(x.fit.component) != 100 {
		t.Errorf("fit after reopening: %+v", x.fit)
	}
	if st := f.update(x); st.Refit || st.Embedded != 0 {
		t.Errorf("update after reopening: %+v", st)
	}
}

func TestVectorEncoding(t *testing.T) {
	t.Parallel()
	v := embed.Normalize([]float32{0.5, -0.25, 0.1, 0, 0.9, -0.7, 0.33})
	b := encodeVector(v)
	q := newQVec(v)
	if got := q.dot(b); got < 0.99 || got > 1.01 {
		t.Errorf("self dot %g, want about 1", got)
	}
	if got := q.dot(b[:len(b)-1]); got != 0 {
		t.Errorf("dot with a vector of other dims = %g, want 0", got)
	}
	if got := parseFloats(formatFloats(v)); !slices.Equal(got, v) {
		t.Errorf("floats round trip: %v -> %v", v, got)
	}
}

// The unfiltered dense search reads the vector packs; a filtered one reads
// the vectors table. Both must rank alike, also after documents change.
func TestPackedAndTableScansAgree(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var b strings.Builder
	for i := range 60 {
		fmt.Fprintf(&b, "n%d|category=c|%s note %d about %s\n", i, indextest.Vocabulary[i%len(indextest.Vocabulary)], i, indextest.Vocabulary[(i*7)%len(indextest.Vocabulary)])
	}
	f.write("a.txt", b.String())
	x := f.open(embed.NewStatic(embed.Corpus{}))
	f.update(x)
	ctx := context.Background()
	check := func(when string) {
		t.Helper()
		for _, query := range []string{"database cache", "flaky tests on linux", "note"} {
			q, _ := x.EmbedQuery(ctx, query)
			packed, err := x.SearchVector(ctx, q, Filter{}, 20)
			if err != nil {
				t.Fatal(err)
			}
			table, err := x.SearchVector(ctx, q, Filter{Kinds: []string{"note"}}, 20)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(packed), ids(table)) {
				t.Errorf("%s, %q: packed %v, table %v", when, query, ids(packed), ids(table))
			}
		}
	}
	check("after the build")
	f.write("a.txt", strings.Replace(b.String(), "n3|category=c|", "n3|category=c|database cache database cache ", 1)+"extra|category=c|database cache flaky\n")
	f.write("b.txt", "late|category=c|flaky tests on linux")
	f.update(x)
	check("after changes")
}

// TestRebuildAnswersAsBefore: a rebuilt index ranks and scores exactly as
// the index it replaced, also after incremental changes that did not drift
// the corpus far enough to fit the embedder again (before, a rebuild fitted
// afresh and the dense ranking moved).
func TestRebuildAnswersAsBefore(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "a%d|category=x|note %d about the build, flaky tests and the postgres database\n", i, i)
	}
	f.write("a.txt", notesA+"\n"+b.String())
	x := f.open(embed.NewStatic(embed.Corpus{}))
	f.update(x)
	b.Reset()
	for i := range 8 {
		fmt.Fprintf(&b, "b%d|category=y|flaky compaction test %d: the database latency spikes\n", i, i)
	}
	f.write("b.txt", b.String())
	if st := f.update(x); st.Refit {
		t.Fatalf("8 more documents refitted; the test needs an index between fits: %+v", st)
	}
	ctx := context.Background()
	answers := func(x *Index) (out []string) {
		for _, q := range []string{"why do the tests flake", "which database do we use", "latency of compaction"} {
			v, err := x.EmbedQuery(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			dense, err := x.SearchVector(ctx, v, Filter{}, 10)
			if err != nil {
				t.Fatal(err)
			}
			words, err := x.SearchWords(ctx, q, Filter{}, 10)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range append(dense, words...) {
				out = append(out, fmt.Sprintf("%s %s %.6f", q, h.ID, h.Score))
			}
		}
		return out
	}
	before := answers(x)
	if err := x.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	if st := f.update(x); st.Added != st.Docs || st.Refit {
		t.Errorf("update after the rebuild: %+v", st)
	}
	if after := answers(x); !slices.Equal(before, after) {
		t.Errorf("answers changed with the rebuild:\nbefore %q\nafter  %q", before, after)
	}
	// Reopened, the rebuilt index still answers the same.
	x.Close()
	x = f.open(embed.NewStatic(embed.Corpus{}))
	if after := answers(x); !slices.Equal(before, after) {
		t.Errorf("answers changed after reopening the rebuilt index")
	}
}

func TestASecondOpenNamesTheHolder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	since := time.Date(2026, 11, 22, 9, 31, 2, 0, time.UTC)
	x, err := Open(context.Background(), Options{Dir: f.dir, Holder: fsx.Holder{PID: os.Getpid(), Command: "memctl index", Since: since}})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	_, err = Open(context.Background(), Options{Dir: f.dir, LockWait: time.Nanosecond})
	var le *fsx.LockedError
	if !errors.As(err, &le) || le.Holder == nil || le.Holder.PID != os.Getpid() || le.Holder.Command != "memctl index" {
		t.Fatalf("second Open = %v, want a LockedError naming this process (memctl index)", err)
	}
}

// TestRebuildOfADamagedFit: a rebuild is what a user reaches for when the
// index is damaged, so a fit that cannot be read is fitted afresh, with a
// notice, instead of failing the rebuild.
func TestRebuildOfADamagedFit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.write("a.txt", notesA)
	x := f.open(embed.NewStatic(embed.Corpus{}))
	f.update(x)
	if _, err := x.db.Exec(`DROP TABLE df`); err != nil {
		t.Fatal(err)
	}
	if err := x.Rebuild(context.Background()); err != nil {
		t.Fatalf("Rebuild of an index without its df table: %v", err)
	}
	if len(f.notices) == 0 || !strings.Contains(f.notices[len(f.notices)-1], "without its fit") {
		t.Errorf("notices = %q, want one about the fit", f.notices)
	}
	if st := f.update(x); !st.Refit || st.Docs != 3 {
		t.Errorf("update after the rebuild: %+v, want a fresh fit of 3 documents", st)
	}
}

// segment is the one segment of the fixture's word index.
func segment(f *fixture) string {
	f.t.Helper()
	names, _ := filepath.Glob(filepath.Join(f.dir, bleveName, "store", "*.zap"))
	if len(names) != 1 {
		f.t.Fatalf("segments %q, want one", names)
	}
	return names[0]
}

// outsideSource reads one notes file kept outside the repository, named
// "~/notes.txt" in the index.
type outsideSource struct{ path string }

func (outsideSource) Kind() string                           { return KindPersonal }
func (outsideSource) Files(string) ([]string, error)         { return []string{"~/notes.txt"}, nil }
func (s outsideSource) Locate(string) string                 { return s.path }
func (outsideSource) Docs(f string, b []byte) ([]Doc, error) { return noteSource{}.Docs(f, b) }

func TestAFileOutsideTheRepository(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.write("a.txt", notesA)
	outside := filepath.Join(t.TempDir(), "prefs.txt")
	write := func(content string, at time.Time) {
		if err := os.WriteFile(outside, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(outside, at, at)
	}
	write("tabs|kind=personal|I indent with tabs.", time.Now())
	x := f.open(embed.NewStatic(embed.Corpus{}))
	ctx := context.Background()
	sources := []Source{noteSource{}, outsideSource{outside}}
	update := func() UpdateStats {
		t.Helper()
		st, err := x.Update(ctx, f.root, sources)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	if st := update(); st.Files != 2 || st.Read != 2 || st.Docs != 4 {
		t.Fatalf("first update: %+v", st)
	}
	hits, err := x.SearchWords(ctx, "tabs", Filter{}, 10)
	if err != nil || !slices.Equal(ids(hits), []string{"note:tabs"}) {
		t.Fatalf("search: %v, %v", ids(hits), err)
	}
	docs, _ := x.Docs(ctx, []string{"note:tabs"})
	if docs[0].File != "~/notes.txt" || docs[0].Line != 1 || docs[0].Commit != "" {
		t.Errorf("the document names the file as its source does, with no commit: %+v", docs[0])
	}
	if st := update(); st.Read != 0 {
		t.Errorf("an unchanged file outside is not read again: %+v", st)
	}
	write("spaces|kind=personal|I indent with four spaces.", time.Now().Add(time.Hour))
	if fr, err := Check(ctx, f.dir, f.root, sources); err != nil || fr.Changed != 1 {
		t.Errorf("Check sees the change outside: %+v, %v", fr, err)
	}
	if st := update(); st.Read != 1 || st.Added != 1 || st.Deleted != 1 {
		t.Errorf("a changed file outside is read again: %+v", st)
	}
	// One that cannot be read (a directory where it was: root reads any
	// file) keeps its documents, with a notice; the update goes on.
	os.Remove(outside)
	if err := os.Mkdir(outside, 0o700); err != nil {
		t.Fatal(err)
	}
	if st := update(); st.Skipped != 1 || st.Docs != 4 {
		t.Errorf("an unreadable file outside: %+v, want it skipped and its documents kept", st)
	}
	if n := f.notices; len(n) == 0 || !strings.Contains(n[len(n)-1], "is left as it was") {
		t.Errorf("notices %q, want one about the unreadable file", n)
	}
	os.Remove(outside)
	if st := update(); st.Removed != 1 || st.Deleted != 1 || st.Docs != 3 {
		t.Errorf("a removed file outside takes its documents with it: %+v", st)
	}
	if hits, _ := x.SearchWords(ctx, "indent", Filter{}, 10); len(hits) != 0 {
		t.Errorf("found after its file was removed: %v", ids(hits))
	}
}
