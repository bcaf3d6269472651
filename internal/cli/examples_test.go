package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/hooks"
)

// examples/agents/<runtime>/ holds exactly the files `memctl hooks
// install <runtime>` writes in a repository: kept in step with the code by
// this test (MEMCTL_UPDATE=1 rewrites them).
func TestAgentExamplesAreWhatHooksInstallWrites(t *testing.T) {
	examples := filepath.Join("..", "..", "examples", "agents")
	for _, r := range hooks.Runtimes {
		t.Run(r.Name, func(t *testing.T) {
			env, dir := workspace(t)
			run(t, env, "hooks", "install", r.Name)
			written := map[string][]byte{}
			for _, top := range []string{".claude", ".codex", ".gemini", ".cursor", ".opencode"} {
				_ = filepath.WalkDir(filepath.Join(dir, top), func(p string, d os.DirEntry, err error) error {
					if err != nil || d.IsDir() {
						return nil
					}
					data, err := os.ReadFile(p)
					if err != nil {
						t.Fatal(err)
					}
					rel, _ := filepath.Rel(dir, p)
					written[filepath.ToSlash(rel)] = data
					return nil
				})
			}
			if len(written) == 0 {
				t.Fatal("hooks install wrote nothing")
			}
			base := filepath.Join(examples, r.Name)
			if updateGolden {
				for rel, data := range written {
					p := filepath.Join(base, filepath.FromSlash(rel))
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			have := map[string]bool{}
			_ = filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && d.Name() != "README.md" {
					rel, _ := filepath.Rel(base, p)
					have[filepath.ToSlash(rel)] = true
				}
				return nil
			})
			for rel, data := range written {
				got, err := os.ReadFile(filepath.Join(base, filepath.FromSlash(rel)))
				if err != nil || !bytes.Equal(got, data) {
					t.Errorf("examples/agents/%s/%s is not what hooks install writes (MEMCTL_UPDATE=1 go test ./internal/cli -run TestAgentExamples rewrites it)", r.Name, rel)
				}
				delete(have, rel)
			}
			for rel := range have {
				t.Errorf("examples/agents/%s/%s is not written by hooks install", r.Name, rel)
			}
			readme, err := os.ReadFile(filepath.Join(base, "README.md"))
			if err != nil || !strings.Contains(string(readme), "memctl hooks install "+r.Name) {
				t.Errorf("examples/agents/%s/README.md must say how the files were made (err %v)", r.Name, err)
			}
		})
	}
}
