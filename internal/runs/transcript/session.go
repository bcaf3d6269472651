package transcript

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Runtime names, as ParseHookInput guesses them and Session.Runtime reports
// the format read. They are the agent.runtime values of a run record.
const (
	RuntimeClaudeCode = "claude-code"
	RuntimeCodex      = "codex"
	RuntimeGemini     = "gemini"
	RuntimeCursor     = "cursor"
	RuntimeUnknown    = "unknown"
)

// Session is what a transcript says about one agent session; flush turns
// it into a run record. Lists are never nil and keep the order in which the
// transcript first shows each item.
type Session struct {
	Runtime                          string // the format read: RuntimeClaudeCode or RuntimeCodex
	SessionID, Model, Cwd            string
	Started, Ended                   time.Time // first and last timestamp of the transcript
	FirstUserText, LastAssistantText string    // intent and result, at most 8 KiB each
	// FilesChanged are the paths edited, written or deleted by a tool call
	// that did not fail, relative to Options.Root (or the session's cwd)
	// when under it, slash-separated; others stay absolute.
	FilesChanged []string
	Commands     []Command // every shell command, in order, repeats included
	Tests        []Test    // by name; a later result of the same test replaces an earlier one
	Errors       []string  // error texts of failed tool results, at most 2 KiB each, no repeats
	// TaskClaims and TaskCloses are the task ids a memctl or bd command
	// claimed (update --claim, --status in_progress) or closed (close,
	// update --status closed), unless the command is known to have failed.
	TaskClaims, TaskCloses []string
	CompactSummary         string // the summary of the last compaction in the transcript
}

// Command is one shell command the agent ran.
type Command struct {
	Cmd string
	// ExitCode is the command's exit status, or -1 when the transcript does
	// not say: no result yet, still running, denied, interrupted, timed out.
	ExitCode int
	Output   string // the tail of the output, at most 2 KiB, escapes removed
}

// Test is the last result seen for one test: Status is pass, fail or skip.
type Test struct {
	Name, Status string
}

// Options tune Read.
type Options struct {
	// Root is the directory FilesChanged are made relative to, usually the
	// repository's root; empty means the session's cwd.
	Root string
	// MaxLineBytes is the longest line read; a longer line is skipped and
	// counted in the *LinesError. Zero means DefaultMaxLineBytes.
	MaxLineBytes int
}

// DefaultMaxLineBytes bounds one transcript line: a line with a pasted
// image or a huge tool output is skipped rather than held in memory.
const DefaultMaxLineBytes = 16 << 20

// Limits of what a Session keeps from the transcript.
const (
	maxExcerpt = 2 << 10 // an error excerpt, a command's output tail
	maxText    = 8 << 10 // the first request, the last answer, the compact summary
)

// ErrUnknownFormat is returned by Read when the file is neither a Claude
// Code transcript nor a Codex rollout.
var ErrUnknownFormat = errors.New("not a Claude Code or Codex transcript")

// LinesError reports the lines of a transcript Read skipped: lines that are
// not JSON (a crash cut the last one short, say) and lines over the limit.
// Read returns it with the session read from the other lines.
type LinesError struct {
	Path      string
	Bad, Long int   // lines that are not JSON, lines over Options.MaxLineBytes
	FirstLine int   // the number of the first skipped line (1-based)
	FirstErr  error // why it was skipped
}

func (e *LinesError) Error() string {
	n := e.Bad + e.Long
	plural := "s"
	if n == 1 {
		plural = ""
	}
	return fmt.Sprintf("read transcript %s: %d line%s skipped (line %d: %v)", e.Path, n, plural, e.FirstLine, e.FirstErr)
}

