package agents

import (
	"os"
	"path/filepath"
	"testing"
)

// TestClaudeLinkedToAgentsIsFine: a CLAUDE.md that is a link to AGENTS.md
// carries the memctl block itself; no warning that it lacks the import.
func TestClaudeLinkedToAgentsIsFine(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.Symlink("AGENTS.md", filepath.Join(root, "CLAUDE.md")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	for _, opts := range []Options{{}, {ClaudeMD: true}} {
		res, err := Install(root, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Warnings) != 0 {
			t.Errorf("Install(%+v) warned: %q", opts, res.Warnings)
		}
	}
}
