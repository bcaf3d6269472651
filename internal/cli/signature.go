package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/runs/signature"
)

type signatureOptions struct {
	json bool
}

func newSignatureCmd(env *Env) *cobra.Command {
	var opts signatureOptions
	cmd := &cobra.Command{
		Use:   "signature [text | -]",
		Short: "Print the signature of an error text: a stable hash and the normalised text",
		Long: `Signature normalises an error text (the argument, or stdin when there is none
or it is -) and prints its hash on the first line and the normalised text
after it. The same failure on another machine or another day gets the same
signature: paths, line numbers, addresses, ids, times, durations and other
numbers are normalised, and only the top frames of a stack are kept
(memctl help runs, "Error signatures"). Run records, playbooks and
recall --error name errors by this hash. It needs no workspace.`,
		Example: `  go test ./... 2>&1 | memctl signature
  memctl signature 'bash: foo: command not found'
  memctl signature --json < failure.log`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef(fmt.Errorf("give the error text as one argument (quote it) or on stdin; got %d arguments", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSignature(cmd.Context(), env, opts, args)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON (the shape: memctl help json)")
	return cmd
}

// signatureJSON is signature --json.
type signatureJSON struct {
	SchemaVersion int    `json:"schema_version"`
	Signature     string `json:"signature"`
	Normalized    string `json:"normalized"`
}

// errNoErrorText and errOnlyNoise refuse an error text to take the
// signature of (signature, recall --error).
var (
	errNoErrorText = errors.New("no error text: give it as an argument or on stdin")
	errOnlyNoise   = errors.New("nothing of the error text is left once normalised: it holds only blank lines, colour codes or a test runner's progress (=== RUN, --- PASS, ok lines)")
)

// errorText is the error text given, or stdin's when it is "-"; blank is a
// usage error.
func errorText(env *Env, text string) (string, error) {
	if text == "-" {
		b, err := io.ReadAll(env.In)
		if err != nil {
			return "", fmt.Errorf("read the error text from stdin: %w", err)
		}
		text = string(b)
	}
	if strings.TrimSpace(text) == "" {
		return "", usagef(errNoErrorText)
	}
	return text, nil
}

func runSignature(_ context.Context, env *Env, opts signatureOptions, args []string) error {
	from := "-"
	switch {
	case len(args) == 1:
		from = args[0]
	case env.StdinTTY:
		return usagef(errNoErrorText)
	}
	text, err := errorText(env, from)
	if err != nil {
		return err
	}
	sig := signature.Of(text)
	if sig.Text == "" {
		return usagef(errOnlyNoise)
	}
	if opts.json {
		return writeJSON(env.Out, signatureJSON{SchemaVersion: schemaVersion, Signature: sig.Hash, Normalized: sig.Text})
	}
	_, err = fmt.Fprintf(env.Out, "%s\n%s\n", sig.Hash, visible(sig.Text))
	return err
}
