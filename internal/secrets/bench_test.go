package secrets

import (
	"testing"

	"github.com/zricethezav/gitleaks/v8/detect"
)

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

// BenchmarkGitleaksSetup is, for comparison, what gitleaks' own detector
// costs to set up.
func BenchmarkGitleaksSetup(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := detect.NewDetectorDefaultConfig(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGitleaksScanFact is, for comparison, gitleaks' scan of the same
// text once set up.
func BenchmarkGitleaksScanFact(b *testing.B) {
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		d.DetectString(factText)
	}
}
