package gitleakscheck

// memctl's scanner must find exactly what gitleaks' own detector finds.
// These tests run both on the same texts: strings generated from every
// rule's regular expression, put in the contexts that exercise each step
// of the detector (keywords, secret groups, entropy, allowlists and stop
// words, the allow signature, lines and columns, generic rules overlapped
// by specific ones).

import (
	"math/rand/v2"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/memctl/memctl/internal/secrets"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
)

var (
	refOnce sync.Once
	ref     *detect.Detector
	refErr  error
	refMu   sync.Mutex
)

// same is one finding in a form both scanners can give.
type same struct {
	Rule   string
	Line   int // 0-based, gitleaks' StartLine
	Offset int
	Secret string
}

// detector is gitleaks' detector with its default config, made once.
func detector(t testing.TB) *detect.Detector {
	t.Helper()
	refOnce.Do(func() { ref, refErr = detect.NewDetectorDefaultConfig() })
	if refErr != nil {
		t.Fatal(refErr)
	}
	return ref
}

// pathless returns the rules of gitleaks' default config that apply to
// text without a file path, in gitleaks' order: those memctl's table
// holds.
func pathless(t testing.TB) []config.Rule {
	t.Helper()
	cfg := detector(t).Config
	var out []config.Rule
	for _, id := range cfg.OrderedRules {
		if r, ok := cfg.Rules[id]; ok && r.Regex != nil && r.Path == nil {
			out = append(out, r)
		}
	}
	if len(out) < 100 {
		t.Fatalf("gitleaks' default config has only %d rules for text without a path", len(out))
	}
	return out
}

func gitleaksFindings(t testing.TB, text string) []same {
	t.Helper()
	d := detector(t)
	refMu.Lock()
	found := d.DetectString(text)
	refMu.Unlock()
	nl := newlineIndices(text)
	out := make([]same, 0, len(found))
	for _, f := range found {
		// gitleaks counts a column after the first line from the
		// preceding newline itself.
		base := 0
		if f.StartLine > 0 {
			base = nl[f.StartLine-1]
		}
		out = append(out, same{f.RuleID, f.StartLine, base + f.StartColumn - 1, f.Secret})
	}
	return sorted(out)
}

func ourFindings(t testing.TB, text string) []same {
	t.Helper()
	found, err := secrets.Matches(text)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]same, 0, len(found))
	for _, f := range found {
		if f.Own {
			// memctl's own rules (docs/secrets.md) find what gitleaks
			// has no rule for: never compared, always memctl's.
			if !secrets.IsOwnRule(f.RuleID) {
				t.Errorf("finding of rule %q is marked as memctl's own", f.RuleID)
			}
			continue
		}
		out = append(out, same{f.RuleID, f.Line, f.Offset, f.Secret})
	}
	return sorted(out)
}

// TestOwnRulesAddToGitleaks: a URL's password, which gitleaks' rules do
// not find, is a finding of memctl's own rule only, and gitleaks'
// findings on the same text stay as they are.
func TestOwnRulesAddToGitleaks(t *testing.T) {
	text := "conn = postgres://admin:S3cr3tP4ssw0rd@db.internal:5432/app\ntoken: ghp_R8x2Lq9ZpT4vW7nK1mB5cY3dF6gH0jS2aE9u"
	agree(t, text)
	found, err := secrets.Matches(text)
	if err != nil {
		t.Fatal(err)
	}
	var own []string
	for _, f := range found {
		if f.Own {
			own = append(own, f.RuleID+" "+f.Secret)
		}
	}
	if want := []string{"memctl-url-credentials S3cr3tP4ssw0rd"}; !slices.Equal(own, want) {
		t.Errorf("memctl's own findings = %q, want %q", own, want)
	}
}

func sorted(s []same) []same {
	slices.SortFunc(s, func(a, b same) int {
		if a.Offset != b.Offset {
			return a.Offset - b.Offset
		}
		if c := strings.Compare(a.Rule, b.Rule); c != 0 {
			return c
		}
		return strings.Compare(a.Secret, b.Secret)
	})
	return s
}

func agree(t *testing.T, text string) (n int) {
	t.Helper()
	want := gitleaksFindings(t, text)
	got := ourFindings(t, text)
	if !slices.Equal(got, want) {
		t.Errorf("text %q:\n gitleaks: %+v\n memctl:   %+v", text, want, got)
	}
	return len(want)
}

// TestScanAgreesWithGitleaks is the differential test over every rule.
func TestScanAgreesWithGitleaks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	texts, found := 0, 0
	rulesFound := map[string]bool{}
	rules := pathless(t)
	for _, r := range rules {
		re, err := syntax.Parse(r.Regex.String(), syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		re = re.Simplify()
		var samples []string
		for range 6 {
			samples = append(samples, sample(rng, re))
		}
		kw := ""
		if len(r.Keywords) > 0 {
			kw = r.Keywords[rng.IntN(len(r.Keywords))]
		}
		contexts := []string{
			samples[0],
			"export " + strings.ToUpper(strings.Trim(kw, "_-.")) + "_TOKEN=" + samples[1] + "\n",
			"Notes from run r-7:\r\n- the " + kw + " value is\r\n  " + samples[2] + " # keep\r\n",
			"first line\nsecond: " + samples[3] + " gitleaks:allow\nthird " + samples[3],
			"x := \"" + samples[4] + "\"\n\n\t" + kw + " = '" + samples[5] + "'",
			strings.Join(samples, "\n"),
			// Low entropy and stop words, which the allowlists and the
			// entropy check exist to let through.
			kw + "_key = \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"\n" + kw + " secret = ${SECRET_VALUE}\n" +
				kw + "_token: abcdefghijklmnopqrstuvwxyz0123456789\napi_key = 'example-" + samples[0] + "'",
		}
		for _, text := range contexts {
			n := agree(t, text)
			texts++
			found += n
			if n > 0 {
				for _, f := range ourFindings(t, text) {
					rulesFound[f.Rule] = true
				}
			}
		}
	}
	// A differential test is only as good as what it makes the scanners
	// find: most rules must have fired somewhere.
	t.Logf("%d texts, %d findings, %d of %d rules fired", texts, found, len(rulesFound), len(rules))
	if len(rulesFound) < len(rules)*3/4 {
		t.Errorf("only %d of %d rules fired; the generated samples are too weak to compare the scanners", len(rulesFound), len(rules))
	}
}

