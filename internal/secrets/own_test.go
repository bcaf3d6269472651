package secrets_test

import (
	"os"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/secrets"
)

func TestURLCredentials(t *testing.T) {
	t.Parallel()
	pw := "S3cr" + "etP4ss"
	for _, c := range []struct {
		text   string
		found  bool
		column int
	}{
		{"db: postgres://app:" + pw + "@db.internal:5432/app", true, 5},
		{"clone https://bob:" + "gh" + "p_R8x2Lq9ZpT4vW7nK1mB5cY3dF6gH0jS2aE9u@github.com/org/repo", true, 7},
		{"redis://:" + pw + "@cache:6379/0", true, 1},
		{"amqp://guest:hunter2@localhost", true, 1},
		{"mongodb+srv://svc:" + pw + "@cluster0.mongodb.net/db", true, 1},
		// no password, or not a URL
		{"ssh://git@github.com/org/repo.git", false, 0},
		{"git@github.com:org/repo.git", false, 0},
		{"mail bob@example.com or https://user@host/db", false, 0},
		{"http://localhost:8080/path@v2", false, 0},
		// placeholders
		{"postgres://user:password@host/db", false, 0},
		{"postgres://user:pass@host/db", false, 0},
		{"https://user:token@github.com", false, 0},
		{"postgres://app:${PASS}@db/app", false, 0},
		{"postgres://app:$DB_PASSWORD@db/app", false, 0},
		{"postgres://app:<password>@db/app", false, 0},
		{"postgres://app:****@db/app", false, 0},
		{"postgres://app:xxxx@db/app", false, 0},
		{"postgres://app:%PASS%@db/app", false, 0},
		{"postgres://app:{{ .Pass }}@db/app", false, 0},
		{"postgres://postgres:postgres@localhost/app", false, 0},
		{"postgres://app:" + pw + "@db.example.com/app", false, 0},
		{"postgres://app:" + pw + "@db.internal/app gitleaks:allow", false, 0},
		{"postgres://app:[REDACTED:memctl-url-credentials]@db/app", false, 0},
	} {
		found, err := secrets.Scan(c.text)
		if err != nil {
			t.Fatal(err)
		}
		if !c.found {
			if len(found) != 0 {
				t.Errorf("Scan(%q) = %v, want nothing", c.text, found)
			}
			continue
		}
		if len(found) == 0 || found[0].RuleID != "memctl-url-credentials" && found[0].RuleID != "github-pat" {
			t.Errorf("Scan(%q) = %v, want memctl-url-credentials", c.text, found)
			continue
		}
		var own bool
		for _, f := range found {
			own = own || f.RuleID == "memctl-url-credentials"
		}
		if !own {
			t.Errorf("Scan(%q) = %v, want memctl-url-credentials among them", c.text, found)
		}
	}
}

func TestURLCredentialsRedactOnlyThePassword(t *testing.T) {
	t.Parallel()
	text := "use postgres://app:" + "S3cr" + "etP4ss@db.internal:5432/app now"
	out, found, err := secrets.Redact(text)
	if err != nil {
		t.Fatal(err)
	}
	if want := "use postgres://app:[REDACTED:memctl-url-credentials]@db.internal:5432/app now"; out != want {
		t.Errorf("Redact = %q, want %q", out, want)
	}
	if len(found) != 1 || found[0].Column != 20 {
		t.Errorf("found %v, want one at column 20", found)
	}
}

// TestOwnRulesAreDocumented: every rule of memctl's own is in
// docs/secrets.md, which says what it finds and lets through.
func TestOwnRulesAreDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/secrets.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range secrets.OwnRules() {
		if !secrets.IsOwnRule(id) {
			t.Errorf("own rule %q does not start with memctl-", id)
		}
		if !strings.Contains(string(doc), "`"+id+"`") {
			t.Errorf("docs/secrets.md does not document rule %q", id)
		}
	}
}
