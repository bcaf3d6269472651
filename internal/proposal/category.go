package proposal

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

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

// closest is the known name nearest to name by edit distance, if it is
// close enough to be a typo: at most a third of the name's length, and at
// most 3 edits. Ties go to the first in known.
func closest(name string, known []string) string {
	name = strings.ToLower(name)
	best, bestD := "", min(3, len(name)/3)+1
	for _, k := range known {
		if d := editDistance(name, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes
// (category names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