// Read streams the transcript at path into a Session. The format (Claude
// Code or Codex) is told from the first lines, whatever runtime says: a
// hook's runtime is a guess, the file is not. runtime only says what an
// empty transcript is (one the agent has not written yet): an empty
// session for RuntimeClaudeCode or RuntimeCodex, else ErrUnknownFormat, as
// for a file of another format.
//
// A Claude Code session's subagents write their own transcripts, in
// <session>/subagents/agent-*.jsonl beside <session>.jsonl: Read takes
// their files changed, commands, tests, errors and tasks too (after the
// session's own), not their prompts or answers.
//
// A missing or unreadable file is an error wrapping the os error, with no
// session. Otherwise the session comes with a nil error, a *LinesError for
// skipped lines, or the context's error if ctx ended first (the session
// then holds what was read).
//
// A path that is not a regular file (a FIFO, a device such as /dev/zero)
// is an error wrapping ErrNotRegular, read no further: opening a FIFO
// blocks until a writer comes, and a device may never end.
func Read(ctx context.Context, path, runtime string, opts Options) (*Session, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	defer f.Close()
	p := newParser(ctx, runtime, opts)
	le, err := p.lines(f, path)
	if err == nil && p.b.s.Runtime == RuntimeClaudeCode {
		var sub *LinesError
		sub, err = p.subagents(path)
		if le == nil {
			le = sub
		}
	}
	return p.result(le, err, runtime)
}

// ErrNotRegular is a transcript path that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// openRegular opens path if it is a regular file (through links). It
// looks before it opens, as opening a FIFO blocks, and again after, for a
// file swapped in between.
func openRegular(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%s: %w", path, ErrNotRegular)
		}
		return nil, err
	}
	return f, nil
}

// Parse is Read on a stream (no subagent files); name is what errors call it.
func Parse(ctx context.Context, r io.Reader, name, runtime string, opts Options) (*Session, error) {
	p := newParser(ctx, runtime, opts)
	le, err := p.lines(r, name)
	return p.result(le, err, runtime)
}

// lineHandler takes one transcript line (without its newline); an error
// means the line is not JSON.
type lineHandler interface {
	line(b []byte) error
}

// sniffLines is how many lines Read looks at to tell the format.
const sniffLines = 64

// parser reads the lines of one session's transcript files into a builder.
type parser struct {
	ctx     context.Context
	b       *builder
	h       lineHandler
	maxLine int
	seen    bool // a non-empty line
	unknown bool // no format found in the first lines
}

func newParser(ctx context.Context, runtime string, opts Options) *parser {
	p := &parser{ctx: ctx, b: newBuilder(opts.Root), maxLine: opts.MaxLineBytes}
	if p.maxLine <= 0 {
		p.maxLine = DefaultMaxLineBytes
	}
	return p
}

