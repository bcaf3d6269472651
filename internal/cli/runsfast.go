package cli

import (
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/runs"
)

// writeRunList writes exactly what writeJSON(runListJSON{…}) writes for
// entries (each run as listedRunJSON makes it), in pieces of about 64 KiB,
// straight from the records: no reflection, no intermediate values and no
// second indenting pass. runs --json over thousands of records spent most
// of its time in encoding/json. TestWriteRunListIsWriteJSON holds the two
// together; a field added to runJSON must be added here too, which that
// test catches.
func writeRunList(out io.Writer, entries []runs.Entry) error {
	w := jw{b: make([]byte, 0, 80<<10), ind: []byte("\n")}
	w.begin('{')
	w.key("schema_version")
	w.b = strconv.AppendInt(w.b, schemaVersion, 10)
	w.key("runs")
	w.begin('[')
	for _, e := range entries {
		w.item()
		appendRun(&w, e)
		if len(w.b) >= 64<<10 {
			if _, err := out.Write(w.b); err != nil {
				return err
			}
			w.b = w.b[:0]
		}
	}
	w.end(']')
	w.end('}')
	w.b = append(w.b, '\n')
	_, err := out.Write(w.b)
	return err
}

// jw writes indented JSON as json.Indent(…, "", "  ") lays it out.
type jw struct {
	b     []byte
	ind   []byte // a newline and the current indent
	first bool   // nothing written yet in the open object or list
}

func (w *jw) begin(open byte) {
	w.b = append(w.b, open)
	w.ind = append(w.ind, ' ', ' ')
	w.first = true
}

// end closes an object or list; an empty one stays on its line ([]).
func (w *jw) end(close byte) {
	w.ind = w.ind[:len(w.ind)-2]
	if !w.first {
		w.b = append(w.b, w.ind...)
	}
	w.b = append(w.b, close)
	w.first = false
}

func (w *jw) item() {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.b = append(w.b, w.ind...)
}

func (w *jw) key(k string) {
	w.item()
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, "\": "...)
}

func (w *jw) str(k, v string) {
	w.key(k)
	w.b = appendJSONString(w.b, v)
}

func (w *jw) int(k string, v int) {
	w.key(k)
	w.b = strconv.AppendInt(w.b, int64(v), 10)
}

// time writes t as encoding/json writes a *time.Time from timeJSON: null
// when unknown, else RFC 3339 with nanoseconds, in UTC.
func (w *jw) time(k string, t time.Time) {
	w.key(k)
	if t.IsZero() {
		w.b = append(w.b, "null"...)
		return
	}
	w.b = append(w.b, '"')
	w.b = t.UTC().AppendFormat(w.b, time.RFC3339Nano)
	w.b = append(w.b, '"')
}

func (w *jw) strs(k string, l []string) {
	w.key(k)
	w.begin('[')
	for _, s := range l {
		w.item()
		w.b = appendJSONString(w.b, s)
	}
	w.end(']')
}

// appendRun writes listedRunJSON(e).
func appendRun(w *jw, e runs.Entry) {
	r := e.Record
	w.begin('{')
	w.str("run_id", r.RunID)
	w.str("session_id", r.SessionID)
	w.str("actor", r.Actor)
	w.strs("task_ids", r.TaskIDs)
	w.key("agent")
	w.begin('{')
	w.str("runtime", r.Agent.Runtime)
	w.str("model", r.Agent.Model)
	w.end('}')
	w.str("repo", r.Repo)
	w.str("branch", r.Branch)
	w.str("commit_sha", r.CommitSHA)
	w.time("started_at", r.StartedAt)
	w.time("ended_at", r.EndedAt)
	w.str("status", r.StatusOrUnknown())
	w.key("digest")
	w.begin('{')
	w.str("intent", r.Digest.Intent)
	w.str("result", r.Digest.Result)
	w.strs("changes", r.Digest.Changes)
	w.strs("decisions", r.Digest.Decisions)
	w.strs("gotchas", r.Digest.Gotchas)
	w.strs("next_steps", r.Digest.NextSteps)
	w.end('}')
	w.strs("files_changed", r.FilesChanged)
	w.key("commands")
	w.begin('[')
	for _, c := range r.Commands {
		w.item()
		w.begin('{')
		w.str("cmd", c.Cmd)
		w.int("exit_code", c.ExitCode)
		w.end('}')
	}
	w.end(']')
	w.key("tests")
	w.begin('[')
	for _, t := range r.Tests {
		w.item()
		w.begin('{')
		w.str("name", t.Name)
		w.str("status", t.Status)
		w.end('}')
	}
	w.end(']')
	w.key("errors")
	w.begin('[')
	for _, x := range r.Errors {
		w.item()
		w.begin('{')
		w.str("signature", x.Signature)
		w.str("excerpt", x.Excerpt)
		w.str("file", x.File)
		w.key("line")
		if x.Line > 0 {
			w.b = strconv.AppendInt(w.b, int64(x.Line), 10)
		} else {
			w.b = append(w.b, "null"...)
		}
		w.end('}')
	}
	w.end(']')
	w.strs("artifact_refs", r.ArtifactRefs)
	w.str("path", e.Path)
	w.end('}')
}

// appendJSONString appends s as a JSON string exactly as encoding/json
// does with HTML escaping off: \b \f \n \r \t and \u00XX for the other
// control characters, \ufffd for invalid UTF-8, and U+2028 and U+2029
// escaped.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
