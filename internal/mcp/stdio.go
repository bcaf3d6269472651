package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The stdio guard. The SDK's stdio connection ends the session on the
// first line it cannot decode (not JSON, not JSON-RPC 2.0, an object as
// the id), and drops the requests still in progress when stdin closes.
// An agent cannot restart the server by itself, and a client that writes
// its requests and closes stdin expects its answers, so the server reads
// stdin through a filter: a line that is not a valid message is answered
// here, as JSON-RPC 2.0 says (-32700 Parse error, -32600 Invalid Request,
// with the id when it is a valid one), and never reaches the SDK; and at
// the end of stdin the filter holds back io.EOF until every request it
// passed on has been answered.

// maxLine is the longest line read: the SDK's own cap on a message. A
// longer line is answered with Invalid Request and skipped.
const maxLine = sdk.DefaultMaxLineLength

// drainTimeout bounds the wait, once stdin has closed, for the answers
// to the requests already read: generous, since a call may rebuild the
// index, but not forever.
const drainTimeout = 2 * time.Minute

// stdout is the server's output, shared by the SDK and the filter's
// answers: one whole message per Write (the SDK writes each message with
// its newline in one call), under a mutex so that two never interleave.
// It knows the requests passed on to the SDK and not yet answered.
type stdout struct {
	mu      sync.Mutex
	w       io.Writer
	pending map[jsonrpc.ID]bool
	changed chan struct{} // closed and replaced when pending shrinks
}

func newStdout(w io.Writer) *stdout {
	return &stdout{w: w, pending: map[jsonrpc.ID]bool{}, changed: make(chan struct{})}
}

// Write writes one message. A response settles its request, even when
// the write fails: the SDK then ends the session anyway.
func (o *stdout) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n, err := o.w.Write(p)
	if len(o.pending) > 0 {
		if resp, ok := decode(p).(*jsonrpc.Response); ok && o.pending[resp.ID] {
			delete(o.pending, resp.ID)
			close(o.changed)
			o.changed = make(chan struct{})
		}
	}
	return n, err
}

// Close leaves the process's stdout open: it is not the server's to close.
func (o *stdout) Close() error { return nil }

// decode is the message in p, or nil.
func decode(p []byte) jsonrpc.Message {
	msg, err := jsonrpc.DecodeMessage(bytes.TrimSpace(p))
	if err != nil {
		return nil
	}
	return msg
}

// track records a request passed on to the SDK. It is false when a
// request with that id is still waiting for its answer: the two answers
// could not be told apart.
func (o *stdout) track(id jsonrpc.ID) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.pending[id] {
		return false
	}
	o.pending[id] = true
	return true
}

// drain waits until every request passed on has been answered, ctx ends
// or timeout passes.
func (o *stdout) drain(ctx context.Context, timeout time.Duration) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		o.mu.Lock()
		n, changed := len(o.pending), o.changed
		o.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		case <-timer.C:
			return
		}
	}
}

// wireError is a JSON-RPC error response the filter writes itself. Its
// id is the request's when that could be read, else null, as JSON-RPC
// 2.0 requires (the SDK's encoder would leave a null id out).
type wireError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   wireErrorBody   `json:"error"`
}

type wireErrorBody struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// answer writes the error response to a line the SDK will not see.
func (o *stdout) answer(id json.RawMessage, code int64, msg string) error {
	if id == nil {
		id = json.RawMessage("null")
	}
	data, err := json.Marshal(wireError{JSONRPC: "2.0", ID: id, Error: wireErrorBody{Code: code, Message: msg}})
	if err != nil {
		return err
	}
	_, err = o.Write(append(data, '\n'))
	return err
}

// stdin is the filter over the server's input that the SDK reads: valid
// messages, one per line, and io.EOF only once they are all answered.
type stdin struct {
	ctx     context.Context
	in      *bufio.Reader
	out     *stdout
	timeout time.Duration
	max     int    // the longest line, maxLine
	line    []byte // the line being read
	next    []byte // what is left of the message being handed over
	eof     bool
}

func newStdin(ctx context.Context, in io.Reader, out *stdout) *stdin {
	return &stdin{ctx: ctx, in: bufio.NewReaderSize(in, 64*1024), out: out, timeout: drainTimeout, max: maxLine}
}

