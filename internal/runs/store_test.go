package runs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/runs/signature"

	"github.com/memctl/memctl/internal/secrets"
)

var day0 = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

func newStore(t *testing.T) Store {
	t.Helper()
	return Store{Dir: filepath.Join(t.TempDir(), "runs"), Rel: ".ledger/runs"}
}

func mustPut(t *testing.T, s Store, r *Record) Entry {
	t.Helper()
	e, _, err := s.Put(r, PutOptions{Now: day0})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestPutMergesIntoOneFileInItsFirstMonth(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	e, created, err := s.Put(&Record{RunID: "r-1", StartedAt: day0.AddDate(0, -1, 0), TaskIDs: []string{"a"}}, PutOptions{Now: day0})
	if err != nil || !created || e.Path != ".ledger/runs/2026-10/r-1.json" {
		t.Fatalf("first put: %+v %v %v", e, created, err)
	}
	e, created, err = s.Put(&Record{RunID: "r-1", StartedAt: day0.AddDate(0, -2, 0), TaskIDs: []string{"b"}}, PutOptions{Now: day0})
	if err != nil || created || e.Path != ".ledger/runs/2026-10/r-1.json" {
		t.Fatalf("second put: %+v %v %v", e, created, err)
	}
	got, err := s.Get("r-1")
	if err != nil || strings.Join(got.Record.TaskIDs, ",") != "a,b" || !got.Record.StartedAt.Equal(day0.AddDate(0, -2, 0)) {
		t.Errorf("merged record: %+v %v", got.Record, err)
	}
	files, _ := filepath.Glob(filepath.Join(s.Dir, "*", "*.json"))
	if len(files) != 1 {
		t.Errorf("files %v, want one", files)
	}
}

func TestPutWithoutStartUsesTheMonthOfTheWrite(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	if e := mustPut(t, s, &Record{RunID: "r-2"}); e.Path != ".ledger/runs/2026-11/r-2.json" {
		t.Errorf("path %s", e.Path)
	}
}

func TestPutNeverRewritesABadFile(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	p := filepath.Join(s.Dir, "2026-11", "r-3.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	bad := "{\n  \"run_id\": \"r-3\",\n  \"tests\": 5\n}\n"
	os.WriteFile(p, []byte(bad), 0o644)
	_, _, err := s.Put(&Record{RunID: "r-3", Status: StatusSuccess}, PutOptions{Now: day0})
	var fe *FileError
	if !errors.As(err, &fe) || fe.Path != ".ledger/runs/2026-11/r-3.json" || fe.Line != 3 || fe.Field != "tests" {
		t.Fatalf("got %v, want the file, line 3, field tests", err)
	}
	if data, _ := os.ReadFile(p); string(data) != bad {
		t.Error("the bad file was rewritten")
	}
}

func TestPutGate(t *testing.T) {
	t.Parallel()
	token := "ghp_R8x2Lq9ZpT4vW7nK1mB5cY3dF6gH0jS2aE9u"
	rec := func() *Record {
		return &Record{RunID: "r-4", Digest: Digest{Gotchas: []string{"ok", "the token is " + token}},
			Errors: []Error{{Excerpt: "x\x1b[31m " + strings.Repeat("é", 400)}}}
	}
	s := newStore(t)
	_, _, err := s.Put(rec(), PutOptions{Now: day0, Gate: Refuse})
	var text *secrets.TextError
	if !errors.As(err, &text) || text.Field != "errors[0].excerpt" {
		t.Fatalf("refuse: got %v, want the escape in errors[0].excerpt refused", err)
	}
	r := rec()
	r.Errors = nil
	_, _, err = s.Put(r, PutOptions{Now: day0, Gate: Refuse})
	var ref *secrets.RefusedError
	if !errors.As(err, &ref) || ref.Field != "digest.gotchas[1]" {
		t.Fatalf("refuse: got %v, want the token in digest.gotchas[1] refused", err)
	}
	if _, err := s.Find("r-4"); !errors.Is(err, ErrNotFound) {
		t.Fatal("a refused record was written")
	}
	e, _, err := s.Put(rec(), PutOptions{Now: day0, Gate: Redact})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(s.Dir, "2026-11", "r-4.json"))
	switch {
	case strings.Contains(string(data), token):
		t.Error("redact mode wrote the token")
	case !strings.Contains(e.Record.Digest.Gotchas[1], "[REDACTED:github-pat]"):
		t.Errorf("gotcha %q", e.Record.Digest.Gotchas[1])
	case strings.ContainsRune(string(data), 0x1b):
		t.Error("redact mode wrote an escape character")
	case len([]rune(e.Record.Errors[0].Excerpt)) != MaxExcerpt:
		t.Errorf("excerpt of %d characters", len([]rune(e.Record.Errors[0].Excerpt)))
	case e.Record.Errors[0].Signature != signature.Of(rec().Errors[0].Excerpt).Hash:
		t.Errorf("signature %q, want the one of the full text", e.Record.Errors[0].Signature)
	}
}

func TestPutRefusesUnknownKeysWithSecrets(t *testing.T) {
	t.Parallel()
	r, err := Decode([]byte(`{"run_id":"r-5","note":"AKIAIOSFODNN7EXAMPLQ and aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEZ"}`), "stdin")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = newStore(t).Put(r, PutOptions{Now: day0})
	var ref *secrets.RefusedError
	if !errors.As(err, &ref) || ref.Field != "note" {
		t.Errorf("got %v, want the unknown key refused by name", err)
	}
}

func TestPutInvalid(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	for _, r := range []*Record{{RunID: "../x"}, {RunID: "r-1", Status: "done"}, {RunID: "r-1", Tests: []Test{{Name: "T", Status: "ok"}}}} {
		var inv *InvalidError
		if _, _, err := s.Put(r, PutOptions{Now: day0}); !errors.As(err, &inv) {
			t.Errorf("%+v: got %v, want an *InvalidError", r, err)
		}
	}
}

func TestListFiltersNewestFirst(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	mustPut(t, s, &Record{RunID: "r-old", StartedAt: day0.AddDate(0, -3, 0), TaskIDs: []string{"a"}, Status: StatusSuccess})
	mustPut(t, s, &Record{RunID: "r-mid", StartedAt: day0.AddDate(0, 0, -2), EndedAt: day0, TaskIDs: []string{"a", "b"}, Status: StatusFailure,
		Errors: []Error{{Signature: "0123456789ab", Excerpt: "boom"}, {Excerpt: "bang"}}})
	mustPut(t, s, &Record{RunID: "r-new", StartedAt: day0.Add(time.Hour)})
	mustPut(t, s, &Record{RunID: "r-new2", StartedAt: day0.Add(time.Hour)})
	p := filepath.Join(s.Dir, "2026-11", "r-bad.json")
	os.WriteFile(p, []byte("{\"run_id\": \"r-bad\",\n\"status\": 1}"), 0o644)
	for _, tc := range []struct {
		name string
		f    Filter
		want string
	}{
		{"all, newest first, ties by id", Filter{}, "r-new,r-new2,r-mid,r-old"},
		{"task", Filter{TaskID: "a"}, "r-mid,r-old"},
		{"status", Filter{Status: StatusFailure}, "r-mid"},
		{"unknown status", Filter{Status: StatusUnknown}, "r-new,r-new2"},
		{"since counts the end", Filter{Since: day0.Add(-time.Minute)}, "r-new,r-new2,r-mid"},
		{"limit", Filter{Limit: 1}, "r-new"},
		{"signature given", Filter{Signature: "0123456789ab"}, "r-mid"},
		{"signature filled in", Filter{Signature: signature.Of("bang").Hash}, "r-mid"},
		{"signature nobody has", Filter{Signature: "ffffffffffff"}, ""},
	} {
		l, err := s.List(tc.f)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, e := range l.Entries {
			ids = append(ids, e.Record.RunID)
		}
		if got := strings.Join(ids, ","); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
		if len(l.Problems) != 1 || !strings.Contains(l.Problems[0].Error(), `.ledger/runs/2026-11/r-bad.json:2: field "status"`) {
			t.Errorf("%s: problems %v, want the bad file with line and field", tc.name, l.Problems)
		}
	}
}

func TestListReadsWhatDecodeReads(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	p := filepath.Join(s.Dir, "2026-11", "r-abc.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(full), 0o644)
	l, err := s.List(Filter{})
	if err != nil || len(l.Entries) != 1 {
		t.Fatal(l, err)
	}
	want, _ := Decode([]byte(full), "x")
	want.extra = nil
	want.Agent.extra, want.Digest.extra, want.Commands[0].extra = nil, nil, nil
	if got := string(Encode(l.Entries[0].Record)); got != string(Encode(want)) {
		t.Errorf("list read\n%s\nwant\n%s", got, Encode(want))
	}
}

func TestGC(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := Store{Dir: filepath.Join(root, "runs"), Rel: ".ledger/runs"}
	old := day0.AddDate(0, 0, -200)
	mustPut(t, s, &Record{RunID: "r-gone", StartedAt: old})
	mustPut(t, s, &Record{RunID: "r-cited", StartedAt: old})
	mustPut(t, s, &Record{RunID: "r-cited2", StartedAt: old.Add(time.Hour)})
	mustPut(t, s, &Record{RunID: "r-recent", StartedAt: old, EndedAt: day0.AddDate(0, 0, -10)})
	mustPut(t, s, &Record{RunID: "r-timeless"})
	os.Remove(filepath.Join(s.Dir, "2026-11", "r-timeless.json"))
	os.WriteFile(filepath.Join(s.Dir, "2026-11", "r-timeless.json"), []byte(`{"run_id":"r-timeless"}`), 0o644)
	os.MkdirAll(filepath.Join(root, "facts"), 0o755)
	os.MkdirAll(filepath.Join(root, "proposals"), 0o755)
	os.WriteFile(filepath.Join(root, "facts", "pitfalls.md"), []byte("- see run:r-cited. And r-gone2 is not r-gone-x.\n"), 0o644)
	os.WriteFile(filepath.Join(root, "proposals", "p-1.json"), []byte(`{"evidence":[{"kind":"run","ref":"r-cited2"}]}`), 0o644)
	os.WriteFile(filepath.Join(root, "proposals", "p-2.md"), []byte(`r-gone`), 0o644) // wrong extension
	opts := GCOptions{Now: day0, KeepDays: 180, DryRun: true, Citing: []Citing{
		{Dir: filepath.Join(root, "facts"), Rel: ".ledger/facts", Ext: ".md"},
		{Dir: filepath.Join(root, "proposals"), Rel: ".ledger/proposals", Ext: ".json"},
		{Dir: filepath.Join(root, "playbooks"), Rel: ".ledger/playbooks", Ext: ".md"},
	}}
	for _, dry := range []bool{true, false} {
		opts.DryRun = dry
		res, err := s.GC(opts)
		if err != nil {
			t.Fatal(err)
		}
		var deleted, kept []string
		for _, e := range res.Deleted {
			deleted = append(deleted, e.Record.RunID)
		}
		for _, k := range res.Kept {
			kept = append(kept, k.Record.RunID+"<"+strings.Join(k.By, "+"))
		}
		if got := strings.Join(deleted, ","); got != "r-gone" {
			t.Errorf("dry %v: deleted %s", dry, got)
		}
		if got := strings.Join(kept, ","); got != "r-cited<.ledger/facts/pitfalls.md,r-cited2<.ledger/proposals/p-1.json" {
			t.Errorf("dry %v: kept %s", dry, got)
		}
		_, err = s.Find("r-gone")
		if dry == errors.Is(err, ErrNotFound) {
			t.Errorf("dry %v: r-gone found: %v", dry, err)
		}
	}
	for _, id := range []string{"r-cited", "r-cited2", "r-recent", "r-timeless"} {
		if _, err := s.Get(id); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
	if res, _ := s.GC(GCOptions{Now: day0.AddDate(10, 0, 0), KeepDays: 0}); len(res.Deleted) != 0 {
		t.Error("keep_days 0 deleted runs")
	}
}

func TestCites(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]bool{
		"run:r-1":     true,
		"(r-1)":       true,
		"r-1.":        true,
		"r-1.json":    false,
		"r-12":        false,
		"xr-1":        false,
		`"ref":"r-1"`: true,
		"r-1_2 r-1":   true,
	} {
		if got := cites(text, "r-1"); got != want {
			t.Errorf("cites(%q) = %v", text, got)
		}
	}
}

// TestPutReturnsWhatItWrote: the record Put returns has the file's times,
// whole seconds in UTC, not the caller's nanoseconds and zone.
func TestPutReturnsWhatItWrote(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	at := time.Date(2026, 11, 20, 11, 30, 15, 659485357, time.FixedZone("CET", 3600))
	e, _, err := s.Put(&Record{RunID: "r-ns", StartedAt: at, EndedAt: at.Add(time.Minute)}, PutOptions{Now: day0.Add(72 * time.Hour), Gate: Refuse})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := s.Get("r-ns")
	if err != nil {
		t.Fatal(err)
	}
	if !e.Record.StartedAt.Equal(stored.Record.StartedAt) || e.Record.StartedAt.Nanosecond() != 0 || e.Record.StartedAt.Location() != time.UTC {
		t.Errorf("Put returned started_at %v, the file has %v", e.Record.StartedAt, stored.Record.StartedAt)
	}
}
