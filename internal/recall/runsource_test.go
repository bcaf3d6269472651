package recall

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/index"
)

const runFile = `{
  "schema_version": 1,
  "run_id": "r-41",
  "started_at": "2026-11-20T09:00:00Z",
  "ended_at": "2026-11-20T10:00:00Z",
  "status": "partial",
  "digest": {"intent": "", "result": "half done", "changes": ["lexer keeps BOMs"], "decisions": ["keep the API"], "gotchas": ["needs TZ=UTC"], "next_steps": ["port to v2"]},
  "files_changed": ["internal/parse.go", "internal/lex.go"],
  "tests": [{"name": "TestParse", "status": "fail"}, {"name": "TestLex", "status": "pass"}],
  "errors": [{"signature": "0123456789ab", "excerpt": "parse.go:12: unexpected EOF\n\tmore", "file": "internal/parse.go", "line": 12}]
}
`

func TestRunSourceMakesOneDocumentPerRun(t *testing.T) {
	t.Parallel()
	docs, err := runSource{}.Docs(".ledger/runs/2026-11/r-41.json", []byte(runFile))
	if err != nil || len(docs) != 1 {
		t.Fatalf("Docs = %v, %v", docs, err)
	}
	d := docs[0]
	if d.ID != "run:r-41" || d.Kind != index.KindRun || d.Ref != "r-41" || d.File != ".ledger/runs/2026-11/r-41.json" {
		t.Errorf("identity %q %q %q %q", d.ID, d.Kind, d.Ref, d.File)
	}
	if d.Title != "parse.go:12: unexpected EOF" {
		t.Errorf("without an intent the title is the first error's first line, got %q", d.Title)
	}
	if d.Status != "partial" || !d.Created.Equal(time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)) || d.Approved {
		t.Errorf("status %q, created %v, approved %v", d.Status, d.Created, d.Approved)
	}
	if !slices.Equal(d.Files, []string{"internal/parse.go", "internal/lex.go"}) {
		t.Errorf("files %v", d.Files)
	}
	for _, want := range []string{"half done", "lexer keeps BOMs", "keep the API", "needs TZ=UTC", "port to v2",
		"unexpected EOF", "0123456789ab", "Failing: TestParse", "Files: internal/parse.go internal/lex.go"} {
		if !strings.Contains(d.Body, want) {
			t.Errorf("body lacks %q:\n%s", want, d.Body)
		}
	}
	if strings.Contains(d.Body, "TestLex") {
		t.Errorf("a passing test is in the body:\n%s", d.Body)
	}
}

func TestRunSourceTitleAndTime(t *testing.T) {
	t.Parallel()
	withIntent := strings.Replace(runFile, `"intent": ""`, `"intent": "fix the parser"`, 1)
	noStart := strings.Replace(withIntent, `"started_at": "2026-11-20T09:00:00Z"`, `"started_at": ""`, 1)
	docs, err := runSource{}.Docs("r.json", []byte(noStart))
	if err != nil {
		t.Fatal(err)
	}
	if docs[0].Title != "fix the parser" {
		t.Errorf("title %q, want the intent", docs[0].Title)
	}
	if !docs[0].Created.Equal(time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("without started_at the time is ended_at, got %v", docs[0].Created)
	}
}

func TestRunSourceRefusesABrokenRecordByLine(t *testing.T) {
	t.Parallel()
	_, err := runSource{}.Docs(".ledger/runs/2026-11/r-41.json", []byte(strings.Replace(runFile, `"status": "partial"`, `"status": 3`, 1)))
	if err == nil || !strings.Contains(err.Error(), "r-41.json") || !strings.Contains(err.Error(), "status") {
		t.Errorf("err = %v, want the file, line and field", err)
	}
}

func TestRunSourceListsTheMonthDirectories(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, p := range []string{".ledger/runs/2026-10/r-1.json", ".ledger/runs/2026-11/r-2.json", ".ledger/runs/2026-11/notes.txt"} {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := runSource{}.Files(root)
	if err != nil || !slices.Equal(got, []string{".ledger/runs/2026-10/r-1.json", ".ledger/runs/2026-11/r-2.json"}) {
		t.Errorf("Files = %v, %v", got, err)
	}
	if got, err := (runSource{}).Files(t.TempDir()); err != nil || len(got) != 0 {
		t.Errorf("no runs directory: %v, %v", got, err)
	}
}
