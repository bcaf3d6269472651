package index

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/memctl/memctl/internal/embed"
)

// Filter narrows a search. Empty fields do not filter. Every ranking
// applies it before it cuts its list, so a document that passes is never
// pushed out by one that does not.
type Filter struct {
	Kinds    []string
	Category string
	Status   string
	Label    string
	// Since and Until keep documents created in that span, both ends
	// included, to the second (a document's time is kept to the second
	// in SQLite); a document without a date fails either.
	Since, Until time.Time
	// Scopes are path prefixes, relative to the repository root: a
	// document matches when its file, or a file it is about, starts with
	// one of them. Only the repository's documents can match.
	Scopes []string
	// Origin keeps the repository's documents (OriginTeam) or the
	// person's own (OriginPersonal: kind personal); "" keeps both.
	Origin string
}

// Origins of documents, for Filter.Origin.
const (
	OriginTeam     = "team"
	OriginPersonal = "personal"
)

// team reports whether the filter keeps only the repository's documents.
func (f Filter) team() bool { return f.Origin == OriginTeam || len(f.Scopes) > 0 }

// bounds are Since and Until as whole seconds, as both stores compare
// them: a document passes when since <= created < end, with end the
// second after Until's. Bleve keeps times in nanoseconds and SQLite in
// seconds, so Since rounds up and Until down to agree on every document.
// The bounds stay within what Bleve's date fields hold.
func (f Filter) bounds() (since, end time.Time) {
	lo, hi := query.MinRFC3339CompatibleTime, query.MaxRFC3339CompatibleTime
	clamp := func(t time.Time) time.Time {
		switch {
		case t.Before(lo):
			return lo
		case t.After(hi):
			return hi
		}
		return t
	}
	if !f.Since.IsZero() {
		since = f.Since.Truncate(time.Second)
		if since.Before(f.Since) {
			since = since.Add(time.Second)
		}
		since = clamp(since.UTC())
	}
	if !f.Until.IsZero() {
		end = clamp(f.Until.Truncate(time.Second).Add(time.Second).UTC())
	}
	return since, end
}

// Hit is a document found by one retriever, with its score there.
type Hit struct {
	ID    string
	Score float64
}

// SearchWords ranks documents by BM25 over their words.
func (x *Index) SearchWords(ctx context.Context, text string, f Filter, k int) ([]Hit, error) {
	mq := bleve.NewMatchQuery(text)
	mq.SetField(fieldText)
	var q query.Query = mq
	if filters := bleveFilters(f); len(filters) > 0 {
		bq := bleve.NewBooleanQuery()
		bq.AddMust(mq)
		// One filter: AddFilter replaces the one before, so several are
		// one conjunction (each filter alone let the others' misses in).
		bq.AddFilter(bleve.NewConjunctionQuery(filters...))
		q = bq
	}
	req := bleve.NewSearchRequestOptions(q, k, 0, false)
	stats, err := x.bm25Stats()
	if err != nil {
		return nil, err
	}
	if stats != nil {
		req.PreSearchData = map[string]any{search.BM25PreSearchDataKey: stats}
	}
	// Equal scores in id order, also at the cut: which of several equal
	// documents make the top k must not depend on how Bleve's segments
	// happen to be laid out.
	req.SortBy([]string{"-_score", "_id"})
	res, err := x.bm.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("search the word index: %w", err)
	}
	out := make([]Hit, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = Hit{ID: h.ID, Score: h.Score}
	}
	return out, nil
}

func bleveFilters(f Filter) []query.Query {
	var out []query.Query
	term := func(field, v string) query.Query {
		q := bleve.NewTermQuery(v)
		q.SetField(field)
		return q
	}
	if len(f.Kinds) > 0 {
		var qs []query.Query
		for _, k := range f.Kinds {
			qs = append(qs, term(fieldKind, k))
		}
		out = append(out, bleve.NewDisjunctionQuery(qs...))
	}
	switch {
	case f.team():
		// Only must-not: Bleve starts from every document.
		q := bleve.NewBooleanQuery()
		q.AddMustNot(term(fieldKind, KindPersonal))
		out = append(out, q)
	case f.Origin == OriginPersonal:
		out = append(out, term(fieldKind, KindPersonal))
	}
	if f.Category != "" {
		out = append(out, term(fieldCategory, f.Category))
	}
	if f.Status != "" {
		out = append(out, term(fieldStatus, f.Status))
	}
	if f.Label != "" {
		out = append(out, term(fieldLabels, f.Label))
	}
	if since, end := f.bounds(); !since.IsZero() || !end.IsZero() {
		// From since (included) to end (excluded); a document without a
		// date has no such field and fails.
		q := bleve.NewDateRangeQuery(since, end)
		q.SetField(fieldCreated)
		out = append(out, q)
	}
	if len(f.Scopes) > 0 {
		var qs []query.Query
		for _, s := range f.Scopes {
			q := bleve.NewPrefixQuery(s)
			q.SetField(fieldPath)
			qs = append(qs, q)
		}
		out = append(out, bleve.NewDisjunctionQuery(qs...))
	}
	return out
}

