package runs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writePlaybook(t *testing.T, dir, sig, evidence string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "# Playbook " + sig + "\n\n## Error\n\n```text\nboom in " + sig + "\n```\n\n## Fix\n\n1. Do it.\n\n## Evidence\n\n" + evidence
	if err := os.WriteFile(filepath.Join(dir, sig+".md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWarnListsFailuresInTheFilesNewestFirst(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	books := filepath.Join(filepath.Dir(s.Dir), "playbooks")
	mustPut(t, s, &Record{RunID: "r-old", StartedAt: day0.AddDate(0, 0, -9), Status: StatusFailure, FilesChanged: []string{"internal/parse.go"}})
	mustPut(t, s, &Record{RunID: "r-abs", StartedAt: day0.AddDate(0, 0, -5), FilesChanged: []string{"/home/ann/app/internal/parse.go"},
		Tests: []Test{{Name: "TestParse", Status: TestFail}, {Name: "TestLex", Status: TestPass}}})
	mustPut(t, s, &Record{RunID: "r-err", StartedAt: day0.AddDate(0, 0, -2), Status: StatusSuccess,
		Errors: []Error{{Signature: "aaaaaaaaaaaa", Excerpt: "elsewhere", File: "cmd/main.go"}, {Signature: "bbbbbbbbbbbb", Excerpt: "parse.go:3: EOF", File: "parse.go", Line: 3}}})
	mustPut(t, s, &Record{RunID: "r-fine", StartedAt: day0.AddDate(0, 0, -1), Status: StatusSuccess, FilesChanged: []string{"internal/parse.go"}})
	mustPut(t, s, &Record{RunID: "r-elsewhere", StartedAt: day0, Status: StatusFailure, FilesChanged: []string{"internal/lex.go", "internal/parse.go.orig"}})
	writePlaybook(t, books, "bbbbbbbbbbbb", "- run:r-nobody\n")
	writePlaybook(t, books, "cccccccccccc", "- run:r-fine\n- commit:abc\n")
	writePlaybook(t, books, "dddddddddddd", "- run:r-elsewhere\n")

	res, err := s.Warn(WarnRequest{Files: []string{"./internal/parse.go", "internal/parse.go", ""}, PlaybooksDir: books, PlaybooksRel: ".ledger/playbooks"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Files, []string{"internal/parse.go"}) {
		t.Errorf("files %v", res.Files)
	}
	var ids []string
	for _, w := range res.Runs {
		ids = append(ids, w.Entry.Record.RunID)
	}
	// r-fine succeeded, r-elsewhere touched other files.
	if got := strings.Join(ids, ","); got != "r-err,r-abs,r-old" {
		t.Fatalf("runs %s, want r-err,r-abs,r-old", got)
	}
	errRun := res.Runs[0]
	if errRun.Errors[0].Signature != "bbbbbbbbbbbb" || errRun.Errors[0].Playbook != ".ledger/playbooks/bbbbbbbbbbbb.md" || errRun.Errors[1].Playbook != "" {
		t.Errorf("errors in the file first, with their playbook: %+v", errRun.Errors)
	}
	if !slices.Equal(res.Runs[1].FailedTests, []string{"TestParse"}) || res.Runs[1].Entry.Path != ".ledger/runs/2026-11/r-abs.json" {
		t.Errorf("r-abs: %+v", res.Runs[1])
	}
	var books2 []string
	for _, p := range res.Playbooks {
		books2 = append(books2, p.Signature+"="+strings.Join(p.Runs, "+"))
	}
	// c by its evidence run (a success that touched the file, newer), b by
	// the signature r-err met; d's evidence touched other files.
	if got := strings.Join(books2, " "); got != "cccccccccccc=r-fine bbbbbbbbbbbb=r-err" {
		t.Errorf("playbooks %s", got)
	}
	if res.Playbooks[1].Title != "boom in bbbbbbbbbbbb" || res.Playbooks[1].Path != ".ledger/playbooks/bbbbbbbbbbbb.md" {
		t.Errorf("playbook %+v", res.Playbooks[1])
	}
}

func TestWarnWithoutFilesOrHistoryIsEmpty(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	mustPut(t, s, &Record{RunID: "r-1", Status: StatusFailure, FilesChanged: []string{"a.go"}})
	for _, files := range [][]string{nil, {" ", "."}, {"b.go"}, {"xa.go"}} {
		res, err := s.Warn(WarnRequest{Files: files})
		if err != nil || len(res.Runs) != 0 || len(res.Playbooks) != 0 {
			t.Errorf("files %q: %+v, %v", files, res, err)
		}
	}
	// A base name, as a stack trace gives it, matches the path.
	res, _ := s.Warn(WarnRequest{Files: []string{"a.go"}})
	if len(res.Runs) != 1 {
		t.Errorf("a.go: %+v", res)
	}
}

// The index never says "nothing" where Warn finds something, for files
// named as sameFile matches them (absolute recorded paths, suffixes both
// ways), and the index follows new records.
func TestWarnIndexedAgreesWithWarn(t *testing.T) {
	mayWarn := func(s Store, req WarnRequest) bool {
		ids, ok := s.warnCandidates(req)
		return !ok || len(ids) > 0
	}
	s := newStore(t)
	books := filepath.Join(filepath.Dir(s.Dir), "playbooks")
	s.Index, s.Playbooks = filepath.Join(t.TempDir(), "warn.index"), books
	mustPut(t, s, &Record{RunID: "r-old", StartedAt: day0.AddDate(0, 0, -9), Status: StatusFailure, FilesChanged: []string{"internal/parse.go"}})
	mustPut(t, s, &Record{RunID: "r-abs", StartedAt: day0.AddDate(0, 0, -5), Status: StatusFailure, FilesChanged: []string{"/home/ann/app/internal/abs.go"}})
	mustPut(t, s, &Record{RunID: "r-err", StartedAt: day0.AddDate(0, 0, -2), Status: StatusSuccess,
		Errors: []Error{{Signature: "bbbbbbbbbbbb", Excerpt: "x", File: "cmd/main.go", Line: 3}}})
	mustPut(t, s, &Record{RunID: "r-fine", StartedAt: day0.AddDate(0, 0, -1), Status: StatusSuccess, FilesChanged: []string{"docs/cited.md", "docs/plain.md"}})
	writePlaybook(t, books, "cccccccccccc", "- run:r-fine\n")
	writePlaybook(t, books, "bbbbbbbbbbbb", "- run:r-nobody\n")
	req := func(f string) WarnRequest {
		return WarnRequest{Files: []string{f}, PlaybooksDir: books, PlaybooksRel: ".ledger/playbooks"}
	}
	for _, f := range []string{"internal/parse.go", "parse.go", "app/internal/parse.go", "internal/abs.go", "abs.go", "cmd/main.go",
		"main.go", "docs/cited.md", "docs/plain.md", "internal/lex.go", "parse.go.orig", "other/parse.go", "x/y/z.go"} {
		res, err := s.Warn(req(f))
		if err != nil {
			t.Fatal(err)
		}
		found := len(res.Runs) > 0 || len(res.Playbooks) > 0
		if may := mayWarn(s, req(f)); found && !may {
			t.Errorf("%s: Warn finds %d runs and %d playbooks, the index says nothing", f, len(res.Runs), len(res.Playbooks))
		}
		fast, err := s.WarnIndexed(req(f))
		if err != nil {
			t.Fatal(err)
		}
		if a, b := warnSummary(res), warnSummary(fast); a != b {
			t.Errorf("%s: Warn says %s, WarnIndexed %s", f, a, b)
		}
	}
	for _, f := range []string{"internal/lex.go", "x/y/z.go", "parse.go.orig"} {
		if mayWarn(s, req(f)) {
			t.Errorf("%s: nothing ever failed there, the index says maybe", f)
		}
	}
	// A new failure in a new file: the index, written and current, follows
	// the write without a listing.
	s.TryLock = func() (func(), bool) { return func() {}, true }
	waitRacyWindow()
	if _, err := s.WarnIndexed(req("x/y/z.go")); err != nil || !indexCurrent(t, s) {
		t.Fatalf("no index written: %v", err)
	}
	mustPut(t, s, &Record{RunID: "r-new", StartedAt: day0, Status: StatusFailure, FilesChanged: []string{"x/y/z.go"}})
	before := listings.Load()
	if !mayWarn(s, req("x/y/z.go")) {
		t.Error("the index did not follow a new record")
	}
	if n := listings.Load() - before; n != 0 {
		t.Errorf("the index was listed again %d times after a write of memctl's", n)
	}
}

// warnSummary is a result's runs (with their files and errors' playbooks)
// and playbooks (with their runs), in order.
func warnSummary(res WarnResult) string {
	var b strings.Builder
	for _, w := range res.Runs {
		b.WriteString(w.Entry.Record.RunID + strings.Join(w.Files, "+"))
		for _, e := range w.Errors {
			b.WriteString("/" + e.Playbook)
		}
		b.WriteString(" ")
	}
	for _, p := range res.Playbooks {
		b.WriteString(p.Signature + "=" + strings.Join(p.Runs, "+") + " ")
	}
	return b.String()
}