// Read hands over the next valid message, answering the invalid ones
// before it.
func (s *stdin) Read(p []byte) (int, error) {
	for len(s.next) == 0 {
		if s.eof {
			s.out.drain(s.ctx, s.timeout)
			return 0, io.EOF
		}
		line, tooLong, err := s.readLine()
		if errors.Is(err, io.EOF) {
			s.eof = true
		} else if err != nil {
			return 0, err
		}
		if tooLong {
			if err := s.out.answer(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: a message is at most %d bytes", s.max)); err != nil {
				return 0, err
			}
			continue
		}
		if s.next, err = s.check(line); err != nil {
			return 0, err
		}
	}
	n := copy(p, s.next)
	s.next = s.next[n:]
	return n, nil
}

// Close ends nothing: the process's stdin is not the server's to close.
func (s *stdin) Close() error { return nil }

// readLine reads up to and including the next newline. A line longer
// than s.max is read to its end and dropped (tooLong).
func (s *stdin) readLine() (line []byte, tooLong bool, err error) {
	s.line = s.line[:0]
	for {
		chunk, err := s.in.ReadSlice('\n')
		if !tooLong && len(s.line)+len(chunk) > s.max+2 { // room for "\r\n"
			tooLong, s.line = true, s.line[:0]
		}
		if !tooLong {
			s.line = append(s.line, chunk...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return s.line, tooLong, err
		}
	}
}

// check is the line as the SDK should read it, newline-terminated, or
// nil after answering it here: a blank line is skipped, one that is not
// JSON is a parse error, one that is not a JSON-RPC 2.0 message (or is a
// request whose id is already waiting for its answer) is an invalid
// request. The error is a failed write of that answer.
func (s *stdin) check(line []byte) ([]byte, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil, nil
	}
	id, code, msg := validate(line)
	if code == 0 {
		if req, ok := decode(line).(*jsonrpc.Request); ok && req.IsCall() && !s.out.track(req.ID) {
			code, msg = jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: id %s is already in use by a request in progress", id)
			id = nil // the answer must not pass for the first request's
		}
	}
	if code != 0 {
		return nil, s.out.answer(id, int64(code), msg)
	}
	return append(line, '\n'), nil
}

// validate checks that line is one JSON-RPC 2.0 message the SDK will
// take: a JSON object, "jsonrpc": "2.0", an id that is absent, a string
// or an integer, a string method (a request) or else a result or an
// error (a response), params an object or an array. It returns the
// error's code and message, 0 when the line is valid, and the id (nil
// when it is absent or not valid) to answer with.
func validate(line []byte) (id json.RawMessage, code int, msg string) {
	var m map[string]json.RawMessage
	err := json.Unmarshal(line, &m)
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		return nil, jsonrpc.CodeParseError, "Parse error: " + err.Error()
	case line[0] == '[':
		return nil, jsonrpc.CodeInvalidRequest, "Invalid Request: batches are not supported; send one message per line"
	case err != nil || m == nil: // a string, a number, null
		return nil, jsonrpc.CodeInvalidRequest, "Invalid Request: a message is a JSON object"
	}
	var version string
	if raw, ok := m["id"]; ok {
		if !validID(raw) {
			return nil, jsonrpc.CodeInvalidRequest, `Invalid Request: "id" must be a string or an integer`
		}
		id = raw
	}
	if v, ok := m["jsonrpc"]; !ok || json.Unmarshal(v, &version) != nil || version != "2.0" {
		return id, jsonrpc.CodeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`
	}
	method, isRequest := m["method"]
	switch {
	case isRequest && (len(method) == 0 || method[0] != '"'):
		return id, jsonrpc.CodeInvalidRequest, `Invalid Request: "method" must be a string`
	case !isRequest && (id == nil || (m["result"] == nil && m["error"] == nil)):
		return id, jsonrpc.CodeInvalidRequest, `Invalid Request: a request needs "method" (a response, "id" and "result" or "error")`
	}
	if e, ok := m["error"]; ok && !isRequest && e[0] != '{' {
		return id, jsonrpc.CodeInvalidRequest, `Invalid Request: "error" must be an object with "code" and "message"`
	}
	if p, ok := m["params"]; ok && string(p) != "null" && p[0] != '{' && p[0] != '[' {
		return id, jsonrpc.CodeInvalidRequest, `Invalid Request: "params" must be an object`
	}
	// Whatever else the SDK's decoder refuses (too deeply nested, an
	// error that is not an error object).
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return id, jsonrpc.CodeInvalidRequest, "Invalid Request: " + err.Error()
	}
	return id, 0, ""
}

// validID: a string, or an integer a float64 holds exactly (the SDK reads
// a number id as a float64 and answers with it as an int64).
func validID(raw json.RawMessage) bool {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return false
	}
	switch v := v.(type) {
	case string:
		return true
	case float64:
		return v == math.Trunc(v) && math.Abs(v) <= 1<<53
	}
	return false
}
