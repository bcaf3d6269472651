package cli

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/secrets"
)

func TestEveryCommandHasShortAndExample(t *testing.T) {
	t.Parallel()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Short == "" {
			t.Errorf("%q has no Short", c.CommandPath())
		}
		if c.Example == "" {
			t.Errorf("%q has no Example", c.CommandPath())
		}
		if c.Runnable() && c.RunE == nil {
			t.Errorf("%q uses Run, not RunE", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(&Env{}))
}

func TestExitCode(t *testing.T) {
	t.Parallel()
	wrap := func(err error) error { return fmt.Errorf("outer: %w", withHint(fmt.Errorf("inner: %w", err), "h")) }
	for _, c := range []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errors.New("boom"), 1},
		{wrap(usagef(errors.New("bad flag"))), 2},
		{wrap(&secrets.TextError{Field: "title"}), 2},
		{wrap(&secrets.RefusedError{Field: "notes"}), 1},
		{wrap(ledger.ErrUnknownCategory), 3},
		{wrap(&notFoundError{errors.New("x")}), 3},
		{wrap(config.ErrNoWorkspace), 4},
		{wrap(gitx.ErrNotRepo), 4},
		{wrap(fsx.ErrLocked), 5},
		{wrap(context.Canceled), 130},
		{&silentError{code: 1}, 1},
		{wrap(&config.Error{File: "c", Line: 2, Message: "m"}), 1},
	} {
		if got := exitCode(c.err); got != c.want {
			t.Errorf("exitCode(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

func TestHintFor(t *testing.T) {
	t.Parallel()
	if h := hintFor(fmt.Errorf("x: %w", gitx.ErrNotRepo)); h == "" {
		t.Error("no hint for ErrNotRepo")
	}
	if h := hintFor(withHint(gitx.ErrNotRepo, "mine")); h != "mine" {
		t.Errorf("attached hint lost: %q", h)
	}
	if h := hintFor(errors.New("plain")); h != "" {
		t.Errorf("hint for a plain error: %q", h)
	}
}

func TestGitHubEscaping(t *testing.T) {
	t.Parallel()
	if got, want := ghData("50% done\r\nnext: a,b"), "50%25 done%0D%0Anext: a,b"; got != want {
		t.Errorf("ghData = %q, want %q", got, want)
	}
	if got, want := ghProperty("a:b,c%\n"), "a%3Ab%2Cc%25%0A"; got != want {
		t.Errorf("ghProperty = %q, want %q", got, want)
	}
}

// commandNames names every command and alias with the constructor that
// builds it, and nothing else: a run that builds only its command finds
// each one.
func TestCommandNamesMatchTheCommands(t *testing.T) {
	root := newRootCmd(&Env{})
	want := map[string]string{}
	for _, c := range root.Commands() {
		for _, name := range append([]string{c.Name()}, c.Aliases...) {
			want[name] = c.Name()
		}
	}
	for name, built := range want {
		if name == "help" {
			continue
		}
		ctor, ok := commandNames[name]
		if !ok {
			t.Errorf("%q (%s) is not in commandNames", name, built)
			continue
		}
		if got := ctor(&Env{}).Name(); got != built {
			t.Errorf("commandNames[%q] builds %q, want %q", name, got, built)
		}
	}
	for name := range commandNames {
		if _, ok := want[name]; !ok {
			t.Errorf("commandNames has %q, which is no command", name)
		}
	}
	if only := newRootCmd(&Env{}, "ready"); len(only.Commands()) != 1 || only.Commands()[0].Name() != "ready" {
		t.Errorf("a run of ready builds %d commands", len(only.Commands()))
	}
}