// placeholders is n parameters for an IN list: "?, ?, ?".
func placeholders(n int) string { return "?" + strings.Repeat(", ?", n-1) }

// byIDs runs a query over ids, 500 at a time (SQLite's limit on
// parameters is not far above): query gets the chunk's IN list
// ("?, ?, ?"), its arguments are before, the chunk's ids, then after, and
// row scans each row.
func (x *Index) byIDs(ctx context.Context, ids []string, query func(in string) string, before, after []any, row func(*sql.Rows) error) error {
	for start := 0; start < len(ids); start += 500 {
		chunk := ids[start:min(start+500, len(ids))]
		args := make([]any, 0, len(before)+len(chunk)+len(after))
		args = append(args, before...)
		for _, id := range chunk {
			args = append(args, id)
		}
		args = append(args, after...)
		rows, err := x.db.QueryContext(ctx, query(placeholders(len(chunk))), args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			if err := row(rows); err != nil {
				rows.Close()
				return err
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// newMeta is a Meta from its columns: approved 0 or 1, created in Unix
// seconds (0: none).
func newMeta(kind string, approved int, created int64) Meta {
	m := Meta{Kind: kind, Approved: approved == 1}
	if created != 0 {
		m.Created = time.Unix(created, 0).UTC()
	}
	return m
}

// sqlFilter is the same filter as a WHERE clause over docs d.
func sqlFilter(f Filter) (string, []any) {
	var conds []string
	var args []any
	if len(f.Kinds) > 0 {
		conds = append(conds, "d.kind IN ("+placeholders(len(f.Kinds))+")")
		for _, k := range f.Kinds {
			args = append(args, k)
		}
	}
	switch {
	case f.team():
		conds = append(conds, "d.kind <> ?")
		args = append(args, KindPersonal)
	case f.Origin == OriginPersonal:
		conds = append(conds, "d.kind = ?")
		args = append(args, KindPersonal)
	}
	if f.Category != "" {
		conds = append(conds, "d.category = ?")
		args = append(args, f.Category)
	}
	if f.Status != "" {
		conds = append(conds, "d.status = ?")
		args = append(args, f.Status)
	}
	if f.Label != "" {
		conds = append(conds, "instr(d.labels, ?) > 0")
		args = append(args, "\x1f"+f.Label+"\x1f")
	}
	since, end := f.bounds()
	if !since.IsZero() || !end.IsZero() {
		// created 0 is a document without a date (Bleve has no field
		// for it), which no span holds.
		conds = append(conds, "d.created <> 0")
	}
	if !since.IsZero() {
		conds = append(conds, "d.created >= ?")
		args = append(args, since.Unix())
	}
	if !end.IsZero() {
		conds = append(conds, "d.created < ?")
		args = append(args, end.Unix())
	}
	if len(f.Scopes) > 0 {
		var or []string
		for _, s := range f.Scopes {
			or = append(or, "substr(d.file, 1, ?) = ? OR instr(d.files, ?) > 0")
			args = append(args, len(s), s, "\x1f"+s)
		}
		conds = append(conds, "("+strings.Join(or, " OR ")+")")
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " AND " + strings.Join(conds, " AND "), args
}

// CanEmbed reports whether dense search is available.
func (x *Index) CanEmbed() bool { return x.emb != nil }

// EmbedQuery makes the query's vector with the index's (fitted) embedder,
// within the embedder's bound for a query (embed.QueryEmbedder).
func (x *Index) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	if x.emb == nil {
		return nil, fmt.Errorf("no embedder")
	}
	return embed.Query(ctx, x.emb, text)
}

// SearchVector ranks documents by the cosine of their vector with q, by
// brute force: the unfiltered search reads the vector packs, a filtered
// one the vectors of the documents that pass. The dot products run inside
// SQLite (memctl_dot, memctl_pack), over each vector in place.
func (x *Index) SearchVector(ctx context.Context, q []float32, f Filter, k int) ([]Hit, error) {
	h, s := beginScan(q, k)
	defer endScan(h)
	var err error
	if where, args := sqlFilter(f); where == "" {
		err = x.scanPacks(ctx, h, s)
	} else {
		err = x.scanRows(ctx, h, s, `FROM vectors v JOIN docs d ON d.n = v.n WHERE v.model = ?`+where, args...)
	}
	if err != nil {
		return nil, err
	}
	top := s.best()
	ns := make([]int64, len(top))
	out := make([]Hit, len(top))
	for i, sc := range top {
		ns[i], out[i].Score = sc.n, sc.score
	}
	return out, x.fillIDs(ctx, ns, out)
}

// fillIDs sets the ids of hits from their document numbers, in one query.
func (x *Index) fillIDs(ctx context.Context, ns []int64, out []Hit) error {
	if len(ns) == 0 {
		return nil
	}
	args := make([]any, len(ns))
	for i, n := range ns {
		args[i] = n
	}
	rows, err := x.db.QueryContext(ctx, `SELECT n, id FROM docs WHERE n IN (`+placeholders(len(ns))+`)`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	ids := make(map[int64]string, len(ns))
	for rows.Next() {
		var n int64
		var id string
		if err := rows.Scan(&n, &id); err != nil {
			return err
		}
		ids[n] = id
	}
	for i, n := range ns {
		out[i].ID = ids[n]
	}
	return rows.Err()
}

// Meta is what ranking needs of a document beyond its scores.
type Meta struct {
	Kind     string
	Approved bool
	Created  time.Time
}

// Metas returns the ranking metadata of documents, by id, in one query;
// ids not in the index are absent.
func (x *Index) Metas(ctx context.Context, ids []string) (map[string]Meta, error) {
	out := make(map[string]Meta, len(ids))
	err := x.byIDs(ctx, ids, func(in string) string { return `SELECT id, kind, approved, created FROM docs WHERE id IN (` + in + `)` }, nil, nil,
		func(rows *sql.Rows) error {
			var id, kind string
			var approved int
			var created int64
			if err := rows.Scan(&id, &kind, &approved, &created); err != nil {
				return err
			}
			out[id] = newMeta(kind, approved, created)
			return nil
		})
	return out, err
}

// Select returns the ids among ids that are in the index and pass f, in
// the order given: documents found by other means than a ranking (recall
// --error's exact matches), filtered as a ranking's are.
func (x *Index) Select(ctx context.Context, ids []string, f Filter) ([]string, error) {
	where, fargs := sqlFilter(f)
	pass := make(map[string]bool, len(ids))
	err := x.byIDs(ctx, ids, func(in string) string { return `SELECT d.id FROM docs d WHERE d.id IN (` + in + `)` + where }, nil, fargs,
		func(rows *sql.Rows) error {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			pass[id] = true
			return nil
		})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(pass))
	for _, id := range ids {
		if pass[id] {
			out = append(out, id)
			delete(pass, id) // an id given twice is returned once
		}
	}
	return out, nil
}

// Docs returns the documents with these ids, in the same order; an id not
// in the index gives a zero Doc.
func (x *Index) Docs(ctx context.Context, ids []string) ([]Doc, error) {
	out := make([]Doc, len(ids))
	stmt, err := x.db.PrepareContext(ctx, `SELECT d.id, d.kind, d.ref, d.title, d.body, d.file, d.line, d.category, d.status, d.labels, d.priority, d.approved, d.created, d.files,
  coalesce(f.commit_id, '') FROM docs d LEFT JOIN files f ON f.path = d.file WHERE d.id = ?`)
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	for i, id := range ids {
		var d Doc
		var labels, files string
		var approved int
		var created int64
		err := stmt.QueryRowContext(ctx, id).Scan(&d.ID, &d.Kind, &d.Ref, &d.Title, &d.Body, &d.File, &d.Line, &d.Category, &d.Status,
			&labels, &d.Priority, &approved, &created, &files, &d.Commit)
		if err != nil {
			continue
		}
		m := newMeta(d.Kind, approved, created)
		d.Labels, d.Files, d.Approved, d.Created = splitList(labels), splitList(files), m.Approved, m.Created
		out[i] = d
	}
	return out, nil
}

// Status describes the index.
type Status struct {
	Dir      string
	Format   int
	Embedder string
	Docs     int
	Vectors  int
	Files    int
	Kinds    map[string]int
	FitDocs  int
}

// Status counts what the index holds.
func (x *Index) Status(ctx context.Context) (Status, error) {
	s := Status{Dir: x.opts.Dir, Format: FormatVersion, Embedder: x.embedderID(), Kinds: map[string]int{}}
	if x.fit != nil {
		s.FitDocs = x.fit.docs
	}
	model := ""
	if x.emb != nil {
		model = x.emb.ID()
	}
	if err := x.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM docs), (SELECT count(*) FROM vectors WHERE model = ?), (SELECT count(*) FROM files)`, model).
		Scan(&s.Docs, &s.Vectors, &s.Files); err != nil {
		return s, err
	}
	rows, err := x.db.QueryContext(ctx, `SELECT kind, count(*) FROM docs GROUP BY kind`)
	if err != nil {
		return s, err
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			return s, err
		}
		s.Kinds[k] = n
	}
	return s, rows.Err()
}
