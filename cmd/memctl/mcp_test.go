package main

import (
	"context"
	"encoding/json"
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
	dir, env := mcpWorkspace(t, bin)
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
	dir, env := mcpWorkspace(t, bin)
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

// mcpWorkspace makes a git repository with memctl init run in it, and the
// environment to run memctl there: its own home and git configuration,
// the scripts' clock.
func mcpWorkspace(t *testing.T, bin string) (dir string, env []string) {
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
