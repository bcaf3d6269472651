package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// parseWhen reads the time a flag names, one way for every flag that takes
// one (--defer, --since): a time (RFC 3339), a date (2026-01-02, midnight
// UTC), or a duration (72h, 90m, 3d, 2w; "+" allowed in front) counted from
// now: forward for a time to come (--defer), back for a time past
// (--since).
func parseWhen(flag, s string, now time.Time, past bool) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	d, ok := parseSpan(strings.TrimPrefix(s, "+"))
	if !ok {
		return time.Time{}, usagef(fmt.Errorf("--%s %q: want a date (2026-01-02), a time (RFC 3339) or a duration such as 72h, 3d or 2w", flag, s))
	}
	if past {
		d = -d
	}
	return now.Add(d), nil
}

// parseSpan reads a non-negative duration: Go's (72h, 90m) or whole days
// and weeks (3d, 2w), which Go's lacks.
func parseSpan(s string) (time.Duration, bool) {
	if n := len(s); n > 1 && (s[n-1] == 'd' || s[n-1] == 'w') {
		v, err := strconv.Atoi(s[:n-1])
		if err != nil || v < 0 || strconv.Itoa(v) != s[:n-1] {
			return 0, false
		}
		day := 24 * time.Hour
		if s[n-1] == 'w' {
			day *= 7
		}
		if int64(v) > math.MaxInt64/int64(day) {
			return 0, false // past what a Duration holds: it would wrap
		}
		return time.Duration(v) * day, true
	}
	d, err := time.ParseDuration(s)
	return d, err == nil && d >= 0
}
