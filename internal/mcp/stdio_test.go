package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"strings"
	"testing"
	"time"
)

// TestStdinDuplicateID: a request whose id is still waiting for its answer
// is refused with a null id (the answer must not pass for the first
// request's); once the first is answered, the id may be used again.
func TestStdinDuplicateID(t *testing.T) {
	var out bytes.Buffer
	o := newStdout(&out)
	s := newStdin(context.Background(), nil, o)
	req := []byte(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	if fwd, err := s.check(bytes.Clone(req)); err != nil || string(fwd) != string(req)+"\n" {
		t.Fatalf("first request: %q, %v; want it passed on", fwd, err)
	}
	if fwd, err := s.check(bytes.Clone(req)); err != nil || fwd != nil {
		t.Fatalf("second request with id 5: %q, %v; want it answered here", fwd, err)
	}
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: id 5 is already in use by a request in progress"}}` + "\n"
	if out.String() != want {
		t.Errorf("answer = %q, want %q", out.String(), want)
	}
	// Numbers are ids whatever their spelling: 5.0 is 5, as the SDK reads it.
	if fwd, _ := s.check([]byte(`{"jsonrpc":"2.0","id":5.0,"method":"ping"}`)); fwd != nil {
		t.Errorf("id 5.0 while 5 is waiting: passed on")
	}
	if _, err := o.Write([]byte(`{"jsonrpc":"2.0","id":5,"result":{}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	if fwd, err := s.check(bytes.Clone(req)); err != nil || fwd == nil {
		t.Errorf("id 5 after its answer: %q, %v; want it passed on", fwd, err)
	}
	// A string id is another id than the number.
	if fwd, _ := s.check([]byte(`{"jsonrpc":"2.0","id":"5","method":"ping"}`)); fwd == nil {
		t.Errorf(`id "5" while 5 is waiting: refused`)
	}
}

// TestStdinEOF: at the end of stdin, io.EOF waits for the answers to the
// requests passed on, and no longer than the context or the timeout.
func TestStdinEOF(t *testing.T) {
	call := `{"jsonrpc":"2.0","id":"a","method":"tools/list"}` + "\n"

	t.Run("answered", func(t *testing.T) {
		o := newStdout(io.Discard)
		s := newStdin(context.Background(), strings.NewReader(call), o)
		if got := readMessage(t, s); got != call {
			t.Fatalf("read %q, want %q", got, call)
		}
		done := make(chan error)
		go func() { _, err := s.Read(make([]byte, 10)); done <- err }()
		select {
		case err := <-done:
			t.Fatalf("Read returned %v before the answer", err)
		default:
		}
		if _, err := o.Write([]byte(`{"jsonrpc":"2.0","id":"a","result":{}}` + "\n")); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != io.EOF {
			t.Errorf("Read after the answer = %v, want io.EOF", err)
		}
	})
	t.Run("context ends", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		s := newStdin(ctx, strings.NewReader(call), newStdout(io.Discard))
		readMessage(t, s)
		cancel()
		if _, err := s.Read(make([]byte, 10)); err != io.EOF {
			t.Errorf("Read = %v, want io.EOF", err)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		s := newStdin(context.Background(), strings.NewReader(call), newStdout(io.Discard))
		s.timeout = time.Nanosecond
		readMessage(t, s)
		if _, err := s.Read(make([]byte, 10)); err != io.EOF {
			t.Errorf("Read = %v, want io.EOF", err)
		}
	})
}

// readMessage reads one message from s, in small reads as a decoder may.
func readMessage(t *testing.T, s *stdin) string {
	t.Helper()
	var b strings.Builder
	p := make([]byte, 7)
	for !strings.HasSuffix(b.String(), "\n") {
		n, err := s.Read(p)
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		b.Write(p[:n])
	}
	return b.String()
}

// TestStdinLongLine: a line over the cap is answered and skipped, without
// being kept, and the next line is read; the last line needs no newline.
func TestStdinLongLine(t *testing.T) {
	var out bytes.Buffer
	in := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 200*1024) + `"}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`
	s := newStdin(context.Background(), strings.NewReader(in), newStdout(&out))
	s.max = 64 * 1024
	if got, want := readMessage(t, s), `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"; got != want {
		t.Errorf("read %q, want %q", got, want)
	}
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message is at most 65536 bytes"}}` + "\n"
	if out.String() != want {
		t.Errorf("answer = %q, want %q", out.String(), want)
	}
	if cap(s.line) > 2*s.max {
		t.Errorf("the long line was kept: buffer of %d bytes", cap(s.line))
	}
	if _, err := s.Read(make([]byte, 10)); err != io.EOF {
		t.Errorf("Read at the end = %v, want io.EOF", err)
	}
}

// TestValidID: an id is a string or an integer a float64 holds exactly.
func TestValidID(t *testing.T) {
	for raw, want := range map[string]bool{`"x"`: true, `""`: true, `0`: true, `-3`: true, `1e3`: true, `9007199254740992`: true,
		`9007199254740994`: false, `1.5`: false, `null`: false, `{}`: false, `[1]`: false, `true`: false} {
		if got := validID([]byte(raw)); got != want {
			t.Errorf("validID(%s) = %v, want %v", raw, got, want)
		}
	}
}

// TestServe: Serve over a stdin that holds the whole session and ends at
// once answers every request, and a bad line in between, in process (the
// race detector sees the filter, the SDK and the tool calls together).
func TestServe(t *testing.T) {
	f := newFixture(t, "")
	s := New(Options{Dir: f.root, Getenv: func(k string) string { return f.env[k] },
		Now: func() time.Time { return testNow }, Rand: bytes.NewReader(bytes.Repeat([]byte{7, 1, 9, 3}, 4096)), PID: 42, Version: "test"})
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"serve-test","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"task","arguments":{"action":"create","title":"write the lexer"}}}`,
		`not json`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"record_run","arguments":{"intent":"lex"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
	}, "\n")
	var out bytes.Buffer
	if err := s.Serve(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	got := map[string]string{}
	for line := range strings.Lines(out.String()) {
		var msg struct {
			ID     json.RawMessage
			Result *struct {
				IsError           bool
				StructuredContent struct {
					Run struct{ Agent struct{ Runtime string } }
				}
			}
			Error *struct{ Code int }
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		id := string(msg.ID)
		switch {
		case msg.Error != nil:
			got[id] = fmt.Sprintf("error %d", msg.Error.Code)
		case msg.Result == nil || msg.Result.IsError:
			got[id] = "no result: " + line
		case id == "3" && msg.Result.StructuredContent.Run.Agent.Runtime != "serve-test":
			got[id] = "a run without the client's name as its runtime: " + line
		default:
			got[id] = "result"
		}
	}
	want := map[string]string{"1": "result", "2": "result", "3": "result", "4": "result", "null": "error -32700"}
	if !maps.Equal(got, want) {
		t.Errorf("answers = %v, want %v\nstdout:\n%s", got, want, out.String())
	}
}
