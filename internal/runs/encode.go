package runs

import (
	"bytes"
	"encoding/json"
	"time"
)

// Encode writes r in the file format: JSON with 2-space indent and a
// trailing newline, the known keys in the documented order and then the
// unknown keys it was read with. Empty lists are [], empty strings "", an
// unknown time "" and an unknown status "unknown"; an error's line is left
// out when unknown.
func Encode(r *Record) []byte {
	var o obj
	o.int("schema_version", SchemaVersion)
	o.str("run_id", r.RunID)
	o.str("session_id", r.SessionID)
	o.str("actor", r.Actor)
	o.strs("task_ids", r.TaskIDs)
	var a obj
	a.str("runtime", r.Agent.Runtime)
	a.str("model", r.Agent.Model)
	o.raw("agent", a.done(r.Agent.extra))
	o.str("repo", r.Repo)
	o.str("branch", r.Branch)
	o.str("commit_sha", r.CommitSHA)
	o.time("started_at", r.StartedAt)
	o.time("ended_at", r.EndedAt)
	o.str("status", r.StatusOrUnknown())
	var g obj
	g.str("intent", r.Digest.Intent)
	g.str("result", r.Digest.Result)
	g.strs("changes", r.Digest.Changes)
	g.strs("decisions", r.Digest.Decisions)
	g.strs("gotchas", r.Digest.Gotchas)
	g.strs("next_steps", r.Digest.NextSteps)
	o.raw("digest", g.done(r.Digest.extra))
	o.strs("files_changed", r.FilesChanged)
	o.list("commands", len(r.Commands), func(i int) []byte {
		var c obj
		c.str("cmd", r.Commands[i].Cmd)
		c.int("exit_code", r.Commands[i].ExitCode)
		return c.done(r.Commands[i].extra)
	})
	o.list("tests", len(r.Tests), func(i int) []byte {
		var t obj
		t.str("name", r.Tests[i].Name)
		t.str("status", r.Tests[i].Status)
		return t.done(r.Tests[i].extra)
	})
	o.list("errors", len(r.Errors), func(i int) []byte { return encodeError(r.Errors[i]) })
	o.strs("artifact_refs", r.ArtifactRefs)
	var out bytes.Buffer
	out.Grow(o.b.Len() * 2)
	// The compact text is valid JSON by construction: Indent cannot fail.
	_ = json.Indent(&out, o.done(r.extra), "", "  ")
	out.WriteByte('\n')
	return out.Bytes()
}

func encodeError(e Error) []byte {
	var o obj
	o.str("signature", e.Signature)
	o.str("excerpt", e.Excerpt)
	o.str("file", e.File)
	if e.Line > 0 {
		o.int("line", e.Line)
	}
	return o.done(e.extra)
}

// obj writes one compact JSON object, keys in the order they are added.
type obj struct{ b bytes.Buffer }

func (o *obj) key(k string) {
	if o.b.Len() == 0 {
		o.b.WriteByte('{')
	} else {
		o.b.WriteByte(',')
	}
	o.b.Write(marshal(k))
	o.b.WriteByte(':')
}

func (o *obj) raw(k string, v []byte) {
	o.key(k)
	o.b.Write(v)
}

func (o *obj) str(k, v string)     { o.raw(k, marshal(v)) }
func (o *obj) int(k string, v int) { o.raw(k, marshal(v)) }

func (o *obj) time(k string, t time.Time) {
	s := ""
	if !t.IsZero() {
		s = t.UTC().Format(time.RFC3339)
	}
	o.str(k, s)
}

func (o *obj) strs(k string, v []string) {
	o.list(k, len(v), func(i int) []byte { return marshal(v[i]) })
}

func (o *obj) list(k string, n int, elem func(i int) []byte) {
	o.key(k)
	o.b.WriteByte('[')
	for i := range n {
		if i > 0 {
			o.b.WriteByte(',')
		}
		o.b.Write(elem(i))
	}
	o.b.WriteByte(']')
}

// done adds the unknown keys and closes the object.
func (o *obj) done(extra fields) []byte {
	for _, f := range extra {
		var c bytes.Buffer
		if json.Compact(&c, f.value) == nil {
			o.raw(f.key, c.Bytes())
		} else {
			o.raw(f.key, marshal(string(f.value))) // not JSON: kept as text
		}
	}
	if o.b.Len() == 0 {
		return []byte("{}")
	}
	o.b.WriteByte('}')
	return o.b.Bytes()
}

// marshal is json.Marshal without HTML escaping (<, > and & stay as they
// are: the files are read by people and programs, not browsers).
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // strings and ints always encode
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}
