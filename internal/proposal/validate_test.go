package proposal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestValidateJSON(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		ok   bool
		line int
		msg  string
	}{
		{`{"id":"p1"}`, true, 0, ""},
		{"{\n  \"id\": \"p1\",\n  \"content\": \"x\"\n}\n", true, 0, ""},
		{"{\n  \"id\": \"p1\"\n  \"content\": \"x\"\n}\n", false, 3, "invalid JSON"},
		{"{\n  \"id\": \"p1\",\n", false, 2, "unexpected end"},
		{"", false, 1, "empty"},
		{"\n[1, 2]\n", false, 2, "JSON array, not an object"},
		{`"text"`, false, 1, "JSON string, not an object"},
	} {
		line, msg, ok := ValidateJSON([]byte(c.in))
		if ok != c.ok || line != c.line || !strings.Contains(msg, c.msg) {
			t.Errorf("ValidateJSON(%q) = %d, %q, %v; want %d, %q, %v", c.in, line, msg, ok, c.line, c.msg, c.ok)
		}
	}
}

func TestValidateDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"a.json":    `{"schema_version":1,"id":"a","action":"add","category":"pitfalls","content":"x","reason":"y","status":"pending","created_at":"2026-11-20T00:00:00Z"}`,
		"b.json":    `{"id":`,
		"notes.txt": "not json, not checked",
		".tmp.json": "partial write, not checked",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	problems, n, err := ValidateDir(dir, ".ledger/proposals", time.Now(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 || len(problems) != 1 || problems[0].File != ".ledger/proposals/b.json" {
		t.Errorf("ValidateDir = %+v, %d", problems, n)
	}
	if p, n, err := ValidateDir(filepath.Join(dir, "missing"), "x", time.Now(), 0, nil); err != nil || n != 0 || p != nil {
		t.Errorf("missing directory: %v, %d, %v", p, n, err)
	}
}

func TestParseEvidence(t *testing.T) {
	for in, want := range map[string]Evidence{
		"task:kv-8f2":             {Kind: "task", Ref: "kv-8f2"},
		"url:https://example.com": {Kind: "url", Ref: "https://example.com"},
		"commit:4c1e2a":           {Kind: "commit", Ref: "4c1e2a"},
	} {
		if got, err := ParseEvidence(in); err != nil || got != want {
			t.Errorf("ParseEvidence(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"blog:x", "task:", "task", "", ":x"} {
		if _, err := ParseEvidence(in); err == nil {
			t.Errorf("ParseEvidence(%q) accepted it", in)
		}
	}
}
