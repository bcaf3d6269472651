package mcp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/prime"
	"github.com/memctl/memctl/internal/proposal"
	"github.com/memctl/memctl/internal/recall"
	"github.com/memctl/memctl/internal/runs"
	"github.com/memctl/memctl/internal/secrets"
	"github.com/memctl/memctl/internal/tasks"
)

// The tools. Each input is small (schemas cost the agent context) and each
// answer is what the CLI command prints with --json, as the tool's text
// (and, for an object, its structured content).

func (s *Server) addTools() {
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}
	write := &sdk.ToolAnnotations{DestructiveHint: new(false), OpenWorldHint: new(false)}
	addTool(s, &sdk.Tool{Name: "prime", Annotations: ro,
		Description: "The session-start context pack (memctl prime): facts, your tasks in progress, ready tasks, proposal feedback and warnings, each line with its id, under a token budget."},
		primeTool)
	addTool(s, &sdk.Tool{Name: "recall", Annotations: ro,
		Description: "Search facts, tasks, proposals, run records, playbooks and the user's personal preferences by meaning and by words (memctl recall --json). Every result names its file and line."},
		recallTool)
	addTool(s, &sdk.Tool{Name: "ready", Annotations: ro,
		Description: "List open tasks whose blockers are all closed, highest priority first (memctl ready --json: Beads' issue objects)."},
		readyTool)
	addTool(s, &sdk.Tool{Name: "task", Annotations: write,
		Description: "Change the task graph: action create (title, …), update (id, status, notes, …), claim (id: assign to you and start it), close (id, reason) or comment (id, text); as memctl create, update, update --claim, close and comment --json."},
		taskTool)
	addTool(s, &sdk.Tool{Name: "propose", Annotations: write,
		Description: "Propose a fact for a person to review (memctl propose --json); you never edit the facts. Refused when the text holds what looks like a secret or repeats a fact."},
		proposeTool)
	addTool(s, &sdk.Tool{Name: "record_run", Annotations: &sdk.ToolAnnotations{DestructiveHint: new(false), IdempotentHint: true, OpenWorldHint: new(false)},
		Description: "Record what this run did (memctl run record --json): its digest, tests, commands and errors. Recording a run_id again merges into its record."},
		recordRunTool)
}

// jsonResult is v as the CLI prints it with --json: indented, HTML
// characters unescaped. An object is also the structured content.
func jsonResult(v any) (*sdk.CallToolResult, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return rawResult(b.Bytes()), nil
}

// rawResult is JSON already encoded, as jsonResult makes it.
func rawResult(data []byte) *sdk.CallToolResult {
	res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(data)}}}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		res.StructuredContent = json.RawMessage(t)
	}
	return res
}

// usagef is a mistake in the tool's arguments.
func usagef(format string, args ...any) error {
	return &app.UsageError{Err: fmt.Errorf(format, args...)}
}

// --- prime ---------------------------------------------------------------

type primeIn struct {
	BudgetTokens *int `json:"budget_tokens,omitempty" jsonschema:"the pack's budget in tokens, at least 1 (leave it out for the repository's [prime] budget_tokens)"`
}

func primeTool(ctx context.Context, c *call, in primeIn) (*sdk.CallToolResult, error) {
	opts := c.sess.PrimeOptions()
	if in.BudgetTokens != nil {
		// As memctl prime --budget-tokens: 0 is a mistake, not the default.
		if *in.BudgetTokens < 1 {
			return nil, app.WithHint(usagef("budget_tokens %d: use a positive number of tokens", *in.BudgetTokens),
				"leave budget_tokens out for the repository's budget ([prime] budget_tokens)")
		}
		opts.BudgetTokens = *in.BudgetTokens
	}
	pack := prime.Build(ctx, c.sess.Workspace(), opts)
	for _, p := range pack.Problems {
		c.notes = append(c.notes, fmt.Sprintf("warning: %s left out: %s", p.Part, p.Detail()))
	}
	if pack.Disabled {
		c.notes = append(c.notes, "prime is disabled ([prime] enabled = false in "+config.ConfigFile+"): the pack is empty")
	} else if pack.Empty() {
		c.notes = append(c.notes, fmt.Sprintf("the budget of %d tokens holds nothing; try budget_tokens %d", pack.BudgetTokens, prime.SuggestedBudget(pack.FullTokens)))
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: pack.Text()}}}, nil
}

