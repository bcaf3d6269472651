package cli

import (
	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/index"
	"github.com/memctl/memctl/internal/recall"
)

// The --json shapes of recall, index and eval retrieval (docs/json.md).
// They are the CLI's own types, filled from the domain's: renaming a field
// of recall.Result or index.Status cannot change a documented contract
// without a change here, which the golden files then show.

// The recall shapes are app's (the MCP recall tool prints them too).
type (
	recallResultJSON    = app.RecallResultJSON
	recallSignatureJSON = app.RecallSignatureJSON
)

func toRecallResultsJSON(rs []recall.Result, explain bool) []recallResultJSON {
	return app.RecallResultsJSON(rs, explain)
}

// indexStatusJSON is what index --json says the index holds.
type indexStatusJSON struct {
	Dir      string         `json:"dir"`
	Format   int            `json:"format"`
	Embedder string         `json:"embedder"`
	Docs     int            `json:"docs"`
	Vectors  int            `json:"vectors"`
	Files    int            `json:"files"`
	Kinds    map[string]int `json:"kinds"`
	FitDocs  int            `json:"fit_docs,omitempty"`
}

func toIndexStatusJSON(s index.Status) *indexStatusJSON {
	return &indexStatusJSON{Dir: s.Dir, Format: s.Format, Embedder: s.Embedder, Docs: s.Docs, Vectors: s.Vectors,
		Files: s.Files, Kinds: s.Kinds, FitDocs: s.FitDocs}
}

// indexUpdateJSON is what index --json says an update did.
type indexUpdateJSON struct {
	Files    int  `json:"files"`
	Read     int  `json:"read"`
	Removed  int  `json:"removed"`
	Skipped  int  `json:"skipped"`
	Added    int  `json:"added"`
	Changed  int  `json:"changed"`
	Deleted  int  `json:"deleted"`
	Docs     int  `json:"docs"`
	Embedded int  `json:"embedded"`
	Missing  int  `json:"missing"`
	Refit    bool `json:"refit"`
}

func toIndexUpdateJSON(u index.UpdateStats) *indexUpdateJSON {
	return &indexUpdateJSON{Files: u.Files, Read: u.Read, Removed: u.Removed, Skipped: u.Skipped, Added: u.Added,
		Changed: u.Changed, Deleted: u.Deleted, Docs: u.Docs, Embedded: u.Embedded, Missing: u.Missing, Refit: u.Refit}
}
