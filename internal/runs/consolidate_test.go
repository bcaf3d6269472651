package runs

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// run is a record for the pattern tests, started hour h of a fixed day.
func run(id string, h int, status string, edit func(r *Record)) Entry {
	r := &Record{RunID: id, Status: status, StartedAt: time.Date(2026, 11, 20, h, 0, 0, 0, time.UTC)}
	if edit != nil {
		edit(r)
	}
	return Entry{Record: r}
}

func gotcha(g string) func(*Record) {
	return func(r *Record) { r.Digest.Gotchas = append(r.Digest.Gotchas, g) }
}

func failed(sig, file string, changed ...string) func(*Record) {
	return func(r *Record) {
		r.Errors = append(r.Errors, Error{Signature: sig, Excerpt: "boom in " + file, File: file})
		r.FilesChanged = append(r.FilesChanged, changed...)
	}
}

func changed(files ...string) func(*Record) {
	return func(r *Record) { r.FilesChanged = append(r.FilesChanged, files...) }
}

func keys(ps []Pattern) []string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%s %v", p.Key, p.Runs))
	}
	return out
}

func TestNormalizeGotcha(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ a, b string }{
		{"The fixture needs TZ=UTC!", "the  fixture needs tz utc"},
		{"  Ports: 7070 is taken\n", "ports 7070 is TAKEN."},
		{"Überprüfe die Datei", "überprüfe die datei"},
	} {
		if NormalizeGotcha(c.a) != NormalizeGotcha(c.b) || GotchaKey(c.a) != GotchaKey(c.b) {
			t.Errorf("%q and %q: %q vs %q; want one gotcha", c.a, c.b, NormalizeGotcha(c.a), NormalizeGotcha(c.b))
		}
	}
	if GotchaKey("the fixture needs TZ=UTC") == GotchaKey("the fixture needs TZ=CET") {
		t.Error("different gotchas share a key")
	}
	if GotchaKey(" -- !") != "" {
		t.Error("a gotcha with no words has a key")
	}
	if k := GotchaKey("x"); !strings.HasPrefix(k, "gotcha:") || len(k) != len("gotcha:")+12 {
		t.Errorf("key %q: want gotcha:<12 hex digits>", k)
	}
}

func TestPatterns(t *testing.T) {
	t.Parallel()
	t.Run("a gotcha in three runs, however written, is a pattern citing the runs oldest first", func(t *testing.T) {
		got := Patterns([]Entry{
			run("r-c", 3, StatusSuccess, gotcha("the fixture needs tz=utc")),
			run("r-a", 1, StatusSuccess, gotcha("The fixture needs TZ=UTC.")),
			run("r-b", 2, StatusFailure, gotcha("The fixture needs  TZ=UTC")),
			run("r-d", 4, StatusSuccess, gotcha("the fixture needs TZ=CET")),
		}, MinRecurrence)
		if len(got) != 1 || got[0].Kind != PatternGotcha || !slices.Equal(got[0].Runs, []string{"r-a", "r-b", "r-c"}) ||
			got[0].Text != "The fixture needs TZ=UTC." || got[0].Key != GotchaKey("the fixture needs tz utc") {
			t.Fatalf("patterns = %+v; want the TZ=UTC gotcha in r-a, r-b, r-c, worded as r-a did", got)
		}
	})
	t.Run("two runs are not enough, and one run saying it twice counts once", func(t *testing.T) {
		got := Patterns([]Entry{
			run("r-a", 1, StatusSuccess, func(r *Record) { gotcha("x y")(r); gotcha("X, y")(r) }),
			run("r-b", 2, StatusSuccess, gotcha("x y")),
		}, MinRecurrence)
		if len(got) != 0 {
			t.Fatalf("patterns = %v; want none", keys(got))
		}
	})
	t.Run("an error signature in three runs, with no fix", func(t *testing.T) {
		got := Patterns([]Entry{
			run("r-a", 1, StatusFailure, failed("0123456789ab", "")),
			run("r-b", 2, StatusFailure, failed("0123456789ab", "")),
			run("r-c", 3, StatusPartial, failed("0123456789ab", "")),
			run("r-d", 4, StatusFailure, failed("ba9876543210", "")),
		}, MinRecurrence)
		if len(got) != 1 || got[0].Key != "error:0123456789ab" || got[0].Signature != "0123456789ab" || got[0].Fix != nil || len(got[0].Runs) != 3 {
			t.Fatalf("patterns = %+v", got)
		}
	})
	t.Run("an error signature fixed by a later successful run on the same file", func(t *testing.T) {
		got := Patterns([]Entry{
			run("r-a", 1, StatusFailure, failed("0123456789ab", "a.go")),
			run("r-b", 2, StatusFailure, failed("0123456789ab", "", "b.go")),
			run("r-c", 3, StatusFailure, failed("0123456789ab", "")),
			run("r-0", 0, StatusSuccess, changed("a.go")), // before the failure: no fix
			run("r-x", 5, StatusSuccess, changed("c.go")), // other files: no fix
			run("r-y", 6, StatusSuccess, changed("./b.go")),
			run("r-z", 7, StatusSuccess, changed("a.go")),
		}, MinRecurrence)
		var errs []Pattern
		for _, p := range got {
			if p.Kind == PatternError {
				errs = append(errs, p)
			}
		}
		if len(errs) != 1 || errs[0].Fix == nil || errs[0].Fix.Fixed.RunID != "r-y" || !slices.Equal(errs[0].Fix.Failed, []string{"r-b"}) {
			t.Fatalf("error patterns = %+v; want one fixed by r-y (the first success after a failure on b.go)", errs)
		}
	})
	t.Run("a file failing in three runs: named by an error, or changed by a failed run", func(t *testing.T) {
		got := Patterns([]Entry{
			run("r-a", 1, StatusFailure, changed("internal/x.go")),
			run("r-b", 2, StatusSuccess, failed("0123456789ab", "internal/x.go")),
			run("r-c", 3, StatusFailure, changed("./internal/x.go", "y.go")),
			run("r-d", 4, StatusSuccess, changed("internal/x.go", "y.go")), // a success that changed it: not failing
		}, MinRecurrence)
		if len(got) != 1 || got[0].Key != "file:internal/x.go" || got[0].Text != "internal/x.go" || !slices.Equal(got[0].Runs, []string{"r-a", "r-b", "r-c"}) {
			t.Fatalf("patterns = %v", keys(got))
		}
	})
	t.Run("patterns come gotchas, errors, files, each by key", func(t *testing.T) {
		var es []Entry
		for i := range 3 {
			es = append(es, run(fmt.Sprintf("r-%d", i), i, StatusFailure, func(r *Record) {
				gotcha("b")(r)
				gotcha("a")(r)
				failed("0123456789ab", "f.go")(r)
			}))
		}
		got := keys(Patterns(es, MinRecurrence))
		want := []string{GotchaKey("a"), GotchaKey("b"), "error:0123456789ab", "file:f.go"}
		if GotchaKey("a") > GotchaKey("b") {
			want[0], want[1] = want[1], want[0]
		}
		for i := range got {
			got[i], _, _ = strings.Cut(got[i], " ")
		}
		if !slices.Equal(got, want) {
			t.Fatalf("order %v, want %v", got, want)
		}
	})
}

