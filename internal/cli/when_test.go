package cli

import (
	"testing"
	"time"
)

func TestParseWhen(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		past bool
		want time.Time
	}{
		{"2026-12-01", false, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
		{"2026-12-01T08:30:00Z", true, time.Date(2026, 12, 1, 8, 30, 0, 0, time.UTC)},
		{"3d", false, now.Add(72 * time.Hour)},
		{"+3d", false, now.Add(72 * time.Hour)},
		{"2w", false, now.Add(14 * 24 * time.Hour)},
		{"2w", true, now.Add(-14 * 24 * time.Hour)}, // --since 2w: two weeks ago (it was an error)
		{"72h", true, now.Add(-72 * time.Hour)},
		{"90m", false, now.Add(90 * time.Minute)},
		{"0d", true, now},
	} {
		got, err := parseWhen("x", tc.in, now, tc.past)
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("parseWhen(%q, past=%v) = %v, %v; want %v", tc.in, tc.past, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "yesterday", "-3d", "-1h", "3x", "d", "03d", "1.5d", "3 d", "200000d", "99999999w"} {
		if _, err := parseWhen("since", in, now, true); err == nil {
			t.Errorf("parseWhen(%q) accepted it", in)
		} else if exitCode(err) != exitUsage {
			t.Errorf("parseWhen(%q): exit %d, want usage", in, exitCode(err))
		}
	}
}
