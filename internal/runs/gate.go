package runs

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/memctl/memctl/internal/secrets"
)

// Gate is how the text of a record passes the secret gate on its way to
// disk.
type Gate int

const (
	// Refuse refuses a record whose text holds a credential or a character
	// a terminal would act on (secrets.Check): for what agents and people
	// type (run record, digest), who can fix it and try again.
	Refuse Gate = iota
	// Redact writes every credential as [REDACTED:<rule>] and such
	// characters as U+FFFD, never refusing: for hooks (flush), where a
	// refusal would lose the whole session's record.
	Redact
)

// text is one piece of text in a record, for the gate.
type text struct {
	name    string
	s       *string
	oneLine bool
}

// texts lists every piece of text of r the gate sees, named as in the
// file (digest.intent, commands[2].cmd); unknown keys by their key, with
// their JSON text.
func (r *Record) texts() []text {
	var out []text
	add := func(name string, s *string, oneLine bool) { out = append(out, text{name, s, oneLine}) }
	list := func(name string, l []string, oneLine bool) {
		for i := range l {
			add(fmt.Sprintf("%s[%d]", name, i), &l[i], oneLine)
		}
	}
	add("session_id", &r.SessionID, true)
	add("actor", &r.Actor, true)
	list("task_ids", r.TaskIDs, true)
	add("agent.runtime", &r.Agent.Runtime, true)
	add("agent.model", &r.Agent.Model, true)
	add("repo", &r.Repo, true)
	add("branch", &r.Branch, true)
	add("commit_sha", &r.CommitSHA, true)
	add("digest.intent", &r.Digest.Intent, false)
	add("digest.result", &r.Digest.Result, false)
	list("digest.changes", r.Digest.Changes, false)
	list("digest.decisions", r.Digest.Decisions, false)
	list("digest.gotchas", r.Digest.Gotchas, false)
	list("digest.next_steps", r.Digest.NextSteps, false)
	list("files_changed", r.FilesChanged, true)
	for i := range r.Commands {
		add(fmt.Sprintf("commands[%d].cmd", i), &r.Commands[i].Cmd, false)
	}
	for i := range r.Tests {
		add(fmt.Sprintf("tests[%d].name", i), &r.Tests[i].Name, true)
	}
	for i := range r.Errors {
		add(fmt.Sprintf("errors[%d].signature", i), &r.Errors[i].Signature, true)
		add(fmt.Sprintf("errors[%d].excerpt", i), &r.Errors[i].Excerpt, false)
		add(fmt.Sprintf("errors[%d].file", i), &r.Errors[i].File, true)
	}
	list("artifact_refs", r.ArtifactRefs, true)
	return out
}

// extras lists the unknown keys of r and of its parts, with their paths.
func (r *Record) extras() []struct {
	name string
	fs   fields
} {
	type ex = struct {
		name string
		fs   fields
	}
	out := []ex{{"", r.extra}, {"agent", r.Agent.extra}, {"digest", r.Digest.extra}}
	for i, c := range r.Commands {
		out = append(out, ex{fmt.Sprintf("commands[%d]", i), c.extra})
	}
	for i, t := range r.Tests {
		out = append(out, ex{fmt.Sprintf("tests[%d]", i), t.extra})
	}
	for i, e := range r.Errors {
		out = append(out, ex{fmt.Sprintf("errors[%d]", i), e.extra})
	}
	return out
}

// pass sends r's text through the gate under policy (the workspace's
// [secrets] table), changing it in place where it redacts, and returns
// what it redacted. Refuse follows the policy's mode (refusing, or
// redacting secrets, while refusing characters a terminal acts on);
// Redact always redacts both.
func (g Gate) pass(r *Record, policy secrets.Policy) ([]secrets.Redaction, error) {
	ts := r.texts()
	if g == Refuse {
		texts := make([]secrets.Text, 0, len(ts))
		for _, t := range ts {
			texts = append(texts, secrets.Text{Name: t.name, S: t.s, OneLine: t.oneLine})
		}
		type extra struct {
			fs fields
			i  int
			s  string
		}
		var extras []*extra
		for _, x := range r.extras() {
			for i, f := range x.fs {
				e := &extra{fs: x.fs, i: i, s: string(f.value)}
				extras = append(extras, e)
				texts = append(texts, secrets.Text{Name: join(x.name, f.key), S: &e.s})
			}
		}
		red, err := policy.Pass(texts...)
		if err != nil {
			return nil, err
		}
		for _, e := range extras {
			setExtra(e.fs, e.i, e.s)
		}
		return red, nil
	}
	policy.Mode = secrets.ModeRedact
	var red []secrets.Redaction
	for _, t := range ts {
		s, found, err := redact(policy, *t.s, t.oneLine)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.name, err)
		}
		*t.s = s
		red = appendRedactions(red, t.name, found)
	}
	for _, x := range r.extras() {
		for i, f := range x.fs {
			s, found, err := redact(policy, string(f.value), false)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", join(x.name, f.key), err)
			}
			setExtra(x.fs, i, s)
			red = appendRedactions(red, join(x.name, f.key), found)
		}
	}
	return red, nil
}

// setExtra sets the JSON text of unknown key i to s, as text when the
// redaction broke the JSON.
func setExtra(fs fields, i int, s string) {
	if s == string(fs[i].value) {
		return
	}
	if !json.Valid([]byte(s)) {
		s = string(marshal(s)) // a redaction that broke the JSON: kept as text
	}
	fs[i].value = json.RawMessage(s)
}

func appendRedactions(red []secrets.Redaction, field string, found []secrets.Finding) []secrets.Redaction {
	for _, f := range found {
		red = append(red, secrets.Redaction{Field: field, Finding: f})
	}
	return red
}

// redact is s with credentials redacted (those policy does not allow) and
// every character the gate refuses replaced: U+FFFD for control
// characters, escapes and bidi overrides; a space for a line break in
// one-line text.
func redact(policy secrets.Policy, s string, oneLine bool) (string, []secrets.Finding, error) {
	out, found, err := policy.RedactText(s)
	if err != nil {
		return "", nil, err
	}
	if secrets.CheckText(secrets.Field{Text: out, OneLine: oneLine}) == nil {
		return out, found, nil
	}
	out = strings.ReplaceAll(out, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			if oneLine {
				return ' '
			}
			return r
		case r == 0xfffd:
			return r
		case secrets.MayAct(r):
			return 0xfffd
		}
		return r
	}, strings.ToValidUTF8(out, "\ufffd")), found, nil
}
