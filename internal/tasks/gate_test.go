package tasks

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/secrets"
	"github.com/memctl/memctl/internal/secrets/secretstest"
)

// writer is one way text reaches issues.jsonl; it returns the error of
// writing text through it to a store holding one issue, "bd-a1".
type writer struct {
	name, field string
	write       func(s *Store, text string) error
}

var gateNow = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

func strp(s string) *string { return &s }

var writers = []writer{
	{"create title", "title", func(s *Store, t string) error {
		_, err := s.Create(NewIssue{Title: t, Type: "task"}, "bd", Actor{Name: "a"}, gateNow)
		return err
	}},
	{"create description", "description", func(s *Store, t string) error {
		_, err := s.Create(NewIssue{Title: "x", Description: t, Type: "task"}, "bd", Actor{Name: "a"}, gateNow)
		return err
	}},
	{"create design", "design", func(s *Store, t string) error {
		_, err := s.Create(NewIssue{Title: "x", Design: t, Type: "task"}, "bd", Actor{Name: "a"}, gateNow)
		return err
	}},
	{"create acceptance", "acceptance_criteria", func(s *Store, t string) error {
		_, err := s.Create(NewIssue{Title: "x", Acceptance: t, Type: "task"}, "bd", Actor{Name: "a"}, gateNow)
		return err
	}},
	{"create notes", "notes", func(s *Store, t string) error {
		_, err := s.Create(NewIssue{Title: "x", Notes: t, Type: "task"}, "bd", Actor{Name: "a"}, gateNow)
		return err
	}},
	{"update title", "title", func(s *Store, t string) error {
		_, err := s.Update("bd-a1", Changes{Title: &t}, gateNow)
		return err
	}},
	{"update description", "description", func(s *Store, t string) error {
		_, err := s.Update("bd-a1", Changes{Description: &t}, gateNow)
		return err
	}},
	{"update design", "design", func(s *Store, t string) error {
		_, err := s.Update("bd-a1", Changes{Design: &t}, gateNow)
		return err
	}},
	{"update notes", "notes", func(s *Store, t string) error {
		_, err := s.Update("bd-a1", Changes{Notes: &t}, gateNow)
		return err
	}},
	{"update append-notes", "append_notes", func(s *Store, t string) error {
		_, err := s.Update("bd-a1", Changes{AppendNotes: &t}, gateNow)
		return err
	}},
	{"comment", "comment", func(s *Store, t string) error {
		_, err := s.AddComment("bd-a1", "a", t, rand.NewChaCha8([32]byte{}), gateNow)
		return err
	}},
	{"close reason", "close_reason", func(s *Store, t string) error {
		_, err := s.Close("bd-a1", t, gateNow)
		return err
	}},
}

const oneIssue = `{"id":"bd-a1","title":"one","notes":"old","status":"open","priority":2,"issue_type":"task","created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05Z"}` + "\n"

func TestEveryWriterRefusesSecretsAndKeepsTheStoreUnchanged(t *testing.T) {
	t.Parallel()
	for _, w := range writers {
		for _, sec := range secretstest.Secrets() {
			text := sec.Text
			if w.field == "title" {
				text = "rotate " + sec.Text
				if sec.Kind == "PEM" {
					continue // a PEM key spans lines: the title refuses its newline first
				}
			}
			t.Run(w.name+"/"+sec.Kind, func(t *testing.T) {
				s, err := Parse([]byte(oneIssue))
				if err != nil {
					t.Fatal(err)
				}
				err = w.write(s, text)
				var ref *secrets.RefusedError
				if !errors.As(err, &ref) {
					t.Fatalf("err = %v, want a *secrets.RefusedError", err)
				}
				if ref.Field != w.field || ref.Findings[0].RuleID != sec.Rule {
					t.Errorf("refused field %q rule %q, want %q and %q", ref.Field, ref.Findings[0].RuleID, w.field, sec.Rule)
				}
				if !bytes.Equal(s.Bytes(), []byte(oneIssue)) {
					t.Errorf("the store changed after a refusal:\n%s", s.Bytes())
				}
			})
		}
	}
}

func TestEveryWriterAcceptsOrdinaryText(t *testing.T) {
	t.Parallel()
	for _, w := range writers {
		for _, text := range secretstest.Ordinary() {
			s, err := Parse([]byte(oneIssue))
			if err != nil {
				t.Fatal(err)
			}
			if err := w.write(s, text); err != nil {
				t.Errorf("%s(%q) = %v, want nil", w.name, text, err)
			}
		}
	}
}

func TestWritersRefuseTerminalControls(t *testing.T) {
	t.Parallel()
	for _, w := range writers {
		s, err := Parse([]byte(oneIssue))
		if err != nil {
			t.Fatal(err)
		}
		err = w.write(s, "red \x1b[31m text")
		var te *secrets.TextError
		if !errors.As(err, &te) || te.Field != w.field || !errors.Is(err, ErrInvalid) {
			t.Errorf("%s with an ESC = %v, want a *secrets.TextError for %q that is ErrInvalid", w.name, err, w.field)
		}
		if !bytes.Equal(s.Bytes(), []byte(oneIssue)) {
			t.Errorf("%s: the store changed after a refusal", w.name)
		}
	}
	s, _ := Parse([]byte(oneIssue))
	for _, c := range []struct {
		name string
		err  func() error
	}{
		{"title with a newline", func() error { _, err := s.Update("bd-a1", Changes{Title: strp("a\nb")}, gateNow); return err }},
		{"assignee with a newline", func() error {
			_, err := s.Update("bd-a1", Changes{Assignee: strp("me\nyou")}, gateNow)
			return err
		}},
		{"label with an escape", func() error {
			_, err := s.Update("bd-a1", Changes{AddLabels: []string{"ok", "x\x1b]0;pwn\a"}}, gateNow)
			return err
		}},
		{"create label with a newline", func() error {
			_, err := s.Create(NewIssue{Title: "t", Type: "task", Labels: []string{"a\nb"}}, "bd", Actor{Name: "a"}, gateNow)
			return err
		}},
		{"external dependency id with an escape", func() error {
			return s.AddDep("bd-a1", "external:x\x1b[2J", DepBlocks, Actor{Name: "a"}, gateNow)
		}},
		{"creator name with a newline", func() error {
			_, err := s.Create(NewIssue{Title: "t", Type: "task"}, "bd", Actor{Name: "a\nb"}, gateNow)
			return err
		}},
		{"comment author with a bidi override", func() error {
			_, err := s.AddComment("bd-a1", "ev\u202eil", "hi", rand.NewChaCha8([32]byte{}), gateNow)
			return err
		}},
	} {
		if err := c.err(); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", c.name, err)
		}
	}
	if !bytes.Equal(s.Bytes(), []byte(oneIssue)) {
		t.Errorf("the store changed after refusals:\n%s", s.Bytes())
	}
}

func TestDescriptionsKeepNewlinesAndTabs(t *testing.T) {
	t.Parallel()
	s, _ := Parse([]byte(oneIssue))
	d := "Steps:\n\t1. build\r\n\t2. ship"
	iss, err := s.Update("bd-a1", Changes{Description: &d}, gateNow)
	if err != nil || iss.Description != d {
		t.Fatalf("Update = %v, %v", iss, err)
	}
}
