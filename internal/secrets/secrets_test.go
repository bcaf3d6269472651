package secrets

import (
	"fmt"
	"strings"
	"sync"
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

func TestScanIsSafeForConcurrentUse(t *testing.T) {
	t.Parallel()
	text := "export GITHUB_TOKEN=ghp_R8x2Lq9ZpT4vW7nK1mB5cY3dF6gH0jS2aE9u\n"
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			for range 20 {
				found, err := Scan(text)
				if err != nil || len(found) != 1 {
					errs <- fmt.Errorf("Scan = %+v, %v", found, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestMatchesCarryWhatScanFinds pins the form the differential test in
// ./gitleakscheck compares with gitleaks: the same finding as Scan's,
// with gitleaks' 0-based line, the match's byte offset and the secret.
func TestMatchesCarryWhatScanFinds(t *testing.T) {
	t.Parallel()
	secret := "ghp_R8x2Lq9ZpT4vW7nK1mB5cY3dF6gH0jS2aE9u"
	text := "Use the deploy token.\nexport GITHUB_TOKEN=" + secret + "\n"
	got, err := Matches(text)
	if err != nil {
		t.Fatal(err)
	}
	want := []Match{{RuleID: "github-pat", Line: 1, Offset: strings.Index(text, secret), Secret: secret}}
	if len(got) != 1 || got[0] != want[0] {
		t.Fatalf("Matches = %+v, want %+v", got, want)
	}
	found, err := Scan(text)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].RuleID != got[0].RuleID || found[0].Line != got[0].Line+1 {
		t.Errorf("Scan = %+v, Matches = %+v: not the same finding", found, got)
	}
}
