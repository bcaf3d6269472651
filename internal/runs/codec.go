package runs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// field is a key memctl does not know and its value, kept as read.
type field struct {
	key   string
	value json.RawMessage
}

// fields are unknown keys in file order.
type fields []field

func (fs fields) keys() []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.key
	}
	return out
}

// union is fs with the keys of newer added or, for a key both have,
// replaced by newer's value.
func (fs fields) union(newer fields) fields {
	out := slices.Clone(fs)
	for _, n := range newer {
		if i := slices.IndexFunc(out, func(f field) bool { return f.key == n.key }); i >= 0 {
			out[i].value = n.value
			continue
		}
		out = append(out, n)
	}
	return out
}

// FileError is a run record that cannot be read: the file (or "stdin"),
// the 1-based line, and the field (a JSON path such as commands[1].exit_code)
// where there is one.
type FileError struct {
	Path  string
	Line  int
	Field string
	Msg   string
}

func (e *FileError) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		fmt.Fprintf(&b, "field %q: ", e.Field)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Decode reads a run record in the file format. name is the file in
// errors. Every error is a *FileError naming the line and the field:
// invalid JSON, a known key of the wrong type or with a value out of its
// set, a missing or invalid run_id, or a schema_version newer than this
// memctl's.
func Decode(data []byte, name string) (*Record, error) {
	return decode(data, name, false)
}

// DecodeInput reads a record given as input (run record's stdin), where
// run_id may be left out for the command to fill in; otherwise as Decode.
func DecodeInput(data []byte, name string) (*Record, error) {
	return decode(data, name, true)
}

func decode(data []byte, name string, input bool) (*Record, error) {
	d := &decoder{data: data, name: name, input: input}
	r := &Record{}
	if err := d.record(r); err != nil {
		return nil, err
	}
	return r, nil
}

// decoder reads one record, keeping offsets into data for line numbers.
type decoder struct {
	data  []byte
	name  string
	input bool // run_id is optional
}

func (d *decoder) fail(off int, field, format string, args ...any) error {
	line := 1 + bytes.Count(d.data[:min(max(off, 0), len(d.data))], []byte{'\n'})
	return &FileError{Path: d.name, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// object walks the JSON object at off (raw is its text), calling visit
// with each key, its value's offset and its value.
func (d *decoder) object(off int, raw []byte, path string, visit func(key string, off int, v json.RawMessage) error) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return d.syntax(off, path, err)
	}
	if tok != json.Delim('{') {
		return d.fail(off, path, "want an object, not %s", describe(raw))
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return d.syntax(off, path, err)
		}
		key := tok.(string) // object keys are strings once Token succeeds
		at := int(dec.InputOffset())
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return d.syntax(off, join(path, key), err)
		}
		valOff := off + at + valueStart(raw[at:])
		if seen[key] {
			return d.fail(valOff, join(path, key), "the key appears twice")
		}
		seen[key] = true
		if err := visit(key, valOff, v); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return d.syntax(off, path, err)
	}
	if path == "" {
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			return d.fail(off+int(dec.InputOffset()), "", "text after the record's closing brace")
		}
	}
	return nil
}

// valueStart is the offset of the next value in b: past white space and
// the colon after a key or the comma between list elements.
func valueStart(b []byte) int {
	for i, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != ':' && c != ',' {
			return i
		}
	}
	return len(b)
}

func (d *decoder) syntax(off int, path string, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return d.fail(off+int(se.Offset)-1, path, "not valid JSON: %s", strings.TrimPrefix(se.Error(), "json: "))
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return d.fail(len(d.data), path, "not valid JSON: the text ends before the record does")
	}
	return d.fail(off, path, "not valid JSON: %v", err)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// describe names the kind of a JSON value for an error.
func describe(v []byte) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "a list"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func (d *decoder) str(off int, v json.RawMessage, path string) (string, error) {
	if string(v) == "null" {
		return "", nil
	}
	var s string
	if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &s) != nil {
		return "", d.fail(off, path, "want a string, not %s", describe(v))
	}
	return s, nil
}

