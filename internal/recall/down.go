package recall

import (
	"errors"
	"fmt"
	"time"

	"github.com/memctl/memctl/internal/embed"
)

// denseWarning is what a search says when the dense ranking failed and
// words alone answer: one line, which for an embedder that is down
// (embed.DownError) says what failed, since when, when it is tried again
// and how to check it sooner.
func denseWarning(err error) string {
	var down *embed.DownError
	if !errors.As(err, &down) {
		return fmt.Sprintf("dense search failed (%v); words only", err)
	}
	until := down.Until.UTC().Format(time.RFC3339)
	if down.Skipped {
		return fmt.Sprintf("dense search skipped: %s has failed since %s (%v); words only until %s (memctl doctor checks it at once)",
			down.ID, down.Since.UTC().Format(time.RFC3339), down.Err, until)
	}
	return fmt.Sprintf("dense search failed (%v); words only, and %s is skipped until %s (memctl doctor checks it at once)", down.Err, down.ID, until)
}
