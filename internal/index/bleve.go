package index

import (
	"fmt"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	bleveindex "github.com/blevesearch/bleve_index_api"
)

// Fields of a document in Bleve. Only the words are searched there; the
// text itself and everything shown come from SQLite, so nothing is stored.
const (
	fieldText     = "text"
	fieldKind     = "kind"
	fieldCategory = "category"
	fieldStatus   = "status"
	fieldLabels   = "labels"
	fieldPath     = "path"
	fieldCreated  = "created"
)

// newMapping is the Bleve mapping: English analysis (stop words,
// possessives, Porter stemming) for the text, keywords for the filters,
// and BM25 scoring.
func newMapping() mapping.IndexMapping {
	text := bleve.NewTextFieldMapping()
	text.Analyzer = en.AnalyzerName
	text.Store = false
	text.IncludeTermVectors = false
	text.IncludeInAll = false
	text.DocValues = false

	kw := func() *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Analyzer = keyword.Name
		f.Store = false
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	created := bleve.NewDateTimeFieldMapping()
	created.Store = false
	created.IncludeInAll = false
	created.DocValues = false

	doc := bleve.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt(fieldText, text)
	for _, f := range []string{fieldKind, fieldCategory, fieldStatus, fieldLabels, fieldPath} {
		doc.AddFieldMappingsAt(f, kw())
	}
	doc.AddFieldMappingsAt(fieldCreated, created)

	m := bleve.NewIndexMapping()
	m.DefaultMapping = doc
	m.DefaultAnalyzer = en.AnalyzerName
	m.ScoringModel = bleveindex.BM25Scoring
	m.StoreDynamic = false
	m.IndexDynamic = false
	m.DocValuesDynamic = false
	return m
}

// bleveDoc is what Bleve indexes of a document.
func bleveDoc(d *Doc) map[string]any {
	paths := append([]string{d.File}, d.Files...)
	m := map[string]any{
		fieldText: d.Text(),
		fieldKind: d.Kind,
		fieldPath: paths,
	}
	if d.Category != "" {
		m[fieldCategory] = d.Category
	}
	if d.Status != "" {
		m[fieldStatus] = d.Status
	}
	if len(d.Labels) > 0 {
		m[fieldLabels] = d.Labels
	}
	if !d.Created.IsZero() {
		m[fieldCreated] = d.Created.UTC()
	}
	return m
}

// textLength is how many terms Bleve indexes of a document's text: the
// length BM25 normalises by.
func (x *Index) textLength(d *Doc) int {
	if x.analyzer == nil {
		x.analyzer = x.bm.Mapping().AnalyzerNamed(en.AnalyzerName)
	}
	return len(x.analyzer.Analyze([]byte(d.Text())))
}

// bm25Stats are the corpus statistics BM25 scores with: the number of
// documents and the total length of their text, from SQLite. Bleve would
// otherwise take the average length from its segments' term dictionaries,
// which depend on how the segments happen to be laid out (an index updated
// in steps and the same index rebuilt scored differently). nil when the
// index has no documents yet.
func (x *Index) bm25Stats() (*search.BM25Stats, error) {
	var docs, words int
	err := x.db.QueryRow(`SELECT coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key='docs'), 0),
  coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key='words'), 0)`).Scan(&docs, &words)
	if err != nil {
		return nil, fmt.Errorf("recall index: read the BM25 statistics: %w", err)
	}
	if docs == 0 {
		return nil, nil
	}
	// The filters' keyword fields are searched too, though they add nothing
	// to the score; Bleve wants a length for every field it searches, and
	// for "*", the field of the searcher it makes when it optimises a
	// disjunction (the scopes filter).
	card := map[string]int{fieldText: words}
	for _, f := range []string{fieldKind, fieldCategory, fieldStatus, fieldLabels, fieldPath, fieldCreated, "*"} {
		card[f] = docs
	}
	return &search.BM25Stats{DocCount: float64(docs), FieldCardinality: card}, nil
}
