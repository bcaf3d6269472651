package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/index"
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
	groupBy   string
	corpora   []string
	mode      string
	runOut    string
	workspace bool
	json      bool
}

func newEvalRetrievalCmd(env *Env) *cobra.Command {
	var opts evalRetrievalOptions
	cmd := &cobra.Command{
		Use:   "retrieval DIR",
		Short: "Score recall's rankings on a retrieval benchmark, with confidence intervals",
		Long: `Eval retrieval scores every mode of recall (bm25, dense, hybrid) on each
corpus of a benchmark: DIR itself if it holds corpus.jsonl, and each folder
in DIR that holds one, named by the folder (DIR's own corpus by DIR's
base name). A corpus is corpus.jsonl ({"id","text","meta"} per line) and
qrels.tsv (query_id, doc_id, relevance; a header line is skipped), asked
the queries of its own queries.jsonl, else of DIR's.

Each corpus is indexed once, in temporary indexes, with the built-in
embedder (--workspace: the embedder and [recall] weights of the
workspace here). For each mode it prints Recall@5, Recall@10, nDCG@10
with its bootstrap 95% interval, and MRR; then each mode against bm25 on
per-query nDCG@10: the mean difference, its interval and the two-sided
p-value of a paired sign-flip test (10,000 resamples, seed 1: the same
runs give the same figures). --group-by FIELD ranks each query only
among the documents whose meta.FIELD equals the query's (one index per
group). --run-out writes the ranked lists (top 100) as TREC run files.`,
		Example: `  memctl eval retrieval testdata/eval/tiny --group-by group
  memctl eval retrieval ../bench/locomo --group-by conv --json
  memctl eval retrieval ../bench/locomo --group-by conv --run-out runs/
  memctl eval retrieval ../bench/locomo --group-by conv --corpus facts --run-out facts.run --mode bm25`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runEvalRetrieval(cmd.Context(), env, args[0], opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.groupBy, "group-by", "", "rank each query among the documents with the same meta `field`")
	f.StringSliceVar(&opts.corpora, "corpus", nil, "only the corpus of this `name` (repeatable)")
	f.StringVar(&opts.runOut, "run-out", "", "write TREC run files: a `dir`ectory gets <corpus>.<mode>.run each, a file --mode's run of one corpus")
	f.StringVar(&opts.mode, "mode", recall.ModeHybrid, "the mode whose run --run-out FILE gets")
	f.BoolVar(&opts.workspace, "workspace", false, "rank with this workspace's embedder and [recall] weights instead of the built-in defaults")
	f.BoolVar(&opts.json, "json", false, "print JSON (the shape: memctl help json)")
	return cmd
}

func runEvalRetrieval(ctx context.Context, env *Env, dir string, opts evalRetrievalOptions) error {
	if recall.CheckMode(opts.mode) != nil {
		return usagef(fmt.Errorf("--mode %q: want one of %s", opts.mode, strings.Join(recall.Modes, ", ")))
	}
	corpora, err := evalCorpora(dir, opts.corpora)
	if err != nil {
		return err
	}
	runDir, err := evalRunTarget(opts.runOut, len(corpora))
	if err != nil {
		return err
	}
	eo, err := evalOptions(env, opts)
	if err != nil {
		return err
	}
	if opts.runOut != "" && runDir == "" && eo.Embedder == nil && opts.mode != recall.ModeBM25 {
		return usagef(fmt.Errorf("--mode %s: the workspace has no embedder, only bm25 is scored", opts.mode))
	}
	reps := make([]recall.EvalReport, 0, len(corpora))
	for _, c := range corpora {
		rep, err := recall.Evaluate(ctx, c, eo)
		if errors.Is(err, fs.ErrNotExist) {
			return withHint(&notFoundError{err}, evalLayoutHint)
		}
		if err != nil {
			return err
		}
		reps = append(reps, rep)
	}
	if opts.runOut != "" {
		if err := writeEvalRuns(env, opts, runDir, reps); err != nil {
			return err
		}
	}
	emb := evalEmbedderID(eo.Embedder)
	if opts.json {
		return writeJSON(env.Out, toEvalJSON(emb, opts.groupBy, reps))
	}
	return writeEvalTable(env, emb, opts.groupBy, reps)
}

const evalLayoutHint = "DIR, or a folder in it, must hold corpus.jsonl and qrels.tsv, with queries.jsonl there or in DIR (memctl help recall)"

// evalCorpora finds DIR's corpora and keeps the ones named.
func evalCorpora(dir string, names []string) ([]recall.Corpus, error) {
	corpora, err := recall.FindCorpora(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, withHint(&notFoundError{err}, evalLayoutHint)
	}
	if err != nil || len(names) == 0 {
		return corpora, err
	}
	have := make([]string, len(corpora))
	for i, c := range corpora {
		have[i] = c.Name
	}
	for _, n := range names {
		if !slices.Contains(have, n) {
			return nil, usagef(fmt.Errorf("--corpus %q: %s has %s", n, dir, strings.Join(have, ", ")))
		}
	}
	return slices.DeleteFunc(corpora, func(c recall.Corpus) bool { return !slices.Contains(names, c.Name) }), nil
}

// evalRunTarget says where --run-out writes: a directory (returned) when
// the path is one or ends in a separator, else the file itself, which
// holds one corpus's run.
func evalRunTarget(out string, corpora int) (string, error) {
	if out == "" {
		return "", nil
	}
	if fi, err := os.Stat(out); (err == nil && fi.IsDir()) || strings.HasSuffix(out, "/") || strings.HasSuffix(out, string(filepath.Separator)) {
		return out, nil
	}
	if corpora > 1 {
		return "", usagef(fmt.Errorf("--run-out %s: a file holds one run, and there are %d corpora; name a directory (ending in /) or pick one with --corpus", out, corpora))
	}
	return "", nil
}

// evalOptions are the built-in embedder and default ranking, or with
// --workspace the workspace's.
func evalOptions(env *Env, opts evalRetrievalOptions) (recall.EvalOptions, error) {
	eo := recall.EvalOptions{GroupBy: opts.groupBy, KeepRuns: opts.runOut != ""}
	if !opts.workspace {
		eo.Embedder = embed.NewStatic(embed.Corpus{})
		return eo, nil
	}
	ws, err := env.Workspace()
	if err != nil {
		return eo, err
	}
	s := env.session(ws)
	if eo.Embedder, err = s.Embedder(); err != nil {
		return eo, err
	}
	eo.Search = s.RecallOptions("", 0, index.Filter{})
	return eo, nil
}

func evalEmbedderID(e embed.Embedder) string {
	if e == nil {
		return "none"
	}
	return e.ID()
}

// writeEvalRuns writes the run files, each atomically.
func writeEvalRuns(env *Env, opts evalRetrievalOptions, dir string, reps []recall.EvalReport) error {
	if dir == "" {
		m, _ := reps[0].Mode(opts.mode)
		return fsx.WriteFileFunc(opts.runOut, 0o644, func(w io.Writer) error { return recall.WriteTREC(w, m.Mode, m.Run) })
	}
	if _, err := fsx.MkdirAll(dir); err != nil {
		return err
	}
	n := 0
	for _, r := range reps {
		for _, m := range r.Modes {
			path := filepath.Join(dir, r.Corpus.Name+"."+m.Mode+".run")
			if err := fsx.WriteFileFunc(path, 0o644, func(w io.Writer) error { return recall.WriteTREC(w, m.Mode, m.Run) }); err != nil {
				return err
			}
			n++
		}
	}
	env.notef("wrote %d run files to %s", n, dir)
	return nil
}
