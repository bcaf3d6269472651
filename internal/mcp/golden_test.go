package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", os.Getenv("MEMCTL_UPDATE") == "1", "rewrite testdata/tools.golden (also MEMCTL_UPDATE=1, as make golden sets)")

// TestToolsGolden pins what tools/list tells a client: the tools, their
// descriptions, annotations and input schemas. The schemas are a contract
// with the agents (a renamed field breaks their calls), and they cost
// context on every session, so a change must show in review.
func TestToolsGolden(t *testing.T) {
	f := newFixture(t, "")
	list, err := f.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(list.Tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	// One type per property: clients such as Gemini CLI refuse a tool
	// list with a union type (["null", "array"]).
	if bytes.Contains(got, []byte(`"type": [`)) {
		t.Errorf("a tool's schema has a union type:\n%s", got)
	}
	path := filepath.Join("testdata", "tools.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("tools/list changed (MEMCTL_UPDATE=1 go test ./internal/mcp rewrites %s; read the diff):\n%s", path, got)
	}
}
