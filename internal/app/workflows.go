package app

import (
	"context"
	"math"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/index"
	"github.com/memctl/memctl/internal/proposal"
	"github.com/memctl/memctl/internal/recall"
	"github.com/memctl/memctl/internal/runs"
	"github.com/memctl/memctl/internal/secrets"
)

// The writes and searches that more than one front-end offers, each the
// whole workflow: the layer checked, the lock taken, the domain called,
// its errors given their hints.

// Propose files a proposal in the facts book (memctl propose): the facts
// layer must be on; the workspace lock is taken; similar facts are looked
// up through the recall index when it can be used. in.Author defaults to
// the actor. Errors carry their hints (ProposalError).
func (s *Session) Propose(ctx context.Context, in proposal.Input) (*proposal.Proposal, error) {
	book, done, err := s.FactsBook(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	if in.Author == "" {
		in.Author = s.Actor().Name
	}
	p, err := book.Propose(in, s.Now(), s.opts.Rand)
	if err != nil {
		return nil, ProposalError(err)
	}
	s.ReportRedactions(book.Redactions)
	return p, nil
}

// RecordRun writes or merges a run record (memctl run record): the runs
// layer must be on; the workspace lock is taken; a record without an id
// gets a new one; repo, branch, commit and times come from git and the
// clock when not given; text that looks like a secret is refused. Then
// what the record makes worth a proposal is filed (AfterRecord).
func (s *Session) RecordRun(ctx context.Context, rec *runs.Record) (runs.Entry, error) {
	rs, err := s.Runs(ctx, true)
	if err != nil {
		return runs.Entry{}, err
	}
	if rec.RunID == "" {
		if rec.RunID, err = runs.NewRunID(s.opts.Rand); err != nil {
			return runs.Entry{}, err
		}
	}
	rec.Fill(s.RunContext(true))
	e, _, err := rs.Store.Put(rec, runs.PutOptions{Now: s.Now(), Gate: runs.Refuse, Secrets: s.ws.Config.Secrets.Policy})
	if err != nil {
		return runs.Entry{}, RunError(err)
	}
	s.ReportRedactions(e.Redactions)
	s.AfterRecord(ctx, rs, e.Record, false)
	return e, nil
}

// AfterRecord files what recording r makes worth a proposal
// (consolidate.AfterRecord): candidate playbooks for the errors it shows
// fixed, and, with all set (flush under [runs] consolidate = true), every
// recurring pattern. What it filed goes to Notice; a failure is a
// warning, never the record's failure. The caller holds the workspace
// lock.
func (s *Session) AfterRecord(ctx context.Context, rs *RunsSession, r *runs.Record, all bool) {
	res, err := consolidate.AfterRecord(ctx, s.ConsolidateRequest(rs.Store, false), r, all)
	for _, o := range res.Filed {
		if o.Proposal.IsPlaybook() {
			s.noticef("filed candidate playbook %s for %s (memctl review %s)", o.Proposal.ID, o.Proposal.Signature, o.Proposal.ID)
		} else {
			s.noticef("filed %s proposal %s for %s (memctl review %s)", o.Proposal.Category, o.Proposal.ID, o.Pattern, o.Proposal.ID)
		}
	}
	for _, o := range res.Refused {
		s.warnf("%s not filed: %s", o.Pattern, o.Warning)
	}
	if err != nil {
		s.warnf("proposals for what recurs across runs: %v", err)
	}
}

// ReportRedactions says, one warning each (Options.Warn), what the
// write gate replaced with [REDACTED:<rule>] in a write ([secrets] mode =
// "redact"): field, rule, position and fingerprint, never the secret.
// Every workflow here reports its own; a front-end that writes through a
// store (a task graph, a book) reports the store's.
func (s *Session) ReportRedactions(reds []secrets.Redaction) {
	for _, r := range reds {
		s.warnf("%s", r)
	}
}

// RecallOptions are recall's options for a search in mode for k results
// matching f, weighed as the workspace's [recall] says, at the session's
// time.
func (s *Session) RecallOptions(mode string, k int, f index.Filter) recall.Options {
	r := s.ws.Config.Recall
	so := recall.Options{Mode: mode, K: k, Filter: f, Now: s.Now(),
		Weights: recall.Weights{BM25: r.Weights.BM25, Dense: r.Weights.Dense, Match: r.Weights.Match}}
	so.HalfLife = halfLife(r.RunHalfLifeDays)
	return so
}

// halfLife is [recall] run_half_life_days as recall takes it: 0 (the
// default) for none set, and recall.NoDecay for inf or for more days than
// a Duration holds (about 106,000: past that, a run's decay over any real
// age is below what a score shows).
func halfLife(days float64) time.Duration {
	switch {
	case !(days > 0):
		return 0
	case days*float64(24*time.Hour) >= math.MaxInt64:
		return recall.NoDecay
	}
	return time.Duration(days * float64(24*time.Hour))
}

// Recall searches the up-to-date index for query (memctl recall). With
// the index disabled the answer is empty, and Notice says why.
func (s *Session) Recall(ctx context.Context, query string, so recall.Options) (recall.Answer, error) {
	if !s.ws.Config.Index.Enabled {
		s.noticef("%s", IndexOffNotice)
		return recall.Answer{Mode: so.Mode}, nil
	}
	x, err := s.UpdatedIndex(ctx)
	if err != nil {
		return recall.Answer{}, err
	}
	return recall.Search(ctx, x, query, so)
}

// IndexOffNotice is what a search says when the recall index is off.
const IndexOffNotice = "the recall index is disabled ([index] enabled = false in " + config.ConfigFile + ")"
