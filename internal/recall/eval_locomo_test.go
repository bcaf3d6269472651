package recall

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/memctl/memctl/internal/embed"
)

// locomoDir is the LoCoMo benchmark folder MEMCTL_LOCOMO names
// (shared/bench/locomo: its licence keeps it out of this repository), or
// skips.
func locomoDir(tb testing.TB) string {
	dir := os.Getenv("MEMCTL_LOCOMO")
	if dir == "" {
		tb.Skip("MEMCTL_LOCOMO is not set")
	}
	return dir
}

// TestEvaluateMatchesScoreRetrieval checks memctl's figures against the
// reference scorer's on the run files it writes, on every corpus of
// LoCoMo: MEMCTL_LOCOMO=../shared/bench/locomo, and python3 with
// score_retrieval.py (MEMCTL_BENCH_SCORER, default next to the folder).
func TestEvaluateMatchesScoreRetrieval(t *testing.T) {
	dir := locomoDir(t)
	scorer := os.Getenv("MEMCTL_BENCH_SCORER")
	if scorer == "" {
		scorer = filepath.Join(dir, "..", "score_retrieval.py")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	corpora, err := FindCorpora(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	for _, c := range corpora {
		rep, err := Evaluate(context.Background(), c, EvalOptions{GroupBy: "conv", Embedder: embed.NewStatic(embed.Corpus{}), KeepRuns: true, TempDir: out})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range rep.Modes {
			run := filepath.Join(out, c.Name+"."+m.Mode+".run")
			f, err := os.Create(run)
			if err != nil {
				t.Fatal(err)
			}
			if err := WriteTREC(f, m.Mode, m.Run); err != nil {
				t.Fatal(err)
			}
			f.Close()
			py, err := exec.Command("python3", scorer, "score", filepath.Join(c.Dir, "qrels.tsv"), run, "--queries", c.Queries).CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", scorer, err, py)
			}
			got := fmt.Sprintf("n=%d R@5=%.4f R@10=%.4f nDCG@10=%.4f MRR=%.4f", rep.Queries, m.Mean.Recall5, m.Mean.Recall10, m.Mean.NDCG10, m.Mean.MRR)
			if want := scorerLine(t, string(py)); got != want {
				t.Errorf("%s %s: memctl %s, score_retrieval.py %s", c.Name, m.Mode, got, want)
			}
		}
	}
}

var scorerRE = regexp.MustCompile(`all\s+n=(\d+)\s+R@5=(\S+)\s+R@10=(\S+)\s+nDCG@10=(\S+)\s+MRR=(\S+)`)

func scorerLine(t *testing.T, out string) string {
	m := scorerRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("score_retrieval.py printed %q", out)
	}
	n, _ := strconv.Atoi(m[1])
	return fmt.Sprintf("n=%d R@5=%s R@10=%s nDCG@10=%s MRR=%s", n, m[2], m[3], m[4], m[5])
}

// BenchmarkEvaluateLoCoMo evaluates every corpus of LoCoMo
// (MEMCTL_LOCOMO) in every mode, as eval retrieval does.
func BenchmarkEvaluateLoCoMo(b *testing.B) {
	dir := locomoDir(b)
	corpora, err := FindCorpora(dir)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		for _, c := range corpora {
			if _, err := Evaluate(context.Background(), c, EvalOptions{GroupBy: "conv", Embedder: embed.NewStatic(embed.Corpus{}), TempDir: b.TempDir()}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
