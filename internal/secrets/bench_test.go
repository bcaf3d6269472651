package secrets

import (
	"fmt"
	"strings"
	"testing"
)

// factText is also the text of gitleakscheck's BenchmarkGitleaksScanFact,
// gitleaks' own scan for comparison.
const factText = "The integration tests share port 7070; run them with -p 1, or they flake in CI.\nSeen in run r-41: the API token check failed."

// forget drops every compiled regular expression, as in a new process.
func forget() {
	for i := range rules {
		rules[i].re = &lazyRegexp{src: rules[i].re.src}
		for j := range rules[i].allowlists {
			if a := &rules[i].allowlists[j]; a.re != nil {
				a.re = &lazyRegexp{src: a.re.src}
			}
		}
	}
	for i, p := range semiGenericPre() {
		if p != nil {
			semiGenericPre()[i] = &lazyRegexp{src: p.src}
		}
	}
	for j := range globalAllowlists {
		if a := &globalAllowlists[j]; a.re != nil {
			a.re = &lazyRegexp{src: a.re.src}
		}
	}
}

// BenchmarkScanFactCold is what propose pays in a new process: the first
// Scan, compiling the rules whose keywords occur in the text.
func BenchmarkScanFactCold(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		forget()
		if _, err := Scan(factText); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScanFact is a scan of one fact-sized text once set up.
func BenchmarkScanFact(b *testing.B) {
	if _, err := Scan(factText); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Scan(factText); err != nil {
			b.Fatal(err)
		}
	}
}

// jsonlLines is an issues.jsonl of n lines like the ones agents write:
// keys that hold keywords ("author"), prose with keywords (auth, token,
// key, "notes. See"), and no secret.
func jsonlLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"id":"mc-%d","title":"Fix the auth token refresh in module %d","description":"The API key cache expires early. See design notes. Keep output stable; run the tests with -p 1.","status":"open","priority":2,"issue_type":"task","created_at":"2026-11-20T00:00:00Z","comments":[{"id":%d,"author":"codex-agent","text":"Reproduced: the session key rotates every 10 minutes. See the logs.","created_at":"2026-11-20T00:00:00Z"}]}`+"\n", i, i%97, i)
	}
	return b.String()
}

// BenchmarkScanJSONLines10k is the secret scan check runs on a 10,000
// line issues.jsonl (4 MB here), every line dense with keywords, so a
// worst case: 190 to 300 ms on 2 busy cores (on the 6.7 MB file of
// scripts/bench-check.sh, about 20 ms). Scanning each raw line instead
// (BenchmarkScanRawLines10k) ran gitleaks' generic-api-key expression on
// every line with a comment ("author":"codex-agent" matches it until the
// entropy test) and took about 7 times as long here, 20 on that file.
func BenchmarkScanJSONLines10k(b *testing.B) {
	text := jsonlLines(10_000)
	if found, err := ScanJSONLines(text); err != nil || len(found) != 0 {
		b.Fatalf("found %v, %v; want nothing", found, err)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ScanJSONLines(text); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScanRawLines10k is the same text scanned line by line as raw
// text, for comparison.
func BenchmarkScanRawLines10k(b *testing.B) {
	lines := strings.Split(jsonlLines(10_000), "\n")
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if _, err := Scan(l); err != nil {
				b.Fatal(err)
			}
		}
	}
}
