package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memctl/memctl/internal/secrets/secretstest"
)

// TestMCPServer starts memctl mcp as a subprocess (the memctl on PATH is
// this test binary, as in the scripts), connects with the SDK's client,
// lists the tools and calls ready, recall and propose against a real
// workspace: the answers are what the CLI prints with --json, and a
// refusal is a tool error with the CLI's message and hint.
func TestMCPServer(t *testing.T) {
	bin, err := exec.LookPath("memctl")
	if err != nil {
		t.Fatal(err)
	}
	dir, env := binWorkspace(t, bin)
	memctl := func(args ...string) (string, string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, env
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	id, _, err := memctl("create", "write the parser for the config files", "--silent")
	if err != nil {
		t.Fatal(err)
	}
	id = strings.TrimSpace(id)

	ctx := context.Background()
	cmd := exec.Command(bin, "mcp")
	cmd.Dir, cmd.Env = dir, env
	client := sdk.NewClient(&sdk.Implementation{Name: "memctl-test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if !strings.Contains(cs.InitializeResult().Instructions, "prime") {
		t.Errorf("instructions do not mention prime: %q", cs.InitializeResult().Instructions)
	}

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	readOnly := map[string]bool{}
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		readOnly[tool.Name] = tool.Annotations != nil && tool.Annotations.ReadOnlyHint
	}
	slices.Sort(names)
	if want := []string{"prime", "propose", "ready", "recall", "record_run", "task"}; !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
	for name, want := range map[string]bool{"prime": true, "recall": true, "ready": true, "task": false, "propose": false, "record_run": false} {
		if readOnly[name] != want {
			t.Errorf("tool %s: readOnlyHint = %v, want %v", name, readOnly[name], want)
		}
	}

	call := func(name string, args map[string]any) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("call %s: %v", name, err)
		}
		if len(res.Content) == 0 {
			t.Fatalf("call %s: no content", name)
		}
		return res.Content[0].(*sdk.TextContent).Text, res.IsError
	}

	// ready: the bytes memctl ready --json prints.
	got, isErr := call("ready", map[string]any{})
	if isErr {
		t.Fatalf("ready: tool error %s", got)
	}
	want, _, err := memctl("ready", "--json")
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("ready =\n%s\nmemctl ready --json =\n%s", got, want)
	}
	if !strings.Contains(got, `"id": "`+id+`"`) {
		t.Errorf("ready does not list %s:\n%s", id, got)
	}

	// recall: finds the task, with its file and line.
	got, isErr = call("recall", map[string]any{"query": "parser for config files", "limit": 5})
	if isErr {
		t.Fatalf("recall: tool error %s", got)
	}
	var ans struct {
		Results []struct {
			Kind, ID string
			Source   struct{ Path string }
		}
	}
	if err := json.Unmarshal([]byte(got), &ans); err != nil {
		t.Fatalf("recall: %v\n%s", err, got)
	}
	if len(ans.Results) == 0 || ans.Results[0].ID != id || ans.Results[0].Kind != "task" || ans.Results[0].Source.Path != ".beads/issues.jsonl" {
		t.Errorf("recall results = %+v, want the task %s from .beads/issues.jsonl first", ans.Results, id)
	}

	// propose: files the proposal, as memctl propose does.
	got, isErr = call("propose", map[string]any{"category": "pitfalls",
		"text": "The integration tests share port 7070; run them with -p 1.", "reason": "cost us a day"})
	if isErr {
		t.Fatalf("propose: tool error %s", got)
	}
	var p struct{ ID, Status, Category string }
	if err := json.Unmarshal([]byte(got), &p); err != nil {
		t.Fatalf("propose: %v\n%s", err, got)
	}
	if p.ID == "" || p.Status != "pending" || p.Category != "pitfalls" {
		t.Errorf("propose = %+v, want a pending pitfalls proposal", p)
	}
	if _, err := os.Stat(filepath.Join(dir, ".ledger", "proposals", p.ID+".json")); err != nil {
		t.Errorf("the proposal file: %v", err)
	}

	// A secret is refused with the message and the hint the CLI prints.
	secret := "Deploy with the token " + secretstest.Secrets()[0].Text + " from CI."
	got, isErr = call("propose", map[string]any{"category": "pitfalls", "text": secret, "reason": "so we remember"})
	if !isErr {
		t.Fatalf("propose of a secret: not a tool error: %s", got)
	}
	_, stderr, err := memctl("propose", "--category", "pitfalls", "--text", secret, "--reason", "so we remember", "--json")
	if err == nil {
		t.Fatal("memctl propose of a secret succeeded")
	}
	var cliErr struct {
		Error struct{ Message, Hint string }
	}
	if err := json.Unmarshal([]byte(stderr), &cliErr); err != nil {
		t.Fatalf("memctl propose --json stderr: %v\n%s", err, stderr)
	}
	if wantText := "error: " + cliErr.Error.Message + "\nhint: " + cliErr.Error.Hint; got != wantText {
		t.Errorf("propose of a secret =\n%s\nwant the CLI's\n%s", got, wantText)
	}
	if strings.Contains(got, secretstest.Secrets()[0].Text) {
		t.Errorf("the refusal shows the secret: %s", got)
	}
}