func (d *decoder) integer(off int, v json.RawMessage, path string) (int, error) {
	var n int
	if err := json.Unmarshal(v, &n); err != nil || string(v) == "null" {
		return 0, d.fail(off, path, "want a whole number, not %s", describe(v))
	}
	return n, nil
}

func (d *decoder) time(off int, v json.RawMessage, path string) (time.Time, error) {
	s, err := d.str(off, v, path)
	if err != nil || s == "" {
		return time.Time{}, err
	}
	t, perr := time.Parse(time.RFC3339, s)
	if perr != nil {
		return time.Time{}, d.fail(off, path, "want a time in RFC 3339 (2026-11-23T10:00:00Z), not %q", s)
	}
	return t.UTC(), nil
}

// array walks the JSON list at off, calling each for every element.
func (d *decoder) array(off int, v json.RawMessage, path string, each func(i, off int, v json.RawMessage) error) error {
	if string(v) == "null" {
		return nil
	}
	if len(v) == 0 || v[0] != '[' {
		return d.fail(off, path, "want a list, not %s", describe(v))
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	if _, err := dec.Token(); err != nil {
		return d.syntax(off, path, err)
	}
	for i := 0; dec.More(); i++ {
		at := int(dec.InputOffset())
		var e json.RawMessage
		if err := dec.Decode(&e); err != nil {
			return d.syntax(off, path, err)
		}
		if err := each(i, off+at+valueStart(v[at:]), e); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) strings(off int, v json.RawMessage, path string) ([]string, error) {
	var out []string
	err := d.array(off, v, path, func(i, off int, e json.RawMessage) error {
		p := fmt.Sprintf("%s[%d]", path, i)
		if string(e) == "null" {
			return d.fail(off, p, "want a string, not null")
		}
		s, err := d.str(off, e, p)
		out = append(out, s)
		return err
	})
	return out, err
}

func (d *decoder) record(r *Record) error {
	sawVersion, sawID := false, false
	err := d.object(0, d.data, "", func(key string, off int, v json.RawMessage) error {
		var err error
		switch key {
		case "schema_version":
			sawVersion = true
			if r.SchemaVersion, err = d.integer(off, v, key); err != nil {
				return err
			}
			if r.SchemaVersion < 1 || r.SchemaVersion > SchemaVersion {
				return d.fail(off, key, "version %d is not one this memctl reads (1 to %d): a newer memctl wrote it; upgrade memctl", r.SchemaVersion, SchemaVersion)
			}
		case "run_id":
			sawID = true
			if r.RunID, err = d.str(off, v, key); err == nil && !ValidRunID(r.RunID) {
				err = d.fail(off, key, "%q is not a run id: 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", r.RunID)
			}
		case "session_id":
			r.SessionID, err = d.str(off, v, key)
		case "actor":
			r.Actor, err = d.str(off, v, key)
		case "task_ids":
			r.TaskIDs, err = d.strings(off, v, key)
		case "agent":
			err = d.agent(off, v, &r.Agent)
		case "repo":
			r.Repo, err = d.str(off, v, key)
		case "branch":
			r.Branch, err = d.str(off, v, key)
		case "commit_sha":
			r.CommitSHA, err = d.str(off, v, key)
		case "started_at":
			r.StartedAt, err = d.time(off, v, key)
		case "ended_at":
			r.EndedAt, err = d.time(off, v, key)
		case "status":
			if r.Status, err = d.str(off, v, key); err == nil && !validStatus(r.Status) {
				err = d.fail(off, key, "unknown status %q: use %s", r.Status, statusList(Statuses))
			}
		case "digest":
			err = d.digest(off, v, &r.Digest)
		case "files_changed":
			r.FilesChanged, err = d.strings(off, v, key)
		case "commands":
			r.Commands, err = d.commands(off, v)
		case "tests":
			r.Tests, err = d.tests(off, v)
		case "errors":
			r.Errors, err = d.errors(off, v)
		case "artifact_refs":
			r.ArtifactRefs, err = d.strings(off, v, key)
		default:
			r.extra = append(r.extra, field{key, slices.Clone(v)})
		}
		return err
	})
	switch {
	case err != nil:
		return err
	case !sawID && !d.input:
		return d.fail(0, "run_id", "missing: every run record names its run")
	case !sawVersion:
		r.SchemaVersion = SchemaVersion
	}
	return nil
}

func (d *decoder) agent(off int, v json.RawMessage, a *Agent) error {
	if string(v) == "null" {
		return nil
	}
	return d.object(off, v, "agent", func(key string, off int, v json.RawMessage) error {
		var err error
		switch key {
		case "runtime":
			a.Runtime, err = d.str(off, v, "agent.runtime")
		case "model":
			a.Model, err = d.str(off, v, "agent.model")
		default:
			a.extra = append(a.extra, field{key, slices.Clone(v)})
		}
		return err
	})
}

func (d *decoder) digest(off int, v json.RawMessage, g *Digest) error {
	if string(v) == "null" {
		return nil
	}
	return d.object(off, v, "digest", func(key string, off int, v json.RawMessage) error {
		var err error
		p := "digest." + key
		switch key {
		case "intent":
			g.Intent, err = d.str(off, v, p)
		case "result":
			g.Result, err = d.str(off, v, p)
		case "changes":
			g.Changes, err = d.strings(off, v, p)
		case "decisions":
			g.Decisions, err = d.strings(off, v, p)
		case "gotchas":
			g.Gotchas, err = d.strings(off, v, p)
		case "next_steps":
			g.NextSteps, err = d.strings(off, v, p)
		default:
			g.extra = append(g.extra, field{key, slices.Clone(v)})
		}
		return err
	})
}

func (d *decoder) commands(off int, v json.RawMessage) ([]Command, error) {
	var out []Command
	err := d.array(off, v, "commands", func(i, off int, e json.RawMessage) error {
		p := fmt.Sprintf("commands[%d]", i)
		var c Command
		err := d.object(off, e, p, func(key string, off int, v json.RawMessage) error {
			var err error
			switch key {
			case "cmd":
				c.Cmd, err = d.str(off, v, p+".cmd")
			case "exit_code":
				c.ExitCode, err = d.integer(off, v, p+".exit_code")
			default:
				c.extra = append(c.extra, field{key, slices.Clone(v)})
			}
			return err
		})
		out = append(out, c)
		return err
	})
	return out, err
}

func (d *decoder) tests(off int, v json.RawMessage) ([]Test, error) {
	var out []Test
	err := d.array(off, v, "tests", func(i, off int, e json.RawMessage) error {
		p := fmt.Sprintf("tests[%d]", i)
		var t Test
		err := d.object(off, e, p, func(key string, off int, v json.RawMessage) error {
			var err error
			switch key {
			case "name":
				t.Name, err = d.str(off, v, p+".name")
			case "status":
				if t.Status, err = d.str(off, v, p+".status"); err == nil && !slices.Contains(TestStatuses, t.Status) {
					err = d.fail(off, p+".status", "unknown test status %q: use %s", t.Status, statusList(TestStatuses))
				}
			default:
				t.extra = append(t.extra, field{key, slices.Clone(v)})
			}
			return err
		})
		out = append(out, t)
		return err
	})
	return out, err
}

func (d *decoder) errors(off int, v json.RawMessage) ([]Error, error) {
	var out []Error
	err := d.array(off, v, "errors", func(i, off int, e json.RawMessage) error {
		p := fmt.Sprintf("errors[%d]", i)
		var x Error
		err := d.object(off, e, p, func(key string, off int, v json.RawMessage) error {
			var err error
			switch key {
			case "signature":
				x.Signature, err = d.str(off, v, p+".signature")
			case "excerpt":
				x.Excerpt, err = d.str(off, v, p+".excerpt")
			case "file":
				x.File, err = d.str(off, v, p+".file")
			case "line":
				if x.Line, err = d.integer(off, v, p+".line"); err == nil && x.Line < 0 {
					err = d.fail(off, p+".line", "want a line number (1 or more), not %d", x.Line)
				}
			default:
				x.extra = append(x.extra, field{key, slices.Clone(v)})
			}
			return err
		})
		out = append(out, x)
		return err
	})
	return out, err
}
