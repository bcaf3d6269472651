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
	err   error
	calls int
}

func (f *flaky) ID() string  { return "ollama:m" }
func (f *flaky) URL() string { return "http://127.0.0.1:1" }

func (f *flaky) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.calls++
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
