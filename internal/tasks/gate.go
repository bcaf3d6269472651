package tasks

import (
	"errors"
	"fmt"

	"github.com/memctl/memctl/internal/secrets"
)

// gate passes the text a write stores through the one write gate
// (secrets.Check). A character a terminal would act on is a
// *ValidationError (bad input); a secret stays a *secrets.RefusedError.
func gate(fields ...secrets.Field) error {
	err := secrets.Check(fields...)
	var te *secrets.TextError
	if errors.As(err, &te) {
		return &ValidationError{Field: te.Field, Message: fmt.Sprintf("has %s at line %d, column %d", te.What, te.Line, te.Column), Cause: te}
	}
	return err
}

// oneLineField and textField are gate fields: one-line (titles, names, labels) and
// multi-line (descriptions, notes, comments).
func oneLineField(name, s string) secrets.Field {
	return secrets.Field{Name: name, Text: s, OneLine: true}
}
func textField(name, s string) secrets.Field { return secrets.Field{Name: name, Text: s} }

func labelFields(name string, labels []string) []secrets.Field {
	out := make([]secrets.Field, len(labels))
	for i, l := range labels {
		out[i] = oneLineField(name, l)
	}
	return out
}