// TestMCPServerProjectDir: started elsewhere, the server finds the
// workspace from $CLAUDE_PROJECT_DIR, as Claude Code sets it.
func TestMCPServerProjectDir(t *testing.T) {
	bin, err := exec.LookPath("memctl")
	if err != nil {
		t.Fatal(err)
	}
	dir, env := binWorkspace(t, bin)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		env  []string
		want bool
	}{
		{"with CLAUDE_PROJECT_DIR", append(slices.Clone(env), "CLAUDE_PROJECT_DIR="+dir), true},
		{"without", env, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, "mcp")
			cmd.Dir, cmd.Env = t.TempDir(), tc.env
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "memctl-test", Version: "v0"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "ready", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			if text := res.Content[0].(*sdk.TextContent).Text; res.IsError == tc.want {
				t.Errorf("ready: error %v, want %v: %s", res.IsError, !tc.want, text)
			}
		})
	}
}

// binWorkspace makes a git repository with memctl init run in it, and the
// environment to run memctl there: its own home and git configuration,
// the scripts' clock.
func binWorkspace(t *testing.T, bin string) (dir string, env []string) {
	t.Helper()
	dir = t.TempDir()
	home := filepath.Join(dir, ".home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	gitconfig := filepath.Join(home, ".gitconfig")
	if err := os.WriteFile(gitconfig, []byte("[user]\n\tname = Test User\n\temail = test@example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := git.PlainInit(dir, false); err != nil {
		t.Fatal(err)
	}
	env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + gitconfig,
		"MEMCTL_TEST_NOW=" + testNow, "NO_COLOR=1"}
	cmd := exec.Command(bin, "init")
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("memctl init: %v\n%s", err, out)
	}
	return dir, env
}

