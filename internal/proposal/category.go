package proposal

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/ledger"
)

// CategoryError is a proposal for a category that has no facts file and
// was not marked as new. It lists the categories there are and, when one
// is a likely typo's target, suggests it.
type CategoryError struct {
	Category   string
	Known      []string // sorted
	Suggestion string   // "" when nothing is close
}

func (e *CategoryError) Error() string {
	return fmt.Sprintf("%v %q", ledger.ErrUnknownCategory, e.Category)
}

// Unwrap makes errors.Is(err, ledger.ErrUnknownCategory) work.
func (e *CategoryError) Unwrap() error { return ledger.ErrUnknownCategory }

// newCategoryName is the shape of a category a proposal creates: lower-case
// snake_case, so the file name is the same on every system and needs no
// quoting (existing files may use '-'; new ones do not).
var newCategoryName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`) })

// checkCategory refuses an add to a category without a facts file unless
// the proposal creates it on purpose (newCategory), with a valid name.
func checkCategory(l *ledger.Ledger, category string, newCategory bool) error {
	known := l.Categories()
	if slices.Contains(known, category) {
		return nil
	}
	if !newCategory {
		return &CategoryError{Category: category, Known: known, Suggestion: closest(category, known)}
	}
	if len(category) > 64 || !newCategoryName().MatchString(category) {
		return &RefusedError{Reason: fmt.Sprintf("%q is not a name for a new category", category),
			Hint: "use lower-case snake_case of at most 64 characters, starting with a letter: e.g. deploy_notes"}
	}
	return nil
}

// closest is the known name nearest to name, if it is close enough to be
// a typo: at most a third of the name's length, and at most 3 edits.
func closest(name string, known []string) string {
	return config.Closest(strings.ToLower(name), known, min(3, len(name)/3))
}