func TestFixesFor(t *testing.T) {
	t.Parallel()
	history := []Entry{
		run("r-a", 1, StatusFailure, failed("0123456789ab", "a.go", "a.go")),
		run("r-b", 2, StatusFailure, func(r *Record) {
			failed("0123456789ab", "", "a.go")(r)
			failed("ba9876543210", "", "a.go")(r)
		}),
		run("r-c", 3, StatusFailure, failed("cccccccccccc", "c.go")),
		run("r-late", 9, StatusFailure, failed("dddddddddddd", "a.go")),
	}
	t.Run("a success fixes the earlier failures that share its files, one fix per signature", func(t *testing.T) {
		fixed := run("r-fix", 5, StatusSuccess, changed("a.go")).Record
		got := FixesFor(fixed, append(history, Entry{Record: fixed}))
		if len(got) != 2 || got[0].Signature != "0123456789ab" || !slices.Equal(got[0].Failed, []string{"r-a", "r-b"}) ||
			got[0].Excerpt != "boom in" || got[1].Signature != "ba9876543210" || got[0].Fixed != fixed {
			t.Fatalf("fixes = %+v", got)
		}
		if got[0].Key() != "fix:0123456789ab:r-fix" {
			t.Errorf("key %q", got[0].Key())
		}
	})
	t.Run("a success that shares no file, or changed nothing, fixes nothing", func(t *testing.T) {
		for _, r := range []*Record{run("r-fix", 5, StatusSuccess, changed("z.go")).Record, run("r-fix", 5, StatusSuccess, nil).Record} {
			if got := FixesFor(r, history); len(got) != 0 {
				t.Errorf("fixes = %+v", got)
			}
		}
	})
	t.Run("a failure recorded after its fix finds the fix", func(t *testing.T) {
		r := run("r-old", 0, StatusFailure, failed("eeeeeeeeeeee", "", "c.go")).Record
		got := FixesFor(r, append(history, run("r-s1", 4, StatusSuccess, changed("c.go")), run("r-s2", 6, StatusSuccess, changed("c.go"))))
		if len(got) != 1 || got[0].Fixed.RunID != "r-s1" || !slices.Equal(got[0].Failed, []string{"r-old"}) {
			t.Fatalf("fixes = %+v; want eeee… fixed by r-s1, the first success after it", got)
		}
	})
	t.Run("a partial or unknown run is no fix", func(t *testing.T) {
		if got := FixesFor(run("r-p", 5, StatusPartial, changed("a.go")).Record, history); len(got) != 0 {
			t.Fatalf("fixes = %+v", got)
		}
	})
}