// TestScanAgreesOnProse covers ordinary text that must not be flagged, and
// the classic credentials gitleaks' own documentation uses.
func TestScanAgreesOnProse(t *testing.T) {
	for _, text := range []string{
		"",
		"\n\n",
		"Never call time.Now in domain code; take the clock from the caller.",
		"The API key lives in Vault at secret/ci/deploy; never paste it here.",
		"password = \"hunter2\"",
		"password = \"correct-horse-battery-staple-9\"\n",
		"aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"AKIA2E0A8F3B244C9986\n",
		"token: ghp_R8x2Lq9ZpT4vW7nK1mB5cY3dF6gH0jS2aE9u",
		"curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'",
		"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA PRIVATE KEY-----\n",
		"slack: xoxb-2631346457-2631346478-AbCdEfGhIjKlMnOpQrStUvWx",
		"conn = postgres://admin:S3cr3tP4ssw0rd@db.internal:5432/app",
		"key = 014df517-39d1-4453-b7b3-9930c563627c",
		"The secret is ${DB_PASSWORD} and the token is {{ .Token }}.",
		// Entropy exactly at alibaba-access-key-id's threshold (2 bits:
		// four symbols, six times each) is not a secret; one more bit is.
		"id LTAILTAILTAILTAILTAILTAI\n",
		"id LTAILTAILTAILTAILTAILTAB\n",
		"RUN --mount=type=secret,id=npm,env=NPM_TOKEN token=npm_1a2b3c4d5e6f7g8h9i0jklmnopqrstuvwxyzAB\n",
	} {
		agree(t, text)
	}
}

// FuzzScanAgreesWithGitleaks lets `go test -fuzz` look for a text on which
// the two scanners differ; its seeds run with every `go test`.
func FuzzScanAgreesWithGitleaks(f *testing.F) {
	f.Add("github_token = ghp_R8x2Lq9ZpT4vW7nK1mB5cY3dF6gH0jS2aE9u")
	f.Add("api_key: sk_live_4eC39HqLyjWDarjtT1zdp7dc\n# gitleaks:allow")
	f.Add("secret=\"aaaaaaaaaaaaaaaaaaaaaaaaa\"")
	f.Fuzz(func(t *testing.T, text string) {
		want := gitleaksFindings(t, text)
		got := ourFindings(t, text)
		if !slices.Equal(got, want) {
			t.Errorf("text %q:\n gitleaks: %+v\n memctl:   %+v", text, want, got)
		}
	})
}

// sample returns a random string shaped by a regular expression: mostly
// one it matches (anchors and word boundaries are not enforced, which is
// fine: any text is a fair comparison).
func sample(rng *rand.Rand, re *syntax.Regexp) string {
	var b strings.Builder
	gen(rng, re, &b)
	return b.String()
}

func gen(rng *rand.Rand, re *syntax.Regexp, b *strings.Builder) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && rng.IntN(2) == 0 {
				r = []rune(strings.ToUpper(string(r)))[0]
			}
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		b.WriteRune(classRune(rng, re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte(byte('!' + rng.IntN('~'-'!'+1)))
	case syntax.OpCapture:
		gen(rng, re.Sub[0], b)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			gen(rng, s, b)
		}
	case syntax.OpAlternate:
		gen(rng, re.Sub[rng.IntN(len(re.Sub))], b)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, 0
		switch re.Op {
		case syntax.OpStar:
			lo, hi = 0, 6
		case syntax.OpPlus:
			lo, hi = 1, 6
		case syntax.OpQuest:
			lo, hi = 0, 1
		default:
			lo, hi = re.Min, re.Max
			if hi < 0 {
				hi = lo + 6
			}
		}
		if hi > lo+300 {
			hi = lo + 300
		}
		for range lo + rng.IntN(hi-lo+1) {
			gen(rng, re.Sub[0], b)
		}
	}
	// Anchors, word boundaries and empty matches produce nothing.
}

// classRune picks a rune from a character class, preferring printable
// ASCII so the samples look like the credentials they imitate.
func classRune(rng *rand.Rand, ranges []rune) rune {
	var ascii []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := max(ranges[i], ' '), min(ranges[i+1], '~')
		for r := lo; r <= hi; r++ {
			ascii = append(ascii, r)
		}
	}
	if len(ascii) > 0 {
		return ascii[rng.IntN(len(ascii))]
	}
	if len(ranges) == 0 {
		return 'x'
	}
	i := rng.IntN(len(ranges)/2) * 2
	return ranges[i] + rune(rng.IntN(int(ranges[i+1]-ranges[i]+1)))
}

// newlineIndices returns the byte offsets of the newlines in s.
func newlineIndices(s string) []int {
	var out []int
	for i := range len(s) {
		if s[i] == '\n' {
			out = append(out, i)
		}
	}
	return out
}
