package recall

import (
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/index"
	"github.com/memctl/memctl/internal/runs"
)

// runSource: one document per run record in .ledger/runs/<yyyy-mm>/*.json,
// read by the runs package's decoder. Its time is started_at (ended_at
// when that is unknown), which the recency half-life and --since use; its
// files are the run's files_changed, which --scope matches.
type runSource struct{}

func (runSource) Kind() string { return index.KindRun }

func (runSource) Files(root string) ([]string, error) {
	s := runs.Store{Dir: filepath.Join(root, filepath.FromSlash(config.RunsDir)), Rel: config.RunsDir}
	return s.Files()
}

func (runSource) Docs(file string, data []byte) ([]index.Doc, error) {
	r, err := runs.Decode(data, file)
	if err != nil {
		// The error names the line and field; the index keeps what it
		// had and says so.
		return nil, err
	}
	return []index.Doc{{
		ID: index.KindRun + ":" + r.RunID, Kind: index.KindRun, Ref: r.RunID, Title: runTitle(r), Body: runBody(r),
		File: file, Status: r.StatusOrUnknown(), Priority: -1, Created: r.SortTime(), Files: r.FilesChanged,
	}}, nil
}

// runTitle is what the run set out to do, else the first line of its
// first error.
func runTitle(r *runs.Record) string {
	if t := strings.TrimSpace(r.Digest.Intent); t != "" {
		return t
	}
	for _, e := range r.Errors {
		if first, _, _ := strings.Cut(strings.TrimSpace(e.Excerpt), "\n"); first != "" {
			return first
		}
	}
	return ""
}

// runBody is the digest after the intent, then what failed and where:
// error excerpts with their signatures, failing tests, the files changed.
func runBody(r *runs.Record) string {
	var lines []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			lines = append(lines, s)
		}
	}
	d := r.Digest
	add(d.Result)
	for _, list := range [][]string{d.Changes, d.Decisions, d.Gotchas, d.NextSteps} {
		for _, s := range list {
			add(s)
		}
	}
	for _, e := range r.Errors {
		add(e.Excerpt)
		add(e.Signature)
	}
	if failing := r.FailedTests(); len(failing) > 0 {
		add("Failing: " + strings.Join(failing, " "))
	}
	if len(r.FilesChanged) > 0 {
		add("Files: " + strings.Join(r.FilesChanged, " "))
	}
	return strings.Join(lines, "\n")
}
