package tasks

import (
	"errors"
	"fmt"
	"strings"
)

// Errors callers branch on.
var (
	// ErrNotFound is returned for an issue id that does not exist.
	ErrNotFound = errors.New("issue not found")
	ErrInvalid  = errors.New("invalid value")
	// ErrClaimed: the issue is assigned to another actor. Unlike a held
	// lock, waiting does not help: the caller should pick another issue.
	ErrClaimed = errors.New("claimed by someone else")
)

// ValidationError is a bad value for a field.
type ValidationError struct {
	Field   string
	Message string
	// Cause is the gate's *secrets.TextError when the write gate refused
	// a character.
	Cause error
}

func (e *ValidationError) Error() string {
	if e.Cause != nil {
		return e.Cause.Error() // the gate's message names the field itself
	}
	return fmt.Sprintf("%s: %s", e.Field, e.Message)
}

// Unwrap makes errors.Is(err, ErrInvalid) work, and errors.As reach the
// cause.
func (e *ValidationError) Unwrap() []error {
	if e.Cause != nil {
		return []error{ErrInvalid, e.Cause}
	}
	return []error{ErrInvalid}
}

// ClaimError is returned when another actor holds the issue.
type ClaimError struct {
	ID, Holder string
}

func (e *ClaimError) Error() string {
	return fmt.Sprintf("issue %q is already claimed by %s", e.ID, e.Holder)
}

// Unwrap makes errors.Is(err, ErrClaimed) work.
func (e *ClaimError) Unwrap() error { return ErrClaimed }

// CycleError is a dependency that would close a cycle of blocking edges.
type CycleError struct{ Path []string }

func (e *CycleError) Error() string {
	return "dependency would create a cycle: " + strings.Join(e.Path, " → ")
}

// NotFoundError names the id that was not found.
type NotFoundError struct{ ID string }

func (e *NotFoundError) Error() string { return fmt.Sprintf("issue %q not found", e.ID) }

// Unwrap makes errors.Is(err, ErrNotFound) work.
func (e *NotFoundError) Unwrap() error { return ErrNotFound }
