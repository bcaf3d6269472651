package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryLeavesOutGitleaks keeps gitleaks' package graph (viper,
// archivers, file-type sniffers…) out of the binary: its start-up would be
// paid by every command. internal/secrets carries gitleaks' rules as a
// generated table instead; gitleaks is imported only by that table's
// generator and by the test comparing the two scanners, in the module of
// their own internal/secrets/gitleakscheck (so it is not even in go.mod).
func TestBinaryLeavesOutGitleaks(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps listed only %d packages", len(deps))
	}
	for _, p := range deps {
		for _, banned := range []string{"github.com/zricethezav/gitleaks", "github.com/spf13/viper"} {
			if strings.HasPrefix(p, banned) {
				t.Errorf("memctl links %s", p)
			}
		}
	}
}
