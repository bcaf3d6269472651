package proposal

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/memctl/memctl/internal/ledger"
)

// Team preferences are the facts of category ledger.PreferencesCategory.
// Adding or removing one is a proposal like any other (same gate, policies
// and review); these are the calls memctl pref and later front-ends share.

// Default reasons of the preference proposals, for a caller that gives none:
// a preference is its own reason.
const (
	PreferenceAddReason    = "a team preference (memctl pref add)"
	PreferenceRemoveReason = "no longer a team preference (memctl pref rm)"
)

// NotPreferenceError is a removal of a fact that is not a preference.
type NotPreferenceError struct {
	FactID, Category string
}

func (e *NotPreferenceError) Error() string {
	return fmt.Sprintf("fact %s is in %s, not a preference", e.FactID, e.Category)
}

// ProposePreference files a proposal to add text to the team preferences;
// reason "" is PreferenceAddReason. It is Propose, so under an append or
// readwrite policy for preferences it is applied at once.
func (b *Book) ProposePreference(text, reason, author string, now time.Time, rand io.Reader) (*Proposal, error) {
	if reason == "" {
		reason = PreferenceAddReason
	}
	return b.Propose(Input{Action: ActionAdd, Category: ledger.PreferencesCategory, Content: text, Reason: reason, Author: author}, now, rand)
}

// ProposePreferenceRemoval files a proposal to remove the team preference
// id; reason "" is PreferenceRemoveReason. An id that names no fact is a
// *FactNotFoundError, a fact of another category a *NotPreferenceError.
func (b *Book) ProposePreferenceRemoval(id, reason, author string, now time.Time, rand io.Reader) (*Proposal, error) {
	if reason == "" {
		reason = PreferenceRemoveReason
	}
	p, err := b.Propose(Input{Action: ActionRemove, Category: ledger.PreferencesCategory, FactID: id, Reason: reason, Author: author}, now, rand)
	var mis *CategoryMismatchError
	if errors.As(err, &mis) {
		return nil, &NotPreferenceError{FactID: mis.FactID, Category: mis.FactCategory}
	}
	return p, err
}
