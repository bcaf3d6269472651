package embed_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/embed"
)

// flaky is an embedder that fails with err while it is set, and counts
// the calls that reach it.
type flaky struct {
	embed.Embedder
	err    error
	calls  int
	during func() // runs inside each call, if set
}

func (f *flaky) ID() string  { return "ollama:m" }
func (f *flaky) URL() string { return "http://127.0.0.1:1" }

func (f *flaky) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.calls++
	if f.during != nil {
		f.during()
	}
	if f.err != nil {
		return nil, f.err
	}
	return f.Embedder.Embed(ctx, texts)
}

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// guard is a new process's guard over e at the time *now holds.
func guard(e embed.Embedder, path string, now *time.Time) *embed.Guard {
	return embed.NewGuard(e, path, func() time.Time { return *now })
}

func newFlaky() *flaky {
	return &flaky{Embedder: embed.NewStatic(embed.Corpus{}), err: errors.New("dial tcp 127.0.0.1:1: connect: connection refused")}
}

func TestGuardRemembersAFailureAcrossProcesses(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), embed.DownFile)
	e := newFlaky()
	now := t0
	ctx := context.Background()

	g := guard(e, path, &now)
	_, err := g.Embed(ctx, []string{"a document"})
	var down *embed.DownError
	if !errors.As(err, &down) || down.Skipped || !down.Since.Equal(t0) || !down.Until.Equal(t0.Add(embed.DownFor)) {
		t.Fatalf("first failure: %#v, want a DownError, tried, since t0, until t0+%v", err, embed.DownFor)
	}
	if !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), "skipped until 2026-11-22T10:01:00Z") {
		t.Errorf("error %q", err)
	}
	// The same process does not ask again, and gets the same failure.
	if _, err := g.EmbedQuery(ctx, "a query"); err != down || e.calls != 1 {
		t.Errorf("second call in the process: %v after %d calls, want the first failure, 1 call", err, e.calls)
	}

	// The next process, within the window, skips the embedder at once.
	now = t0.Add(30 * time.Second)
	_, err = guard(e, path, &now).EmbedQuery(ctx, "a query")
	if !errors.As(err, &down) || !down.Skipped || !down.Since.Equal(t0) || e.calls != 1 {
		t.Fatalf("within the window: %v (%d calls), want skipped without a call", err, e.calls)
	}
	if want := "skipping embedder ollama:m until 2026-11-22T10:01:00Z: it has failed since 2026-11-22T10:00:00Z (dial tcp 127.0.0.1:1: connect: connection refused)"; err.Error() != want {
		t.Errorf("skipped:\n got %s\nwant %s", err, want)
	}

	// Past the window it is tried again; failing again keeps the first
	// failure's time and moves the window.
	now = t0.Add(embed.DownFor)
	_, err = guard(e, path, &now).Embed(ctx, []string{"a document"})
	if !errors.As(err, &down) || down.Skipped || e.calls != 2 || !down.Since.Equal(t0) || !down.Until.Equal(now.Add(embed.DownFor)) {
		t.Fatalf("at the window's end: %#v (%d calls), want tried, failed since t0", err, e.calls)
	}

	// Back up: the first call past the window succeeds and forgets it.
	e.err = nil
	now = now.Add(embed.DownFor + time.Second)
	if _, err := guard(e, path, &now).EmbedQuery(ctx, "a query"); err != nil || e.calls != 3 {
		t.Fatalf("after the window with the server up: %v (%d calls)", err, e.calls)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a success left %s: %v", path, err)
	}
	// A new failure later starts a new run of failures.
	e.err = errors.New("HTTP 503: overloaded")
	now = now.Add(time.Hour)
	_, err = guard(e, path, &now).Embed(ctx, []string{"a"})
	if !errors.As(err, &down) || !down.Since.Equal(now) {
		t.Errorf("a failure an hour later: %v, want since now", err)
	}
}

func TestGuardFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := t0
	read := func(t *testing.T, path string) map[string]string {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]string
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s: %v\n%s", path, err, data)
		}
		return m
	}

	t.Run("records what failed, since when and until when", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), embed.DownFile)
		guard(newFlaky(), path, &now).Embed(ctx, []string{"a"})
		got := read(t, path)
		want := map[string]string{"embedder": "ollama:m", "url": "http://127.0.0.1:1", "error": "dial tcp 127.0.0.1:1: connect: connection refused",
			"since": "2026-11-22T10:00:00Z", "until": "2026-11-22T10:01:00Z"}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s = %q, want %q", k, got[k], v)
			}
		}
	})

	for name, content := range map[string]string{
		"a damaged file is ignored and replaced":  "{\"embedder\": \"ollama:m\", \"until\": tomorrow",
		"an empty file is ignored and replaced":   "",
		"a file from a clock set back is ignored": `{"embedder":"ollama:m","url":"http://127.0.0.1:1","error":"x","since":"2026-11-22T10:00:00Z","until":"2026-11-23T10:00:00Z"}`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), embed.DownFile)
			os.WriteFile(path, []byte(content), 0o644)
			e := newFlaky()
			if _, err := guard(e, path, &now).Embed(ctx, []string{"a"}); e.calls != 1 || err == nil {
				t.Fatalf("%d calls, %v: want the embedder tried", e.calls, err)
			}
			if got := read(t, path); got["until"] != "2026-11-22T10:01:00Z" {
				t.Errorf("the file was not replaced: %v", got)
			}
			os.WriteFile(path, []byte(content), 0o644)
			e.err = nil
			if _, err := guard(e, path, &now).Embed(ctx, []string{"a"}); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a success left the file: %v", err)
			}
		})
	}

	t.Run("another embedder's failure is not ours", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), embed.DownFile)
		other := `{"embedder":"ollama:m","url":"http://gpu-box:11434","error":"x","since":"2026-11-22T10:00:00Z","until":"2026-11-22T10:01:00Z"}`
		os.WriteFile(path, []byte(other), 0o644)
		e := newFlaky()
		e.err = nil
		if _, err := guard(e, path, &now).Embed(ctx, []string{"a"}); err != nil || e.calls != 1 {
			t.Fatalf("%d calls, %v: want the embedder used", e.calls, err)
		}
		if data, _ := os.ReadFile(path); string(data) != other {
			t.Errorf("the other embedder's file became %q", data)
		}
	})

	t.Run("a text the server refuses is not a server down", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), embed.DownFile)
		e := newFlaky()
		e.err = &embed.StatusError{Code: 400, Text: "input too long"}
		g := guard(e, path, &now)
		_, err := g.Embed(ctx, []string{"a"})
		var down *embed.DownError
		if err == nil || errors.As(err, &down) {
			t.Fatalf("a 400: %v, want it as it is", err)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a 400 was remembered: %v", err)
		}
		e.err = nil
		if _, err := g.Embed(ctx, []string{"b"}); err != nil || e.calls != 2 {
			t.Errorf("the next text: %v after %d calls", err, e.calls)
		}
	})

	t.Run("the caller's cancellation is not a failure", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), embed.DownFile)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		e := newFlaky()
		e.err = context.Canceled
		if _, err := guard(e, path, &now).Embed(cctx, []string{"a"}); !errors.Is(err, context.Canceled) {
			t.Errorf("%v", err)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a cancellation was remembered: %v", err)
		}
	})

	t.Run("Forget removes this embedder's failure only", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), embed.DownFile)
		guard(newFlaky(), path, &now).Embed(ctx, []string{"a"})
		if err := embed.Forget(path, "ollama:m", "http://gpu-box:11434"); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("Forget of another URL removed it: %v", err)
		}
		if err := embed.Forget(path, "ollama:m", "http://127.0.0.1:1"); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Forget left it: %v", err)
		}
		if err := embed.Forget(path, "ollama:m", "http://127.0.0.1:1"); err != nil {
			t.Errorf("Forget without a file: %v", err)
		}
	})
}

