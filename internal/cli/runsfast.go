package cli

import (
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/runs"
)

// writeRunList writes what writeJSON(runListJSON{…}) writes for entries,
// in pieces of about 64 KiB.
func writeRunList(w io.Writer, entries []runs.Entry) error {
	b := make([]byte, 0, 80<<10)
	b = appendRunListHead(b, len(entries))
	for i, e := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		r := toRunJSON(e)
		b = append(b, "\n    "...)
		b = appendRun(b, &r)
		if len(b) >= 64<<10 {
			if _, err := w.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	b = appendRunListTail(b, len(entries))
	_, err := w.Write(b)
	return err
}

func appendRunListHead(dst []byte, n int) []byte {
	dst = append(dst, "{\n  \"schema_version\": "...)
	dst = strconv.AppendInt(dst, schemaVersion, 10)
	dst = append(dst, ",\n  \"runs\": "...)
	if n == 0 {
		return append(dst, "[]"...)
	}
	return append(dst, '[')
}

func appendRunListTail(dst []byte, n int) []byte {
	if n == 0 {
		return append(dst, "\n}\n"...)
	}
	return append(dst, "\n  ]\n}\n"...)
}

// appendRunList appends what writeJSON(runListJSON{…}) writes, byte for
// byte, without reflection or a second indenting pass: runs --json over
// thousands of records spent most of its time in encoding/json.
// TestAppendRunListIsWriteJSON holds the two together; a field added to
// runJSON must be added here too, which that test catches.
func appendRunList(dst []byte, list []runJSON) []byte {
	dst = appendRunListHead(dst, len(list))
	for i := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, "\n    "...)
		dst = appendRun(dst, &list[i])
	}
	return appendRunListTail(dst, len(list))
}

// jw writes the members of one indented object.
type jw struct {
	b     []byte
	ind   string // the members' indent, after a newline
	first bool
}

func (w *jw) key(k string) {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.b = append(w.b, w.ind...)
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

func (w *jw) time(k string, t *time.Time) {
	w.key(k)
	if t == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.b = append(w.b, '"')
	w.b = t.AppendFormat(w.b, time.RFC3339Nano)
	w.b = append(w.b, '"')
}

// list writes a list member whose n items each item appends at the
// item indent.
func (w *jw) list(k string, n int, item func(b []byte, i int, ind string) []byte) {
	w.key(k)
	if n == 0 {
		w.b = append(w.b, "[]"...)
		return
	}
	in := w.ind + "  "
	w.b = append(w.b, '[')
	for i := range n {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = append(w.b, in...)
		w.b = item(w.b, i, in)
	}
	w.b = append(w.b, w.ind...)
	w.b = append(w.b, ']')
}

func (w *jw) strs(k string, l []string) {
	w.list(k, len(l), func(b []byte, i int, _ string) []byte { return appendJSONString(b, l[i]) })
}

// jsonObject writes an object member (or list item) whose members fill
// appends, at ind (the indent of its opening line).
func jsonObject(b []byte, ind string, fill func(w *jw)) []byte {
	w := jw{b: append(b, '{'), ind: ind + "  ", first: true}
	fill(&w)
	w.b = append(w.b, ind...)
	return append(w.b, '}')
}

func appendRun(b []byte, r *runJSON) []byte {
	return jsonObject(b, "\n    ", func(w *jw) {
		w.str("run_id", r.RunID)
		w.str("session_id", r.SessionID)
		w.strs("task_ids", r.TaskIDs)
		w.key("agent")
		w.b = jsonObject(w.b, w.ind, func(a *jw) {
			a.str("runtime", r.Agent.Runtime)
			a.str("model", r.Agent.Model)
		})
		w.str("repo", r.Repo)
		w.str("branch", r.Branch)
		w.str("commit_sha", r.CommitSHA)
		w.time("started_at", r.StartedAt)
		w.time("ended_at", r.EndedAt)
		w.str("status", r.Status)
		w.key("digest")
		w.b = jsonObject(w.b, w.ind, func(d *jw) {
			d.str("intent", r.Digest.Intent)
			d.str("result", r.Digest.Result)
			d.strs("changes", r.Digest.Changes)
			d.strs("decisions", r.Digest.Decisions)
			d.strs("gotchas", r.Digest.Gotchas)
			d.strs("next_steps", r.Digest.NextSteps)
		})
		w.strs("files_changed", r.FilesChanged)
		w.list("commands", len(r.Commands), func(b []byte, i int, ind string) []byte {
			return jsonObject(b, ind, func(c *jw) {
				c.str("cmd", r.Commands[i].Cmd)
				c.int("exit_code", r.Commands[i].ExitCode)
			})
		})
		w.list("tests", len(r.Tests), func(b []byte, i int, ind string) []byte {
			return jsonObject(b, ind, func(t *jw) {
				t.str("name", r.Tests[i].Name)
				t.str("status", r.Tests[i].Status)
			})
		})
		w.list("errors", len(r.Errors), func(b []byte, i int, ind string) []byte {
			return jsonObject(b, ind, func(e *jw) {
				x := r.Errors[i]
				e.str("signature", x.Signature)
				e.str("excerpt", x.Excerpt)
				e.str("file", x.File)
				e.key("line")
				if x.Line == nil {
					e.b = append(e.b, "null"...)
				} else {
					e.b = strconv.AppendInt(e.b, int64(*x.Line), 10)
				}
			})
		})
		w.strs("artifact_refs", r.ArtifactRefs)
		w.str("path", r.Path)
	})
}

// appendJSONString appends s as a JSON string exactly as encoding/json
// does with HTML escaping off: \b \f \n \r \t and \uXXXX for the other
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
