package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/recall"
)

func newEvalCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "eval",
		Short:   "Measure memctl against a benchmark",
		Example: `  memctl eval retrieval ../bench/locomo --group-by conv --json`,
	}
	cmd.AddCommand(newEvalRetrievalCmd(env))
	return cmd
}

type evalRetrievalOptions struct {
	groupBy string
	mode    string
	runOut  string
	json    bool
}

func newEvalRetrievalCmd(env *Env) *cobra.Command {
	var opts evalRetrievalOptions
	cmd := &cobra.Command{
		Use:   "retrieval DIR",
		Short: "Score recall's bm25, dense and hybrid rankings on a retrieval benchmark",
		Long: `Eval retrieval reads DIR/corpus.jsonl ({"id","text","meta"} per line),
DIR/queries.jsonl (the same shape) and DIR/qrels.tsv (query_id, doc_id,
relevance; a header line is skipped), indexes the corpus in a temporary
index with the built-in embedder, and prints Recall@5, Recall@10, nDCG@10
and MRR of each mode. --group-by FIELD ranks each query only among the
documents whose meta.FIELD equals the query's (one index per group).
--run-out writes one mode's ranked lists (top 100) as
query_id<TAB>doc_id<TAB>rank, to score them with any other tool.`,
		Example: `  memctl eval retrieval testdata/eval/tiny
  memctl eval retrieval ../bench/locomo --group-by conv --json
  memctl eval retrieval ../bench/locomo --group-by conv --run-out run.tsv --mode bm25`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runEvalRetrieval(cmd.Context(), env, args[0], opts)
		},
	}
	cmd.Flags().StringVar(&opts.groupBy, "group-by", "", "rank each query among the documents with the same meta field")
	cmd.Flags().StringVar(&opts.mode, "mode", recall.ModeHybrid, "the mode whose ranking --run-out writes")
	cmd.Flags().StringVar(&opts.runOut, "run-out", "", "write the ranked lists of --mode to this file")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON (the shape: memctl help json)")
	return cmd
}

// evalJSON is the --json shape of eval retrieval.
type evalJSON struct {
	SchemaVersion int                        `json:"schema_version"`
	Queries       int                        `json:"queries"`
	Modes         map[string]evalMetricsJSON `json:"modes"`
}

func runEvalRetrieval(ctx context.Context, env *Env, dir string, opts evalRetrievalOptions) error {
	if err := checkMode(opts.mode); err != nil {
		return err
	}
	eo := recall.EvalOptions{GroupBy: opts.groupBy, RunMode: opts.mode}
	if opts.runOut != "" {
		f, err := os.Create(opts.runOut)
		if err != nil {
			return err
		}
		defer f.Close()
		eo.Run = f
	}
	rep, err := recall.Evaluate(ctx, dir, eo)
	if errors.Is(err, fs.ErrNotExist) {
		return withHint(&notFoundError{err}, "DIR must hold corpus.jsonl, queries.jsonl and qrels.tsv (memctl help recall)")
	}
	if err != nil {
		return err
	}
	if opts.json {
		return writeJSON(env.Out, evalJSON{SchemaVersion: schemaVersion, Queries: rep.Queries, Modes: toEvalModesJSON(rep.Modes)})
	}
	fmt.Fprintf(env.Out, "%d queries, %d documents in %d groups\n", rep.Queries, rep.Docs, rep.Groups)
	t := newTable(env, "MODE", "RECALL@5", "RECALL@10", "NDCG@10", "MRR")
	for _, m := range []string{recall.ModeBM25, recall.ModeDense, recall.ModeHybrid} {
		if s, ok := rep.Modes[m]; ok {
			t.row(m, fmt.Sprintf("%.4f", s.Recall5), fmt.Sprintf("%.4f", s.Recall10), fmt.Sprintf("%.4f", s.NDCG10), fmt.Sprintf("%.4f", s.MRR))
		}
	}
	return t.flush()
}