// lines reads one file's lines. Skipped lines come back as a *LinesError;
// the error is the context's, a read error or ErrUnknownFormat.
func (p *parser) lines(r io.Reader, name string) (*LinesError, error) {
	le := &LinesError{Path: name}
	skip := func(n int, long bool, err error) {
		if long {
			le.Long++
		} else {
			le.Bad++
		}
		if le.FirstLine == 0 {
			le.FirstLine, le.FirstErr = n, err
		}
	}
	lr := lineReader{ctx: p.ctx, r: bufio.NewReaderSize(r, 64<<10), max: p.maxLine}
	for n := 0; ; {
		if n%256 == 0 {
			if err := p.ctx.Err(); err != nil {
				return nil, err
			}
		}
		line, long, err := lr.next()
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read transcript %s: %w", name, err)
		}
		if line == nil && !long && errors.Is(err, io.EOF) {
			break
		}
		n++
		switch {
		case long:
			skip(n, true, fmt.Errorf("longer than %d bytes", p.maxLine))
		case len(bytes.TrimSpace(line)) == 0:
		default:
			p.seen = true
			if p.h == nil {
				if p.h = sniff(line, p.b); p.h == nil && n >= sniffLines {
					p.unknown = true
					return nil, fmt.Errorf("read transcript %s: %w", name, ErrUnknownFormat)
				}
			}
			if p.h == nil {
				if !json.Valid(line) {
					skip(n, false, errNotJSON(line))
				}
			} else if perr := p.h.line(line); perr != nil {
				skip(n, false, perr)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if le.FirstLine == 0 {
		return nil, nil
	}
	return le, nil
}

// subagents reads the transcripts of a Claude Code session's subagents, in
// name order. A file that cannot be opened is passed over: the session's
// own transcript is what was asked for.
func (p *parser) subagents(path string) (*LinesError, error) {
	base, ok := strings.CutSuffix(path, ".jsonl")
	if !ok {
		return nil, nil
	}
	dir := filepath.Join(base, "subagents")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil
	}
	own := p.h
	defer func() { p.h = own }()
	p.h = &claudeReader{b: p.b, sidechain: true}
	var first *LinesError
	for _, e := range entries { // ReadDir sorts by name
		name := e.Name()
		if e.IsDir() || !strings.HasPrefix(name, "agent-") || !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		f, err := openRegular(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		le, err := p.lines(f, filepath.Join(dir, name))
		f.Close()
		if err != nil {
			return first, err
		}
		if first == nil {
			first = le
		}
	}
	return first, nil
}

// result ends the read. A transcript with lines but no format found is
// ErrUnknownFormat; one without lines is an empty session of the runtime
// the caller said, if it said one.
func (p *parser) result(le *LinesError, err error, runtime string) (*Session, error) {
	if p.unknown {
		return nil, err
	}
	if err == nil && p.h == nil {
		if p.seen || (runtime != RuntimeClaudeCode && runtime != RuntimeCodex) {
			return nil, fmt.Errorf("read transcript: %w", ErrUnknownFormat)
		}
		p.b.s.Runtime = runtime
	}
	s := p.b.finish(p.h)
	switch {
	case err != nil:
		return s, err
	case le != nil:
		return s, le
	}
	return s, nil
}

// errNotJSON says why a line is not JSON, without quoting it: a transcript
// line may hold anything, secrets included.
func errNotJSON(line []byte) error {
	var v any
	if err := json.Unmarshal(line, &v); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return errors.New("not JSON")
}

// isCodexType reports whether t is the type of a Codex rollout line (the
// variants of codex-rs' RolloutItem).
func isCodexType(t string) bool {
	switch t {
	case "session_meta", "response_item", "event_msg", "turn_context", "compacted":
		return true
	}
	return false
}

// sniff tells the format from one line, or returns nil if it cannot.
func sniff(line []byte, b *builder) lineHandler {
	var v struct {
		Type      string          `json:"type"`
		Payload   json.RawMessage `json:"payload"`
		SessionID string          `json:"sessionId"`
		Message   json.RawMessage `json:"message"`
	}
	if json.Unmarshal(line, &v) != nil {
		return nil
	}
	switch {
	case v.Payload != nil && isCodexType(v.Type):
		b.s.Runtime = RuntimeCodex
		return newCodexReader(b)
	case v.Type == "user" || v.Type == "assistant" || v.Type == "summary" || v.Type == "system",
		v.SessionID != "" && v.Type != "":
		b.s.Runtime = RuntimeClaudeCode
		return &claudeReader{b: b}
	}
	return nil
}

// lineReader returns a file's lines one at a time. A line longer than max
// is consumed without being kept (long is true); no line is ever held whole
// beyond max bytes.
type lineReader struct {
	ctx context.Context // a line without end stops when it ends
	r   *bufio.Reader
	max int
	buf []byte
}

// next returns the next line without its line ending. At the end it
// returns io.EOF, with the last line if it had no newline. The line is
// valid until the next call.
func (lr *lineReader) next() (line []byte, long bool, err error) {
	lr.buf = lr.buf[:0]
	for {
		frag, err := lr.r.ReadSlice('\n')
		switch {
		case long:
		case len(lr.buf)+len(frag) > lr.max+2: // +2: the line ending is not the line's
			long = true
			lr.buf = lr.buf[:0]
		case err == nil && len(lr.buf) == 0:
			return trimEOL(frag), false, nil // the common case: no copy
		default:
			lr.buf = append(lr.buf, frag...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			if lr.ctx != nil && lr.ctx.Err() != nil {
				return nil, long, lr.ctx.Err()
			}
			continue
		}
		if long {
			return nil, true, err
		}
		if err != nil && len(lr.buf) == 0 {
			return nil, false, err
		}
		return trimEOL(lr.buf), false, err
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}