// --- recall --------------------------------------------------------------

type recallIn struct {
	Query string `json:"query" jsonschema:"what to look for, in words"`
	Limit *int   `json:"limit,omitempty" jsonschema:"how many results, at least 1 (default 10)"`
	Kind  string `json:"kind,omitempty" jsonschema:"only this kind: fact, task, proposal, run, playbook or personal"`
	Since string `json:"since,omitempty" jsonschema:"only documents created since a date (2026-01-02), an RFC 3339 time or a duration ago (72h, 14d)"`
	Until string `json:"until,omitempty" jsonschema:"only documents created until a date (the whole day), a time or a duration ago"`
	Scope string `json:"scope,omitempty" jsonschema:"team (the repository's), personal (the user's own preferences), a scope in [recall.scopes] or a path prefix"`
	// Explain adds each result's signals: why it ranked where it did.
	Explain bool `json:"explain,omitempty" jsonschema:"add each result's scores per signal (raw, scaled, rank, weight) and priors"`
}

func recallTool(ctx context.Context, c *call, in recallIn) (*sdk.CallToolResult, error) {
	start := c.sess.Now()
	limit := 10
	if in.Limit != nil {
		limit = *in.Limit
	}
	if limit < 1 {
		return nil, usagef("limit %d: want at least 1", limit)
	}
	rf := app.RecallFilter{Since: in.Since, Until: in.Until, Scope: in.Scope}
	if in.Kind != "" {
		rf.Kinds = []string{in.Kind}
	}
	f, err := c.sess.RecallFilter(rf, "")
	if err != nil {
		return nil, err
	}
	if err := recall.CheckQuery(in.Query); err != nil {
		return nil, app.WithHint(&app.UsageError{Err: err}, `ask in words, e.g. "which database do we use"`)
	}
	ans, err := c.sess.Recall(ctx, in.Query, c.sess.RecallOptions(recall.ModeHybrid, limit, f))
	if err != nil {
		return nil, err
	}
	if ans.Warning != "" {
		c.notes = append(c.notes, "warning: "+ans.Warning)
	}
	took := float64(c.sess.Now().Sub(start).Microseconds()) / 1000
	return jsonResult(app.RecallJSON{SchemaVersion: app.RecallSchemaVersion, Query: in.Query, Mode: ans.Mode,
		Results: app.RecallResultsJSON(ans.Results, in.Explain), TookMS: took})
}

// --- ready ---------------------------------------------------------------

type readyIn struct {
	Limit      *int `json:"limit,omitempty" jsonschema:"show at most this many tasks (default 20; 0 for all)"`
	Unassigned bool `json:"unassigned,omitempty" jsonschema:"only tasks nobody has claimed"`
}

func readyTool(ctx context.Context, c *call, in readyIn) (*sdk.CallToolResult, error) {
	limit := 20
	if in.Limit != nil {
		limit = *in.Limit
	}
	if limit < 0 {
		return nil, usagef("limit %d: use 0 (all) or more", limit)
	}
	t, err := c.sess.Tasks(ctx, false)
	if err != nil {
		return nil, err
	}
	g := tasks.NewGraph(t.Store)
	ready, total := g.Ready(tasks.ReadyFilter{Limit: limit, Sort: tasks.SortPriority, Unassigned: in.Unassigned}, c.sess.Now())
	if len(ready) < total {
		c.notes = append(c.notes, fmt.Sprintf("Showing %d of %d ready issues (use limit 0 to see all)", len(ready), total))
	}
	out := make([]app.Object, 0, len(ready))
	for _, iss := range ready {
		out = append(out, app.ListObject(g, iss))
	}
	return jsonResult(out)
}

