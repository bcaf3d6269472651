package secrets

import (
	"strings"
	"testing"
)

func TestScanFindsSecretsAndNeverReturnsThem(t *testing.T) {
	t.Parallel()
	secret := "ghp_R8x2Lq9ZpT4vW7nK1mB5cY3dF6gH0jS2aE9u"
	found, err := Scan("Use the deploy token.\nexport GITHUB_TOKEN=" + secret + "\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].RuleID != "github-pat" || found[0].Line != 2 {
		t.Fatalf("found = %+v, want one github-pat on line 2", found)
	}
	if strings.Contains(Describe(found), secret) || strings.Contains(Describe(found), "ghp_") {
		t.Errorf("description leaks the secret: %s", Describe(found))
	}
}

func TestScanLeavesOrdinaryTextAlone(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"Commit 3f9a2c1e8b7d6f5a4c3b2a1908f7e6d5c4b3a291 fixed the flake.",
		"The request id is 123e4567-e89b-12d3-a456-426614174000.",
		"Image digest sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"Never call time.Now in domain code; take the clock from the caller.",
	} {
		found, err := Scan(s)
		if err != nil || len(found) != 0 {
			t.Errorf("Scan(%q) = %+v, %v; want nothing", s, found, err)
		}
	}
}
