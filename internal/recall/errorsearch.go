package recall

import (
	"context"

	"github.com/memctl/memctl/internal/index"
	"github.com/memctl/memctl/internal/runs"
	"github.com/memctl/memctl/internal/runs/signature"
)

// How recall --error found a result.
const (
	// MatchSignature: the playbook of the error's signature, or a run
	// one of whose errors has it.
	MatchSignature = "signature"
	// MatchSimilar: found by the words and meaning of the normalised
	// error text.
	MatchSimilar = "similar"
)

// ErrorAnswer is what SearchError found, and the signature it searched by.
type ErrorAnswer struct {
	Answer
	Signature signature.Signature
}

// SearchError answers "what happened last time we saw this error?": the
// playbook of the text's signature and the runs whose errors carry it
// first (exact matches: the playbook, then the runs newest first), then
// the ordinary ranking of the normalised text (similar errors), without
// a document twice, at most opts.K in all. Runs are looked up in store
// (nil: none); exact matches pass opts.Filter as ranked ones do. The
// index must be up to date. A text with nothing left once normalised is
// ErrEmptyQuery.
func SearchError(ctx context.Context, x *index.Index, store *runs.Store, text string, opts Options) (ErrorAnswer, error) {
	sig := signature.Of(text)
	ea := ErrorAnswer{Signature: sig}
	if err := CheckQuery(sig.Text); err != nil {
		return ea, err
	}
	opts.defaults()
	if err := CheckMode(opts.Mode); err != nil {
		return ea, err
	}
	exact, err := exactIDs(ctx, x, store, sig.Hash, opts.Filter)
	if err != nil {
		return ea, err
	}
	exact = exact[:min(len(exact), opts.K)]
	wide := opts
	wide.K = opts.K + len(exact) // room for the exact matches it also finds
	ans, similar, err := search(ctx, x, sig.Text, wide)
	if err != nil {
		return ea, err
	}
	top, matches := mergeExact(exact, similar, opts.K)
	ans.Results, err = results(ctx, x, sig.Text, top)
	if err != nil {
		return ea, err
	}
	for i := range ans.Results {
		r := &ans.Results[i]
		r.Match = matches[r.Kind+":"+r.ID] // a document's id is its kind and ref
	}
	ea.Answer = ans
	return ea, nil
}

// exactIDs are the document ids of the playbook of signature hash and of
// the runs whose errors carry it, newest first, as far as they are
// indexed and pass f.
func exactIDs(ctx context.Context, x *index.Index, store *runs.Store, hash string, f index.Filter) ([]string, error) {
	ids := []string{index.KindPlaybook + ":" + hash}
	if store != nil {
		l, err := store.List(runs.Filter{Signature: hash})
		if err != nil {
			return nil, err
		}
		// A record List cannot read is not indexed either: the index
		// names it when it is updated.
		for _, e := range l.Entries {
			ids = append(ids, index.KindRun+":"+e.Record.RunID)
		}
	}
	return x.Select(ctx, ids, f)
}

// mergeExact puts the exact matches first, with their scores in the
// ranking when it found them too, then the rest of the ranking, k in all;
// matches says how each id was found.
func mergeExact(exact []string, ranked []fusedHit, k int) ([]fusedHit, map[string]string) {
	byID := make(map[string]fusedHit, len(ranked))
	for _, h := range ranked {
		byID[h.id] = h
	}
	matches := make(map[string]string, k)
	top := make([]fusedHit, 0, k)
	for _, id := range exact {
		h, ok := byID[id]
		if !ok { // found by its signature only: no score
			h = fusedHit{id: id, explain: Explain{Approved: 1, Age: 1}}
		}
		top = append(top, h)
		matches[id] = MatchSignature
	}
	for _, h := range ranked {
		if len(top) == k {
			break
		}
		if _, dup := matches[h.id]; !dup {
			top = append(top, h)
			matches[h.id] = MatchSimilar
		}
	}
	return top, matches
}
