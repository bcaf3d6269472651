package cli

import (
	"time"

	"github.com/memctl/memctl/internal/app"
)

// parseWhen reads the time the flag --flag names (app.ParseWhen: a time,
// a date or a duration from now, forward for a time to come, back for a
// time past); a value it cannot read is a usage error.
func parseWhen(flag, s string, now time.Time, past bool) (time.Time, error) {
	return app.ParseWhen("--"+flag, s, now, past)
}
