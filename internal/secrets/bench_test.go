package secrets

import (
	"testing"

	"github.com/zricethezav/gitleaks/v8/detect"
)

// BenchmarkDetectorSetup is what the first Scan of a process pays.
func BenchmarkDetectorSetup(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := detect.NewDetectorDefaultConfig(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScanFact is a scan of one fact-sized text once set up.
func BenchmarkScanFact(b *testing.B) {
	text := "The integration tests share port 7070; run them with -p 1, or they flake in CI.\nSeen in run r-41."
	if _, err := Scan(text); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Scan(text); err != nil {
			b.Fatal(err)
		}
	}
}
