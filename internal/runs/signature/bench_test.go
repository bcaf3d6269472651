package signature

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// benchTexts returns every error text of testdata: real output of Go,
// Python, Node, Rust and shell tools, from one line to a Go traceback.
func benchTexts() []string {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	var texts []string
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			panic(err)
		}
		for _, f := range ar.Files {
			if !strings.HasSuffix(f.Name, ".want") {
				texts = append(texts, string(f.Data))
			}
		}
	}
	return texts
}

// BenchmarkOf signs the mix of real error texts in testdata, one text per
// operation; errors/s is what flush and recall --error can sign per second
// on one core.
func BenchmarkOf(b *testing.B) {
	texts := benchTexts()
	size := 0
	for _, t := range texts {
		size += len(t)
	}
	b.SetBytes(int64(size / len(texts)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		Of(texts[n%len(texts)])
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "errors/s")
}

// BenchmarkOfLong signs a long log excerpt (a Go traceback of 50
// goroutines, about 20 KB), the worst a flush meets.
func BenchmarkOfLong(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("panic: test timed out after 10m0s\n\trunning tests:\n\t\tTestSlow (10m0s)\n\n")
	for g := range 50 {
		sb.WriteString("goroutine " + itoa(g+1) + " [chan receive, 9 minutes]:\n")
		for f := range 5 {
			sb.WriteString("github.com/acme/app/internal/store.(*DB).wait" + itoa(f) + "(0xc000012345, {0x62d1a4, 0x5})\n")
			sb.WriteString("\t/home/alice/src/app/internal/store/db.go:" + itoa(100+f) + " +0x2f\n")
		}
		sb.WriteString("\n")
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Of(text)
	}
}
