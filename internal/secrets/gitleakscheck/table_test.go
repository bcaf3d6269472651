package gitleakscheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestRulesTableIsCurrent regenerates the table from the gitleaks version
// in this module's go.mod: a gitleaks upgrade without `go generate
// ./internal/secrets` fails here.
func TestRulesTableIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the generator")
	}
	out := filepath.Join(t.TempDir(), "rules_gen.go")
	cmd := exec.Command("go", "run", "./gen", "-o", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./gen: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "rules_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("internal/secrets/rules_gen.go is not what the generator writes now; run go generate ./internal/secrets")
	}
}
