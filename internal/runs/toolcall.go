package runs

import (
	"cmp"
	"context"
	"fmt"

	"github.com/memctl/memctl/internal/runs/signature"
	"github.com/memctl/memctl/internal/secrets"
)

// ToolCallRequest is one shell command of a session, recorded as it
// happens (a post-tool-use hook): so that a session that ends before its
// next flush still leaves its failures.
type ToolCallRequest struct {
	SessionID, Runtime string
	// Command, ExitCode and ErrorText are the command, its exit status
	// (-1: unknown) and, when it failed, its error text.
	Command   string
	ExitCode  int
	ErrorText string
	// Signature is ErrorText's, when the caller has taken it already; ""
	// takes it here.
	Signature string
	// Files are the files an edit tool wrote (repository-relative, slash
	// paths), for a call that is an edit, not a command (Command "").
	Files   []string
	Store   Store
	Context Context
	// Lock takes the workspace lock until release is called; nil means the
	// caller holds it.
	Lock    func(ctx context.Context) (release func(), err error)
	Secrets secrets.Policy
}

// RecordToolCall merges the command, and when it failed its error with
// the error's signature (or the files an edit wrote), into the session's
// run record (created if need be; the id a flush of the session uses),
// through the secret gate in Redact mode as a flush does. It returns the error's signature ("" for a
// command that did not fail).
func RecordToolCall(ctx context.Context, req ToolCallRequest) (string, error) {
	if req.SessionID == "" {
		return "", ErrNoSession
	}
	if req.Lock != nil {
		release, err := req.Lock(ctx)
		if err != nil {
			return "", err
		}
		defer release()
	}
	// The session's record is almost always the one its first hook call
	// created, under the id a flush derives, and a session's first call
	// finds in the hook index that no record carries it yet: neither lists
	// every run (a tool hook runs after every command). Several records
	// carrying the session: the derived id, as a flush does.
	id, _, err := req.Store.SessionRunIndexed(req.Runtime, req.SessionID)
	if err != nil {
		id = SessionRunID(req.Runtime, req.SessionID)
	}
	rec := &Record{RunID: id, SessionID: req.SessionID, Agent: Agent{Runtime: req.Runtime}, FilesChanged: req.Files}
	if req.Command != "" {
		rec.Commands = []Command{{Cmd: req.Command, ExitCode: req.ExitCode}}
	}
	sig := ""
	if req.ExitCode != 0 && req.ErrorText != "" {
		sig = cmp.Or(req.Signature, signature.Of(req.ErrorText).Hash)
		rec.Errors = []Error{{Signature: sig, Excerpt: req.ErrorText}}
	}
	rec.Fill(Context{Repo: req.Context.Repo, Branch: req.Context.Branch, CommitSHA: req.Context.CommitSHA, Actor: req.Context.Actor})
	if _, _, err := req.Store.Put(rec, PutOptions{Now: req.Context.Now, Gate: Redact, Secrets: req.Secrets}); err != nil {
		return sig, fmt.Errorf("record the command in %s: %w", id, err)
	}
	return sig, nil
}
