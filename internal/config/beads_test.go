package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIDPrefix(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]string{
		"bd-a3f8": "bd", "bd-a3f8.1.2": "bd", "my-proj-x9": "my-proj", "zz-1": "zz",
		"noprefix": "", "-abc": "", "bd-": "", "bad!-x": "", "": "",
	} {
		if got := IDPrefix(id); got != want {
			t.Errorf("IDPrefix(%q) = %q, want %q", id, got, want)
		}
	}
}

func TestProjectPrefix(t *testing.T) {
	t.Parallel()
	issues := `{"_type":"issue","id":"bd-x1","title":"a","comments":[{"id":"c-1","issue_id":"bd-x1"}]}
{"id":"bd-x1.1","title":"b","dependencies":[{"issue_id":"bd-x1.1","depends_on_id":"zz-q"}]}
{"id":"zz-q","title":"c"}
`
	for _, c := range []struct {
		name, config, issues, want, source string
	}{
		{"config", "# comment\nissue-prefix: \"cfg\"  # bd's\nno-db: true\n", issues, "cfg", PrefixFromBeadsConfig},
		{"config single quotes", "issue-prefix: 'q-1'\n", "", "q-1", PrefixFromBeadsConfig},
		{"config unquoted", "issue_prefix: plain # note\n", "", "plain", PrefixFromBeadsConfig},
		{"commented out", "# issue-prefix: \"cfg\"\n", issues, "bd", PrefixFromIssues},
		{"nested key ignored", "sync:\n  issue-prefix: nested\n", issues, "bd", PrefixFromIssues},
		{"invalid in config", "issue-prefix: \"no way\"\n", issues, "bd", PrefixFromIssues},
		{"no bd files", "", "", "myrepo", PrefixFromDirectory},
	} {
		root := filepath.Join(t.TempDir(), "myrepo")
		if err := os.MkdirAll(filepath.Join(root, ".beads"), 0o755); err != nil {
			t.Fatal(err)
		}
		if c.config != "" {
			os.WriteFile(filepath.Join(root, ".beads", "config.yaml"), []byte(c.config), 0o644)
		}
		if c.issues != "" {
			os.WriteFile(filepath.Join(root, ".beads", "issues.jsonl"), []byte(c.issues), 0o644)
		}
		if got, src := ProjectPrefix(root); got != c.want || src != c.source {
			t.Errorf("%s: ProjectPrefix = %q from %q, want %q from %q", c.name, got, src, c.want, c.source)
		}
	}
}