// A request that timed out failed when it gave up, not when it started:
// the minute counts from then, or a timeout longer than the minute would
// leave nothing skipped.
func TestGuardWindowStartsWhenTheCallFailed(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), embed.DownFile)
	now := t0
	e := newFlaky()
	e.during = func() { now = now.Add(90 * time.Second) } // three 30s timeouts
	_, err := guard(e, path, &now).Embed(context.Background(), []string{"a"})
	var down *embed.DownError
	if !errors.As(err, &down) || !down.Since.Equal(t0.Add(90*time.Second)) || !down.Until.Equal(t0.Add(150*time.Second)) {
		t.Fatalf("%v, want failed at t0+90s, skipped until t0+150s", err)
	}
	now = t0.Add(100 * time.Second)
	if _, err := guard(e, path, &now).Embed(context.Background(), []string{"a"}); !errors.As(err, &down) || !down.Skipped || e.calls != 1 {
		t.Errorf("10s after the failure: %v (%d calls), want skipped", err, e.calls)
	}
}

// Documents are embedded with the request timeout, retries included; the
// first batch of a process is preceded by a short text bounded as a query
// is, so that a server that never answers costs the query's bound.
func TestGuardProbesBeforeTheFirstBatch(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t)
	f.delay = 300 * time.Millisecond
	path := filepath.Join(t.TempDir(), embed.DownFile)
	now := t0
	h := newHTTP(t, embed.HTTPConfig{Provider: "ollama", URL: f.URL, Model: "m", Timeout: 10 * time.Second, QueryTimeout: 30 * time.Millisecond})
	docs := []string{"one document", "another document", "a third"}
	_, err := guard(h, path, &now).Embed(context.Background(), docs)
	var down *embed.DownError
	if !errors.As(err, &down) || !strings.Contains(err.Error(), "no answer within 30ms") {
		t.Fatalf("documents for a server slower than the query bound: %v, want the probe's timeout remembered", err)
	}

	// A server that answers (another: the first may still be answering
	// the probe it gave up on).
	up := newFakeServer(t)
	h = newHTTP(t, embed.HTTPConfig{Provider: "ollama", URL: up.URL, Model: "m", QueryTimeout: 5 * time.Second})
	g := guard(h, path, &now)
	for range 2 {
		if _, err := g.Embed(context.Background(), docs); err != nil {
			t.Fatal(err)
		}
	}
	up.mu.Lock()
	defer up.mu.Unlock()
	if got := up.batches; len(got) != 3 || got[0] != 1 || got[1] != 3 || got[2] != 3 {
		t.Errorf("requests %v, want [1 3 3]: the probe once, before the first batch", got)
	}
}

// TestGuardKeepsAnEmbedderThatRefusesOneBatch: a server that answers, then
// fails a batch of documents with an error status (a document too large
// for its model), is up: the failure is returned, not remembered, and the
// next query and batches use the embedder.
func TestGuardKeepsAnEmbedderThatRefusesOneBatch(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t)
	f.poison = "POISON"
	path := filepath.Join(t.TempDir(), embed.DownFile)
	now := t0
	h := newHTTP(t, embed.HTTPConfig{Provider: "ollama", URL: f.URL, Model: "m", Retries: 0})
	g := guard(h, path, &now)
	_, err := g.Embed(context.Background(), []string{"a fact", "a POISON fact"})
	var down *embed.DownError
	if err == nil || errors.As(err, &down) {
		t.Fatalf("a refused batch: %v, want its error, not a remembered failure", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused batch was written down: %v", err)
	}
	if _, err := g.EmbedQuery(context.Background(), "a query"); err != nil {
		t.Errorf("the query after a refused batch: %v", err)
	}
	if _, err := guard(h, path, &now).Embed(context.Background(), []string{"another fact"}); err != nil {
		t.Errorf("another process's batch: %v", err)
	}
}
