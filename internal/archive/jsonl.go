package archive

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/ledger"
)

// JSONLFormat names the JSON Lines export in its first line.
const JSONLFormat = "memctl-jsonl"

// The JSON Lines export's records (docs/json.md, "export --format jsonl").
// Records kept in memctl's files as JSON (issues, proposals, runs) are
// nested under "record" as they are stored, so that any key they hold,
// "kind" included, stays theirs.
type (
	jsonlHeader struct {
		Kind          string `json:"kind"`
		Format        string `json:"format"`
		FormatVersion int    `json:"format_version"`
		MemctlVersion string `json:"memctl_version"`
		CreatedAt     string `json:"created_at"`
	}
	jsonlConfig struct {
		Kind string `json:"kind"`
		File string `json:"file"`
		Text string `json:"text"`
	}
	jsonlFact struct {
		Kind     string `json:"kind"`
		ID       string `json:"id"`
		Category string `json:"category"`
		File     string `json:"file"`
		Line     int    `json:"line"`
		EndLine  int    `json:"end_line"`
		Text     string `json:"text"`
	}
	jsonlPlaybook struct {
		Kind      string   `json:"kind"`
		Signature string   `json:"signature"`
		File      string   `json:"file"`
		Error     string   `json:"error"`
		Excerpt   string   `json:"excerpt"`
		Steps     []string `json:"steps"`
		Evidence  []string `json:"evidence"`
		Text      string   `json:"text"`
	}
	jsonlRecord struct {
		Kind   string          `json:"kind"`
		File   string          `json:"file"`
		Line   int             `json:"line,omitempty"`
		Record json.RawMessage `json:"record"`
	}
)

// Kinds of JSON Lines records beyond the file kinds.
const (
	RecordExport     = "export"
	RecordFact       = "fact"
	RecordPreference = "preference" // a fact of .ledger/facts/preferences.md: a team preference
	RecordIssue      = "issue"
	RecordBeads      = "beads_record" // a line of issues.jsonl that is not an issue (bd's memories)
)

// JSONLResult is what WriteJSONL wrote.
type JSONLResult struct {
	// Records counts the records by kind (the header line excluded).
	Records map[string]int
	// Skipped as in ExportResult; Warnings are parts of files that are not
	// records (a facts line that does not parse), left out.
	Skipped, Warnings []string
}

// WriteJSONL writes every record of the workspace at root to w, one JSON
// object per line: a header, then the config, the facts (preferences as
// kind "preference"), proposals, playbooks, runs and the lines of
// issues.jsonl, each in file order. A proposal or run file that is not
// JSON, or an issues line that is not, fails it with a *ContentError: the
// tar.gz export keeps any file, this one only records.
func WriteJSONL(w io.Writer, root string, opts ExportOptions) (*JSONLResult, error) {
	files, skipped, err := Collect(root)
	if err != nil {
		return nil, err
	}
	res := &JSONLResult{Records: map[string]int{}, Skipped: skipped}
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	put := func(kind string, v any) error {
		if kind != RecordExport {
			res.Records[kind]++
		}
		return enc.Encode(v)
	}
	if err := put(RecordExport, jsonlHeader{Kind: RecordExport, Format: JSONLFormat, FormatVersion: FormatVersion,
		MemctlVersion: opts.MemctlVersion, CreatedAt: opts.Created.UTC().Format(time.RFC3339)}); err != nil {
		return nil, err
	}
	order := []string{KindConfig, KindFacts, KindProposal, KindPlaybook, KindRun, KindIssues}
	for _, kind := range order {
		for _, f := range files {
			if f.Kind != kind {
				continue
			}
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Path)))
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", f.Path, err)
			}
			if err := jsonlFile(f, data, put, res); err != nil {
				return nil, err
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return nil, fmt.Errorf("write export: %w", err)
	}
	return res, nil
}

func jsonlFile(f File, data []byte, put func(string, any) error, res *JSONLResult) error {
	switch f.Kind {
	case KindConfig:
		return put(KindConfig, jsonlConfig{Kind: KindConfig, File: f.Path, Text: string(data)})
	case KindFacts:
		cat := strings.TrimSuffix(path.Base(f.Path), ".md")
		lf := ledger.Parse(cat, f.Path, data)
		for _, p := range lf.Problems {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s:%d: %s (left out)", f.Path, p.Line, p.Message))
		}
		kind := RecordFact
		if cat == "preferences" {
			kind = RecordPreference
		}
		for _, fact := range lf.Facts {
			if err := put(kind, jsonlFact{Kind: kind, ID: fact.ID, Category: cat, File: f.Path, Line: fact.Line, EndLine: fact.EndLine, Text: fact.Text}); err != nil {
				return err
			}
		}
	case KindPlaybook:
		pb := ledger.ParsePlaybook(f.Path, data)
		for _, p := range pb.Problems {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s:%d: %s", f.Path, p.Line, p.Message))
		}
		return put(KindPlaybook, jsonlPlaybook{Kind: KindPlaybook, Signature: strings.TrimSuffix(path.Base(f.Path), ".md"), File: f.Path,
			Error: pb.Error, Excerpt: pb.Excerpt, Steps: nonNil(pb.StepTexts()), Evidence: nonNil(pb.Evidence), Text: string(data)})
	case KindProposal, KindRun:
		raw, err := compactObject(f.Path, 1, data)
		if err != nil {
			return err
		}
		return put(f.Kind, jsonlRecord{Kind: f.Kind, File: f.Path, Record: raw})
	case KindIssues:
		for i, line := range bytes.Split(data, []byte{'\n'}) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			raw, err := compactObject(f.Path, i+1, line)
			if err != nil {
				return err
			}
			var t struct {
				Type *string `json:"_type"`
			}
			_ = json.Unmarshal(raw, &t)
			kind := RecordIssue
			if t.Type != nil && *t.Type != "issue" {
				kind = RecordBeads
			}
			if err := put(kind, jsonlRecord{Kind: kind, File: f.Path, Line: i + 1, Record: raw}); err != nil {
				return err
			}
		}
	}
	return nil
}

// compactObject returns data, a JSON object, on one line.
func compactObject(file string, line int, data []byte) (json.RawMessage, error) {
	data = bytes.TrimPrefix(bytes.TrimSpace(data), []byte("\xef\xbb\xbf"))
	var b bytes.Buffer
	if len(data) == 0 || data[0] != '{' || json.Compact(&b, data) != nil {
		return nil, &ContentError{Path: file, Line: line, Message: "not a JSON object, so not a record (memctl check says what is wrong; the tar.gz export keeps the file as it is)"}
	}
	return b.Bytes(), nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