// --- task ----------------------------------------------------------------

type taskIn struct {
	Action      string   `json:"action" jsonschema:"create, update, claim, close or comment"`
	ID          string   `json:"id,omitempty" jsonschema:"the task id (every action but create)"`
	Title       *string  `json:"title,omitempty" jsonschema:"create: the title (required); update: a new title"`
	Description *string  `json:"description,omitempty" jsonschema:"create, update: the description"`
	Type        string   `json:"type,omitempty" jsonschema:"create: bug, feature, task (default), epic or chore"`
	Priority    *int     `json:"priority,omitempty" jsonschema:"create, update: 0 (critical) to 4; create's default is 2"`
	Assignee    *string  `json:"assignee,omitempty" jsonschema:"create, update: who works on it (empty to clear)"`
	Status      *string  `json:"status,omitempty" jsonschema:"update: open, in_progress, blocked, deferred or closed"`
	Notes       *string  `json:"notes,omitempty" jsonschema:"create: the notes; update, claim: a line added to the notes"`
	Labels      []string `json:"labels,omitempty" jsonschema:"create: the labels; update: labels to add"`
	Parent      string   `json:"parent,omitempty" jsonschema:"create: the parent task id"`
	Deps        []string `json:"deps,omitempty" jsonschema:"create: dependencies type:id (blocked-by:id, blocks:id, discovered-from:id)"`
	Reason      string   `json:"reason,omitempty" jsonschema:"close: why it is closed"`
	Text        string   `json:"text,omitempty" jsonschema:"comment: the comment"`
}

// taskActions are the task tool's actions.
var taskActions = []string{"create", "update", "claim", "close", "comment"}

func taskTool(ctx context.Context, c *call, in taskIn) (*sdk.CallToolResult, error) {
	if !slices.Contains(taskActions, in.Action) {
		return nil, usagef("action %q: use %s", in.Action, strings.Join(taskActions, ", "))
	}
	if in.Action == "create" {
		return createTask(ctx, c, in)
	}
	if in.ID == "" {
		return nil, usagef("action %s needs the task id", in.Action)
	}
	var ch tasks.Changes
	if in.Action == "update" || in.Action == "claim" {
		ch = tasks.Changes{Status: in.Status, Title: in.Title, Description: in.Description, AppendNotes: in.Notes,
			Assignee: in.Assignee, Priority: in.Priority, AddLabels: in.Labels}
	}
	if in.Action == "update" && ch.Status == nil && ch.Title == nil && ch.Description == nil && ch.AppendNotes == nil &&
		ch.Assignee == nil && ch.Priority == nil && len(ch.AddLabels) == 0 {
		return nil, usagef("nothing to change: give at least one of status, title, description, notes, assignee, priority, labels")
	}
	if in.Action == "comment" && strings.TrimSpace(in.Text) == "" {
		return nil, usagef("action comment needs the text")
	}
	t, err := c.sess.Tasks(ctx, true)
	if err != nil {
		return nil, err
	}
	now := c.sess.Now()
	var iss *tasks.Issue
	switch in.Action {
	case "comment":
		cm, err := t.Store.AddComment(in.ID, c.sess.Actor().Name, in.Text, c.sess.Rand(), now)
		if err != nil {
			return nil, app.TaskError(err)
		}
		if err := t.Save(); err != nil {
			return nil, err
		}
		return jsonResult(app.ToCommentJSON(cm))
	case "close":
		iss, err = t.Store.Close(in.ID, in.Reason, now)
	case "claim":
		// As update --claim: claim, then apply the other changes.
		if _, err = t.Store.Claim(in.ID, c.sess.Actor(), now); err == nil {
			iss, err = t.Store.Update(in.ID, ch, now)
		}
	default:
		iss, err = t.Store.Update(in.ID, ch, now)
	}
	if err != nil {
		// The domain names the line added to the notes append_notes (as
		// update --append-notes); here it is the tool's notes.
		return nil, app.TaskError(renameField(err, "append_notes", "notes"))
	}
	if err := t.Save(); err != nil {
		return nil, err
	}
	return jsonResult([]app.Object{app.PlainObject(iss)})
}

