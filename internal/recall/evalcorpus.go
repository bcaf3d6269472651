package recall

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/memctl/memctl/internal/index"
)

// Corpus is one corpus of a benchmark: a folder with corpus.jsonl and
// qrels.tsv, and the queries.jsonl asked of it.
type Corpus struct {
	// Name is the folder's name (the benchmark directory's own base name
	// for a corpus at its top).
	Name string
	// Dir holds corpus.jsonl and qrels.tsv; Queries is its
	// queries.jsonl, or the benchmark directory's when it has none.
	Dir     string
	Queries string
}

// FindCorpora lists the corpora of the benchmark in dir: dir itself if it
// holds a corpus.jsonl, then each folder in it that holds one, by name.
// A folder without its own queries.jsonl takes dir's (the queries are
// the same, the documents and judgements differ: dialogue turns, facts
// drawn from them, session summaries).
func FindCorpora(dir string) ([]Corpus, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s: %w", dir, errNoCorpus)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	var out []Corpus
	top := filepath.Join(dir, "queries.jsonl")
	if isFile(filepath.Join(dir, "corpus.jsonl")) {
		out = append(out, Corpus{Name: filepath.Base(abs), Dir: dir, Queries: top})
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries { // sorted by name
		sub := filepath.Join(dir, e.Name())
		if !isFile(filepath.Join(sub, "corpus.jsonl")) {
			continue
		}
		c := Corpus{Name: e.Name(), Dir: sub, Queries: top}
		if isFile(filepath.Join(sub, "queries.jsonl")) {
			c.Queries = filepath.Join(sub, "queries.jsonl")
		}
		if len(out) > 0 && out[0].Name == c.Name {
			return nil, fmt.Errorf("%s: the folder %s has the benchmark's own name; rename it to tell the corpora apart", dir, e.Name())
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w", dir, errNoCorpus)
	}
	return out, nil
}

// isFile reports whether path is a file or a link to one.
func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// evalInput is a corpus read.
type evalInput struct {
	corpus, queries []evalRow
	qrels           map[string]map[string]float64
}

func (c Corpus) read() (evalInput, error) {
	var in evalInput
	var err error
	if in.corpus, err = readRows(filepath.Join(c.Dir, "corpus.jsonl")); err != nil {
		return in, err
	}
	if in.queries, err = readRows(c.Queries); err != nil {
		return in, err
	}
	in.qrels, err = readQrels(filepath.Join(c.Dir, "qrels.tsv"))
	return in, err
}

// hasField reports whether a document of the corpus has the meta field:
// a --group-by that names none (a typo) would rank every query in one
// group, silently.
func (in evalInput) hasField(field string) bool {
	for _, r := range in.corpus {
		if _, ok := r.Meta[field]; ok {
			return true
		}
	}
	return false
}

// groups splits the corpus by the meta field, in the order each group
// first appears.
func (in evalInput) groups(field string) (map[string][]index.Doc, []string) {
	groups := map[string][]index.Doc{}
	var order []string
	for _, r := range in.corpus {
		g := r.group(field)
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], index.Doc{ID: r.ID, Kind: "doc", Ref: r.ID, Body: r.Text, File: "corpus.jsonl", Priority: -1})
	}
	return groups, order
}

// judged are the queries with at least one relevant document, the ones a
// mean is taken over (as score_retrieval.py takes it); the rest have
// nothing to find. A query ID that comes again counts once, as the
// scorer counts it.
func (in evalInput) judged() []evalRow {
	var out []evalRow
	seen := map[string]bool{}
	for _, q := range in.queries {
		if seen[q.ID] {
			continue
		}
		seen[q.ID] = true
		for _, r := range in.qrels[q.ID] {
			if r > 0 {
				out = append(out, q)
				break
			}
		}
	}
	return out
}

// WriteTREC writes a mode's ranked lists as a TREC run: "query Q0 doc
// rank score tag" per line, tag the mode. Scores fall as ranks rise; equal
// scores are ranked by document ID.
func WriteTREC(w io.Writer, mode string, run []Ranked) error {
	bw := bufio.NewWriter(w)
	for _, r := range run {
		for i, d := range r.Docs {
			fmt.Fprintf(bw, "%s Q0 %s %d %s %s\n", r.Query, d, i+1, strconv.FormatFloat(r.Scores[i], 'f', -1, 64), mode)
		}
	}
	return bw.Flush()
}

type evalRow struct {
	ID   string         `json:"id"`
	Text string         `json:"text"`
	Meta map[string]any `json:"meta"`
}

func (r evalRow) group(field string) string {
	if field == "" {
		return ""
	}
	v, ok := r.Meta[field]
	if !ok || v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

func readRows(path string) ([]evalRow, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []evalRow
	for n, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var r evalRow
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n+1, err)
		}
		if r.ID == "" {
			return nil, fmt.Errorf("%s:%d: field \"id\" is missing", path, n+1)
		}
		if strings.ContainsFunc(r.ID, isSpace) {
			// qrels.tsv and run files separate their fields by white
			// space.
			return nil, fmt.Errorf("%s:%d: field \"id\" %q holds white space; qrels and run files could not name it", path, n+1, r.ID)
		}
		out = append(out, r)
	}
	return out, nil
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
}

// readQrels reads query_id, doc_id and relevance per line, tab- or
// space-separated; a header line (a relevance that is not a number) is
// skipped.
func readQrels(path string) (map[string]map[string]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]map[string]float64{}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		parts := strings.Fields(sc.Text())
		if len(parts) == 0 {
			continue
		}
		if len(parts) == 4 { // TREC: qid 0 doc rel
			parts = []string{parts[0], parts[2], parts[3]}
		}
		if len(parts) != 3 {
			return nil, fmt.Errorf("%s:%d: want query_id, doc_id and relevance", path, n)
		}
		rel, err := strconv.ParseFloat(parts[2], 64)
		if err != nil {
			if n == 1 {
				continue // header
			}
			return nil, fmt.Errorf("%s:%d: relevance %q is not a number", path, n, parts[2])
		}
		if out[parts[0]] == nil {
			out[parts[0]] = map[string]float64{}
		}
		out[parts[0]][parts[1]] = rel
	}
	return out, sc.Err()
}
