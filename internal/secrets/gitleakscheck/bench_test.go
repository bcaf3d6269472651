package gitleakscheck

import (
	"testing"

	"github.com/zricethezav/gitleaks/v8/detect"
)

// factText is the text of BenchmarkScanFact in internal/secrets, memctl's
// scan of one fact, which the benchmarks here compare with.
const factText = "The integration tests share port 7070; run them with -p 1, or they flake in CI.\nSeen in run r-41: the API token check failed."

// BenchmarkGitleaksSetup is, for comparison, what gitleaks' own detector
// costs to set up (memctl's table costs nothing until the first Scan:
// BenchmarkScanFactCold in internal/secrets).
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
