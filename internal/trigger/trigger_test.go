package trigger

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/runs"
)

func TestFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, f := range []string{"a.go", "pkg/b.go", ".ledger/facts/x.md"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	for _, c := range []struct {
		tool  string
		input json.RawMessage
		cwd   string
		want  []string
	}{
		{"Edit", in(map[string]any{"file_path": filepath.Join(root, "a.go")}), "", []string{"a.go"}},
		{"Write", in(map[string]any{"file_path": "new.go"}), "", []string{"new.go"}}, // a new file: written, need not exist
		{"MultiEdit", in(map[string]any{"file_path": "b.go"}), filepath.Join(root, "pkg"), []string{"pkg/b.go"}},
		{"Edit", in(map[string]any{"file_path": "/elsewhere/a.go"}), "", nil},
		{"Edit", in(map[string]any{"file_path": ".ledger/facts/x.md"}), "", nil},
		{"apply_patch", in(map[string]any{"input": "*** Begin Patch\n*** Update File: a.go\n@@\n*** Add File: c.go\n*** End Patch"}), "", []string{"a.go", "c.go"}},
		{"Bash", in(map[string]any{"command": `gofmt -w a.go pkg/b.go "missing.go" && go vet ./...`}), "", []string{"a.go", "pkg/b.go"}},
		{"Bash", in(map[string]any{"command": "cat a.go:12 | head"}), "", []string{"a.go"}},
		{"exec_command", in(map[string]any{"cmd": []string{"sed", "-i", "s/x/y/", "a.go"}}), "", []string{"a.go"}},
		{"Read", in(map[string]any{"file_path": "a.go"}), "", nil},
		// Codex: the patch in command; OpenCode: patchText; Cursor: the
		// whole input, or patch.
		{"apply_patch", in(map[string]any{"command": "*** Begin Patch\n*** Update File: pkg/b.go\n*** End Patch"}), "", []string{"pkg/b.go"}},
		{"apply_patch", in(map[string]any{"patchText": "*** Begin Patch\n*** Delete File: a.go\n*** End Patch"}), "", []string{"a.go"}},
		{"ApplyPatch", in("*** Begin Patch\n*** Update File: a.go\n*** End Patch"), "", []string{"a.go"}},
		{"ApplyPatch", in(map[string]any{"patch": "*** Begin Patch\n*** Update File: a.go\n*** End Patch"}), "", []string{"a.go"}},
		{"Edit", in("*** Update File: a.go"), "", nil}, // a string is a patch only for a patch tool
		// Gemini CLI, Cursor, OpenCode.
		{"replace", in(map[string]any{"file_path": "a.go"}), "", []string{"a.go"}},
		{"StrReplace", in(map[string]any{"path": "pkg/b.go"}), "", []string{"pkg/b.go"}},
		{"Write", in(map[string]any{"filePath": "a.go"}), "", []string{"a.go"}},
		{"edit", in(map[string]any{"filePath": filepath.Join(root, "a.go")}), "", []string{"a.go"}},
		{"Shell", in(map[string]any{"command": "go test ./pkg && cat a.go"}), "", []string{"a.go"}},
		{"bash", in(map[string]any{"command": "rm pkg/b.go"}), "", []string{"pkg/b.go"}},
		{"Edit", json.RawMessage(`not json`), "", nil},
	} {
		if got := Files(c.tool, c.input, c.cwd, root); !slices.Equal(got, c.want) {
			t.Errorf("Files(%s, %s) = %q, want %q", c.tool, c.input, got, c.want)
		}
	}
}

// The text names every run and playbook with its id, newest first as
// given, and stays within MaxText.
func TestText(t *testing.T) {
	t.Parallel()
	if Text(runs.WarnResult{Files: []string{"a.go"}}) != "" {
		t.Error("nothing to say gave text")
	}
	at := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	res := runs.WarnResult{Files: []string{"a.go"}}
	for i := range 40 {
		r := &runs.Record{RunID: "r-" + strings.Repeat(string(rune('a'+i%26)), 8), Status: runs.StatusFailure, StartedAt: at}
		res.Runs = append(res.Runs, runs.RunWarning{Entry: runs.Entry{Record: r}, Files: []string{"a.go"},
			Errors: []runs.WarnError{{Error: runs.Error{Signature: "abc123", Excerpt: "undefined: X " + strings.Repeat("y", 50)}, Playbook: ".ledger/playbooks/abc123.md"}}})
	}
	text := Text(res)
	if n := utf8.RuneCountInString(text); n > MaxText || n < MaxText/2 {
		t.Errorf("%d characters, want at most %d (and most of them used)", n, MaxText)
	}
	if !strings.HasPrefix(text, "memctl: past failures touching a.go:\n- run r-aaaaaaaa (2026-11-20 failure, files a.go): undefined: X") ||
		!strings.Contains(text, "signature abc123, playbook .ledger/playbooks/abc123.md") {
		t.Errorf("text:\n%s", text)
	}
}

// A session's state says each file once; another session starts afresh.
func TestSeen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := SeenFor(dir, "claude", "s1")
	if got := s.New([]string{"a.go", "b.go"}); len(got) != 2 {
		t.Fatalf("new session saw %v", got)
	}
	if err := s.Add([]string{"a.go"}); err != nil {
		t.Fatal(err)
	}
	if got := SeenFor(dir, "claude", "s1").New([]string{"a.go", "b.go"}); !slices.Equal(got, []string{"b.go"}) {
		t.Errorf("after a.go was said: %v", got)
	}
	if got := SeenFor(dir, "claude", "s2").New([]string{"a.go"}); len(got) != 1 {
		t.Errorf("another session: %v", got)
	}
	if err := os.WriteFile(SeenFor(dir, "codex", "s9").path, []byte("{broken"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := SeenFor(dir, "codex", "s9").New([]string{"a.go"}); len(got) != 1 {
		t.Errorf("a damaged state: %v", got)
	}
}
