package app

import (
	"errors"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/index"
	"github.com/memctl/memctl/internal/recall"
)

func TestRecallFilter(t *testing.T) {
	root := workspace(t, "[recall.scopes]\nbackend = [\"internal/\", \"cmd/\"]\n")
	var r recorder
	s, err := Open(filepath.Join(root, ".ledger"), r.options(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		name string
		in   RecallFilter
		want index.Filter
	}{
		{"nothing", RecallFilter{}, index.Filter{}},
		{"kinds and fields pass through", RecallFilter{Kinds: []string{"task", "personal"}, Category: "c", Status: "open", Label: "l"},
			index.Filter{Kinds: []string{"task", "personal"}, Category: "c", Status: "open", Label: "l"}},
		{"since a date", RecallFilter{Since: "2026-11-01"}, index.Filter{Since: day(2026, 11, 1)}},
		{"until a date is its whole day", RecallFilter{Until: "2026-11-01"}, index.Filter{Until: day(2026, 11, 2).Add(-1)}},
		{"until a time is that time", RecallFilter{Until: "2026-11-01T08:30:00Z"}, index.Filter{Until: day(2026, 11, 1).Add(8*time.Hour + 30*time.Minute)}},
		{"until a duration is back from now", RecallFilter{Until: "2d"}, index.Filter{Until: now.Add(-48 * time.Hour)}},
		{"since and until the same day", RecallFilter{Since: "2026-11-01", Until: "2026-11-01"},
			index.Filter{Since: day(2026, 11, 1), Until: day(2026, 11, 2).Add(-1)}},
		{"scope team", RecallFilter{Scope: "team"}, index.Filter{Origin: index.OriginTeam}},
		{"scope personal", RecallFilter{Scope: "personal"}, index.Filter{Origin: index.OriginPersonal}},
		{"a named scope", RecallFilter{Scope: "backend"}, index.Filter{Scopes: []string{"internal/", "cmd/"}}},
		{"a path prefix", RecallFilter{Scope: "./team"}, index.Filter{Scopes: []string{"team"}}},
	} {
		got, err := s.RecallFilter(c.in, "--")
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !slices.Equal(got.Kinds, c.want.Kinds) || got.Category != c.want.Category || got.Status != c.want.Status || got.Label != c.want.Label ||
			!got.Since.Equal(c.want.Since) || !got.Until.Equal(c.want.Until) || got.Origin != c.want.Origin || !slices.Equal(got.Scopes, c.want.Scopes) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
	for _, c := range []struct {
		name, prefix string
		in           RecallFilter
		msg, hint    string
	}{
		{"unknown kind", "--", RecallFilter{Kinds: []string{"commit"}}, `--kind "commit": want one of fact, task, proposal, run, playbook, personal`, ""},
		{"bad since, as a tool names it", "", RecallFilter{Since: "yesterday"}, `since "yesterday": want a date (2026-01-02), a time (RFC 3339) or a duration such as 72h, 3d or 2w`, ""},
		{"bad until", "--", RecallFilter{Until: "-3d"}, `--until "-3d": want a date (2026-01-02), a time (RFC 3339) or a duration such as 72h, 3d or 2w`, ""},
		{"since after until", "--", RecallFilter{Since: "2026-11-02", Until: "2026-11-01"},
			`--since "2026-11-02" is later than --until "2026-11-01": no date is in both`, "swap them: --since 2026-11-01 --until 2026-11-02"},
		{"since after until, in durations", "", RecallFilter{Since: "1d", Until: "2d"},
			`since "1d" is later than until "2d": no date is in both`, "swap them: since 2d until 1d"},
	} {
		_, err := s.RecallFilter(c.in, c.prefix)
		var usage *UsageError
		if !errors.As(err, &usage) || err.Error() != c.msg || Hint(err) != c.hint {
			t.Errorf("%s: %v (hint %q), want the usage error %q (hint %q)", c.name, err, Hint(err), c.msg, c.hint)
		}
	}
}

func TestHalfLife(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		days float64
		want time.Duration
	}{
		{30, 30 * 24 * time.Hour},
		{0.5, 12 * time.Hour},
		{0, 0}, // none set: recall's default
		{math.NaN(), 0},
		{100_000, 100_000 * 24 * time.Hour},
		{1e9, recall.NoDecay}, // past a Duration: it wrapped to a negative, then 30 days
		{math.Inf(1), recall.NoDecay},
	} {
		if got := halfLife(c.days); got != c.want {
			t.Errorf("halfLife(%g) = %v, want %v", c.days, got, c.want)
		}
	}
}

func TestSourcesHoldThePersonalFile(t *testing.T) {
	root := workspace(t, "")
	var r recorder
	s, err := Open(filepath.Join(root, ".ledger"), r.options(map[string]string{"HOME": "/home/ann"}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var personal []recall.PersonalSource
	for _, src := range s.Sources() {
		if p, ok := src.(recall.PersonalSource); ok {
			personal = append(personal, p)
		}
	}
	want := recall.PersonalSource{Path: filepath.Join("/home/ann", ".config", "memctl", "preferences.md"), Home: "/home/ann"}
	if len(personal) != 1 || personal[0] != want {
		t.Errorf("personal sources = %+v, want %+v", personal, want)
	}
	if n := len(Sources(s.Workspace(), func(string) string { return "" })); n != len(TeamSources(s.Workspace())) {
		t.Errorf("without HOME or XDG_CONFIG_HOME: %d sources, want the team's %d", n, len(TeamSources(s.Workspace())))
	}
}
