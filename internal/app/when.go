package app

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseWhen reads the time a parameter names, one way for every front-end
// and every parameter that takes one (--defer, --since, --until, the MCP
// recall tool's since): a time (RFC 3339), a date (2026-01-02, midnight
// UTC), or a duration (72h, 90m, 3d, 2w; "+" allowed in front) counted
// from now: forward for a time to come (--defer), back for a time past
// (--since). name is the parameter as the front-end calls it ("--since",
// "since"), for the *UsageError of a value it cannot read.
func ParseWhen(name, s string, now time.Time, past bool) (time.Time, error) {
	t, _, err := parseWhen(name, s, now, past)
	return t, err
}

// ParseUntil reads the end of a span back in time, as ParseWhen does a
// time past, but a date is the whole of that day: until 2026-01-02 takes
// in everything up to 2026-01-02T23:59:59.999999999Z.
func ParseUntil(name, s string, now time.Time) (time.Time, error) {
	t, date, err := parseWhen(name, s, now, true)
	if date {
		t = t.Add(24*time.Hour - 1)
	}
	return t, err
}

func parseWhen(name, s string, now time.Time, past bool) (t time.Time, date bool, err error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, false, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, true, nil
	}
	d, ok := parseSpan(strings.TrimPrefix(s, "+"))
	if !ok {
		return time.Time{}, false, &UsageError{Err: fmt.Errorf("%s %q: want a date (2026-01-02), a time (RFC 3339) or a duration such as 72h, 3d or 2w", name, s)}
	}
	if past {
		d = -d
	}
	return now.Add(d), false, nil
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