func createTask(ctx context.Context, c *call, in taskIn) (*sdk.CallToolResult, error) {
	if in.Title == nil || strings.TrimSpace(*in.Title) == "" {
		return nil, usagef("action create needs a title")
	}
	n := tasks.NewIssue{Title: *in.Title, Type: in.Type, Parent: in.Parent, Priority: 2, Labels: in.Labels}
	if n.Type == "" {
		n.Type = "task"
	}
	n.Description, n.Notes, n.Assignee = deref(in.Description), deref(in.Notes), deref(in.Assignee)
	if in.Priority != nil {
		n.Priority = *in.Priority
	}
	deps, err := tasks.ParseDepSpecs(in.Deps)
	if err != nil {
		return nil, &app.UsageError{Err: err}
	}
	n.Deps = deps
	t, err := c.sess.Tasks(ctx, true)
	if err != nil {
		return nil, err
	}
	iss, err := t.Store.Create(n, t.WS.Config.Tasks.Prefix, c.sess.Actor(), c.sess.Now())
	if err != nil {
		return nil, app.TaskError(err)
	}
	if err := t.Save(); err != nil {
		return nil, err
	}
	return jsonResult(app.CreateObject(iss))
}

// renameField makes the field err names from the name old to new: a
// refusal by the write gate (*secrets.RefusedError, *secrets.TextError)
// or a task's validation (*tasks.ValidationError). Their messages are
// made from the field when printed.
func renameField(err error, old, new string) error {
	var (
		refused *secrets.RefusedError
		text    *secrets.TextError
		val     *tasks.ValidationError
	)
	if errors.As(err, &refused) && refused.Field == old {
		refused.Field = new
	}
	if errors.As(err, &text) && text.Field == old {
		text.Field = new
	}
	if errors.As(err, &val) && val.Field == old {
		val.Field = new
	}
	return err
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// --- propose -------------------------------------------------------------

type proposeIn struct {
	Category    string   `json:"category,omitempty" jsonschema:"the facts file, e.g. pitfalls, invariants, architecture, preferences (required to add)"`
	Text        string   `json:"text,omitempty" jsonschema:"the fact, one or a few lines (not needed to remove)"`
	Reason      string   `json:"reason" jsonschema:"why it matters"`
	Action      string   `json:"action,omitempty" jsonschema:"add (default), update or remove"`
	Fact        string   `json:"fact,omitempty" jsonschema:"the fact id to update or remove"`
	Evidence    []string `json:"evidence,omitempty" jsonschema:"evidence kind:ref (run:r-…, task:…, commit:…, file:…, url:…)"`
	NewCategory bool     `json:"new_category,omitempty" jsonschema:"allow a category that has no facts file yet"`
}

func proposeTool(ctx context.Context, c *call, in proposeIn) (*sdk.CallToolResult, error) {
	if in.Action == "" {
		in.Action = proposal.ActionAdd
	}
	switch {
	case in.Action != proposal.ActionAdd && in.Fact == "":
		return nil, usagef("action %s needs fact (the fact id)", in.Action)
	case in.Action == proposal.ActionAdd && in.Category == "":
		return nil, usagef("category is required (the facts file, e.g. pitfalls)")
	case strings.TrimSpace(in.Reason) == "":
		return nil, usagef("reason is required: say why the fact matters")
	case in.Action != proposal.ActionRemove && strings.TrimSpace(in.Text) == "":
		return nil, usagef("text is required: the fact")
	}
	var ev []proposal.Evidence
	for _, v := range in.Evidence {
		x, err := proposal.ParseEvidence(v)
		if err != nil {
			return nil, &app.UsageError{Err: err}
		}
		ev = append(ev, x)
	}
	p, err := c.sess.Propose(ctx, proposal.Input{Action: in.Action, Category: in.Category, FactID: in.Fact,
		Content: in.Text, Reason: in.Reason, Evidence: ev, NewCategory: in.NewCategory})
	if err != nil {
		return nil, err
	}
	return rawResult(proposal.Encode(p)), nil
}

// --- record_run ----------------------------------------------------------

type recordRunIn struct {
	RunID        string      `json:"run_id,omitempty" jsonschema:"the run id (default: a new one); recording an existing id merges"`
	SessionID    string      `json:"session_id,omitempty" jsonschema:"the agent's session id"`
	TaskIDs      []string    `json:"task_ids,omitempty" jsonschema:"the tasks the run worked on"`
	Status       string      `json:"status,omitempty" jsonschema:"success, failure, partial or unknown"`
	Runtime      string      `json:"runtime,omitempty" jsonschema:"the agent runtime (claude-code, codex, …; default: the MCP client's name)"`
	Model        string      `json:"model,omitempty"`
	Intent       string      `json:"intent,omitempty" jsonschema:"what the run set out to do"`
	Result       string      `json:"result,omitempty" jsonschema:"what came of it"`
	Changes      []string    `json:"changes,omitempty"`
	Decisions    []string    `json:"decisions,omitempty"`
	Gotchas      []string    `json:"gotchas,omitempty"`
	NextSteps    []string    `json:"next_steps,omitempty"`
	FilesChanged []string    `json:"files_changed,omitempty"`
	Commands     []commandIn `json:"commands,omitempty"`
	Tests        []testIn    `json:"tests,omitempty"`
	Errors       []string    `json:"errors,omitempty" jsonschema:"error texts it met (cut to 300 characters)"`
}

type commandIn struct {
	Cmd      string `json:"cmd"`
	ExitCode int    `json:"exit_code"`
}

type testIn struct {
	Name   string `json:"name"`
	Status string `json:"status" jsonschema:"pass, fail or skip"`
}

func recordRunTool(ctx context.Context, c *call, in recordRunIn) (*sdk.CallToolResult, error) {
	if in.Status != "" && !slices.Contains(runs.Statuses, in.Status) {
		return nil, usagef("status %q: use success, failure, partial or unknown", in.Status)
	}
	r := &runs.Record{RunID: in.RunID, SessionID: in.SessionID, TaskIDs: in.TaskIDs, Status: in.Status,
		Agent:        runs.Agent{Runtime: cmp.Or(strings.TrimSpace(in.Runtime), c.client), Model: in.Model},
		Digest:       runs.Digest{Intent: in.Intent, Result: in.Result, Changes: in.Changes, Decisions: in.Decisions, Gotchas: in.Gotchas, NextSteps: in.NextSteps},
		FilesChanged: in.FilesChanged}
	for _, cmd := range in.Commands {
		if strings.TrimSpace(cmd.Cmd) == "" {
			return nil, usagef("commands: a command has no cmd")
		}
		r.Commands = append(r.Commands, runs.Command{Cmd: strings.TrimSpace(cmd.Cmd), ExitCode: cmd.ExitCode})
	}
	for _, t := range in.Tests {
		if t.Name == "" || !slices.Contains(runs.TestStatuses, t.Status) {
			return nil, usagef("tests: %q=%q: want a name and a status pass, fail or skip", t.Name, t.Status)
		}
		r.Tests = append(r.Tests, runs.Test{Name: t.Name, Status: t.Status})
	}
	for _, e := range in.Errors {
		r.Errors = append(r.Errors, runs.Error{Excerpt: e})
	}
	e, err := c.sess.RecordRun(ctx, r)
	if err != nil {
		return nil, err
	}
	return jsonResult(app.RunOneJSON{SchemaVersion: app.SchemaVersion, Run: app.ToRunJSON(e)})
}
