package tasks

import (
	"errors"
	"fmt"

	"github.com/memctl/memctl/internal/secrets"
)

// text is one piece of text a write stores, for the gate: where it is, so
// that redact mode can write the redacted text back.
type text = secrets.Text

// gate passes the text a write stores through the one write gate, under
// the store's policy (Secrets). A character a terminal would act on is a
// *ValidationError (bad input); a secret is a *secrets.RefusedError in
// refuse mode, and in redact mode is replaced in place, the replacement
// added to Redactions.
func (s *Store) gate(ts ...text) error {
	red, err := s.Secrets.Pass(ts...)
	var te *secrets.TextError
	if errors.As(err, &te) {
		return &ValidationError{Field: te.Field, Message: fmt.Sprintf("has %s at line %d, column %d", te.What, te.Line, te.Column), Cause: te}
	}
	if err != nil {
		return err
	}
	s.Redactions = append(s.Redactions, red...)
	return nil
}

// oneLineField and textField are gate fields: one-line (titles, names, labels) and
// multi-line (descriptions, notes, comments).
func oneLineField(name string, s *string) text { return text{Name: name, S: s, OneLine: true} }
func textField(name string, s *string) text    { return text{Name: name, S: s} }

func labelFields(name string, labels []string) []text {
	out := make([]text, len(labels))
	for i := range labels {
		out[i] = oneLineField(name, &labels[i])
	}
	return out
}
