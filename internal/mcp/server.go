// Package mcp is memctl's MCP server: a front-end beside the CLI that
// offers an agent a few tools (prime, recall, ready, task, propose,
// record_run) and the facts as resources, over stdio, with the official
// SDK. Every call opens the workspace afresh through internal/app, as a
// CLI command does, so it takes the same lock and gets the same refusals,
// with the same messages and hints; a refusal is a tool error, never the
// server's end.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/fsx"
)

// Options are what the front-end that starts the server (memctl mcp)
// takes from the process.
type Options struct {
	// Dir is where the workspace is looked for on every call: the
	// directory that holds it or any directory inside it.
	Dir string
	// Getenv, Now and Rand are the process's environment, clock and
	// randomness (app.Options).
	Getenv func(string) string
	Now    func() time.Time
	Rand   io.Reader
	// PID is the server's process id, which names it as a lock's holder.
	PID int
	// Version is memctl's version, which the server reports.
	Version string
}

// Server serves memctl's tools over one workspace. Calls are handled one
// at a time: each opens its own app session, and Rand need not be safe
// for concurrent use.
type Server struct {
	opts   Options
	mu     sync.Mutex // held by the call in progress
	closed bool       // Serve has returned: calls still queued are refused
	sdk    *sdk.Server
}

// instructions is what a client is told about the server when it
// connects: when to use which tool (the same routing rule as AGENTS.md).
const instructions = `memctl is this repository's memory, kept in plain files in git.
Start a session with the prime tool: the approved facts, your tasks in progress, the ready tasks and
the warnings for the files you are changing.
- recall searches facts, tasks, proposals, run records and playbooks by meaning and by words.
- ready lists the tasks you can start now; task creates, updates, claims, closes and comments on
  tasks (Beads' task graph, .beads/issues.jsonl).
- propose files a fact for a person to review: you never edit the facts (.ledger/facts) yourself.
  Will it matter in six months? propose it. Will the next session need it? put it in task notes
  (task update) or a run record (record_run).
- record_run records what this run did (a digest: intent, result, decisions, gotchas, next steps).
The facts are also resources: memctl://facts (all of them) and memctl://facts/{category}.
A refusal (a secret in the text, the workspace locked, an unknown id, a disabled layer) is a tool
error whose text says what went wrong and, after "hint:", what to do next.`

// New makes the server with its tools and resources.
func New(opts Options) *Server {
	s := &Server{opts: opts}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: "memctl", Title: "memctl", Version: opts.Version},
		&sdk.ServerOptions{Instructions: instructions,
			// The tools and the resources never change while the server
			// runs: no listChanged (the SDK's default is true).
			Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}, Resources: &sdk.ResourceCapabilities{}}})
	s.addTools()
	s.addResources()
	return s
}

// SDK is the SDK's server, for tests that connect over memory.
func (s *Server) SDK() *sdk.Server { return s.sdk }

// Serve speaks MCP on in and out until the client closes in or ctx ends.
// A client that closes in is the end of the session, not an error: every
// request read before it is answered first, so that a client may write
// its requests and close in at once. A line that is not a valid JSON-RPC
// 2.0 message is answered with the error JSON-RPC prescribes, and the
// session goes on (stdio.go). Serve returns once the call in progress, if
// any, has finished, so that the process never ends in the middle of a
// write.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	w := newStdout(out)
	// MaxLineLength -1: stdin's filter has enforced the SDK's cap already.
	t := &sdk.IOTransport{Reader: newStdin(ctx, in, w), Writer: w, MaxLineLength: -1}
	err := s.sdk.Run(ctx, t)
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	return err
}

// call is one tool call's session over the workspace, and what the call
// should also tell the agent: notices and warnings memctl would print on
// stderr.
type call struct {
	sess  *app.Session
	notes []string
	// client is the name the MCP client gave in its initialize request
	// (clientInfo.name), "mcp" when it gave none.
	client string
}

// open opens the workspace for one call of tool: read afresh, since the
// files change between calls.
func (s *Server) open(tool, client string) (*call, error) {
	c := &call{client: client}
	now := s.opts.Now
	sess, err := app.Open(s.opts.Dir, app.Options{
		Getenv: s.opts.Getenv, Now: now, Rand: s.opts.Rand,
		Holder: func() fsx.Holder {
			return fsx.Holder{PID: s.opts.PID, Command: "memctl mcp " + tool, Since: now().UTC().Truncate(time.Second)}
		},
		Notice: func(msg string) { c.notes = append(c.notes, msg) },
		Warn:   func(msg string) { c.notes = append(c.notes, "warning: "+msg) },
	})
	if err != nil {
		return nil, err
	}
	c.sess = sess
	return c, nil
}

// handler is a tool's work on one call: its result, or an error that
// becomes a tool error.
type handler[In any] func(ctx context.Context, c *call, in In) (*sdk.CallToolResult, error)

// addTool registers h as tool t. Each call holds the server's mutex,
// opens the workspace, runs h, and closes the session (releasing its lock
// and index). An error, a panic included, is a tool error with the
// message and the hint the CLI prints: the server stays up.
func addTool[In any](s *Server, t *sdk.Tool, h handler[In]) {
	if t.InputSchema == nil {
		in, err := inputSchema[In](t.Name)
		if err != nil {
			panic(err) // a tool's input type is wrong: a bug found by every test
		}
		t.InputSchema = in
	}
	sdk.AddTool(s.sdk, t, func(ctx context.Context, req *sdk.CallToolRequest, in In) (res *sdk.CallToolResult, _ any, _ error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed {
			return errorResult(errors.New("the MCP session has ended"), nil), nil, nil
		}
		c, err := s.open(t.Name, clientName(req.Session))
		if err != nil {
			return errorResult(err, nil), nil, nil
		}
		res, err = safely(t.Name, func() (*sdk.CallToolResult, error) { return h(ctx, c, in) })
		// Closed whatever happened, a panic included: a lock left held
		// would refuse every later write.
		if cerr := c.sess.Close(); err == nil && cerr != nil {
			c.notes = append(c.notes, "warning: "+cerr.Error())
		}
		if err != nil {
			return errorResult(err, c.notes), nil, nil
		}
		addNotes(res, c.notes)
		return res, nil, nil
	})
}

// clientName is the client's name from its initialize request, else
// "mcp".
func clientName(ss *sdk.ServerSession) string {
	if ss != nil {
		if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil && strings.TrimSpace(p.ClientInfo.Name) != "" {
			return strings.TrimSpace(p.ClientInfo.Name)
		}
	}
	return "mcp"
}

// safely runs f, turning a panic into an error: a bug in one call must
// not end the server, which the agent cannot restart by itself.
func safely(tool string, f func() (*sdk.CallToolResult, error)) (res *sdk.CallToolResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("memctl mcp %s: internal error: %v", tool, r)
		}
	}()
	return f()
}

// errorResult is err as a tool error: its message, then "hint: " and what
// to do next when app knows it, then the notes.
func errorResult(err error, notes []string) *sdk.CallToolResult {
	text := "error: " + err.Error()
	if h := app.Hint(err); h != "" {
		text += "\nhint: " + h
	}
	res := &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: text}}}
	addNotes(res, notes)
	return res
}

// addNotes adds the call's notices and warnings as a last text block.
func addNotes(res *sdk.CallToolResult, notes []string) {
	if len(notes) > 0 {
		res.Content = append(res.Content, &sdk.TextContent{Text: "memctl: " + strings.Join(notes, "\nmemctl: ")})
	}
}