// The start of an MCP session as a client writes it: initialize (id 1)
// and the notification that follows its answer.
const (
	mcpInitialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"trial-client","version":"1"}}}`
	mcpInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// mcpPipe runs memctl mcp in dir with lines as its stdin, closed at once
// (printf … | memctl mcp), and returns its stdout's lines sorted (the
// server answers concurrent requests in any order), with each result but
// a ping's cut to its keys: the ids and the shape, not the volatile text.
func mcpPipe(t *testing.T, bin, dir string, env []string, lines ...string) []string {
	t.Helper()
	cmd := exec.Command(bin, "mcp")
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("memctl mcp: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("memctl mcp stderr:\n%s", stderr.String())
	}
	var out []string
	for line := range strings.Lines(stdout.String()) {
		var msg struct {
			ID     json.RawMessage            `json:"id"`
			Result map[string]json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("stdout line %q: %v", line, err)
		}
		if len(msg.Result) > 0 {
			keys := slices.Sorted(maps.Keys(msg.Result))
			line = fmt.Sprintf("id %s: result with %s", msg.ID, strings.Join(keys, ", "))
		}
		out = append(out, strings.TrimSuffix(line, "\n"))
	}
	slices.Sort(out)
	return out
}

// TestMCPStdinClosed: a client that writes its requests and closes stdin
// at once gets every answer (the SDK alone cancelled the requests in
// progress at the end of stdin and printed nothing), and the server
// exits 0.
func TestMCPStdinClosed(t *testing.T) {
	bin, err := exec.LookPath("memctl")
	if err != nil {
		t.Fatal(err)
	}
	dir, env := binWorkspace(t, bin)
	got := mcpPipe(t, bin, dir, env, mcpInitialize, mcpInitialized,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ready","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":"four","method":"ping"}`)
	want := []string{
		`{"jsonrpc":"2.0","id":"four","result":{}}`,
		"id 1: result with capabilities, instructions, protocolVersion, serverInfo",
		"id 2: result with cacheScope, tools, ttlMs",
		"id 3: result with content",
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("stdout (sorted, results cut to their keys) =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestMCPMalformedLines: a line that is not JSON, or not a JSON-RPC 2.0
// message, is answered with JSON-RPC's error (-32700 Parse error, -32600
// Invalid Request, with the id when it is a valid one) and the server
// goes on: the ping after each is answered (the SDK alone ended the
// session at the first, exit 1).
func TestMCPMalformedLines(t *testing.T) {
	bin, err := exec.LookPath("memctl")
	if err != nil {
		t.Fatal(err)
	}
	dir, env := binWorkspace(t, bin)
	lines := []string{mcpInitialize, mcpInitialized}
	want := []string{"id 1: result with capabilities, instructions, protocolVersion, serverInfo"}
	for i, tc := range []struct{ line, answer string }{
		{"this is not json", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: invalid character 'h' in literal true (expecting 'r')"}}`},
		{`{"jsonrpc":"2.0","id":7,"method":"ping"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: unexpected end of JSON input"}}`},
		{`{"foo":1}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: \"jsonrpc\" must be \"2.0\""}}`},
		{`[]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: batches are not supported; send one message per line"}}`},
		{`"ping"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message is a JSON object"}}`},
		{`{"jsonrpc":"1.0","id":"a","method":"ping"}`, `{"jsonrpc":"2.0","id":"a","error":{"code":-32600,"message":"Invalid Request: \"jsonrpc\" must be \"2.0\""}}`},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: \"id\" must be a string or an integer"}}`},
		{`{"jsonrpc":"2.0","id":2.5,"method":"ping"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: \"id\" must be a string or an integer"}}`},
		{`{"jsonrpc":"2.0","id":8,"method":["ping"]}`, `{"jsonrpc":"2.0","id":8,"error":{"code":-32600,"message":"Invalid Request: \"method\" must be a string"}}`},
		{`{"jsonrpc":"2.0","id":9}`, `{"jsonrpc":"2.0","id":9,"error":{"code":-32600,"message":"Invalid Request: a request needs \"method\" (a response, \"id\" and \"result\" or \"error\")"}}`},
		{`{"jsonrpc":"2.0","id":10,"method":"ping","params":"x"}`, `{"jsonrpc":"2.0","id":10,"error":{"code":-32600,"message":"Invalid Request: \"params\" must be an object"}}`},
		{`{"jsonrpc":"2.0","id":11,"error":"bad"}`, `{"jsonrpc":"2.0","id":11,"error":{"code":-32600,"message":"Invalid Request: \"error\" must be an object with \"code\" and \"message\""}}`},
		{strings.Repeat("[", 1001) + strings.Repeat("]", 1001), `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: batches are not supported; send one message per line"}}`},
		{`{"jsonrpc":"2.0","id":12,"method":"ping","params":{"a":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}}`,
			`{"jsonrpc":"2.0","id":12,"error":{"code":-32600,"message":"Invalid Request: unmarshaling jsonrpc message: json: exceeded maximum nesting depth of 1000"}}`},
	} {
		ping := 100 + i
		lines = append(lines, tc.line, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, ping))
		want = append(want, tc.answer, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, ping))
	}
	// A blank line is no message, and a response the server did not ask
	// for is no error: neither is answered.
	lines = append(lines, "", "  ", `{"jsonrpc":"2.0","id":55,"result":{}}`, `{"jsonrpc":"2.0","id":"last","method":"ping"}`)
	want = append(want, `{"jsonrpc":"2.0","id":"last","result":{}}`)
	slices.Sort(want)
	got := mcpPipe(t, bin, dir, env, lines...)
	if !slices.Equal(got, want) {
		t.Errorf("stdout (sorted, results cut to their keys) =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
