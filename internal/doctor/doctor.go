// Package doctor is the health check behind `memctl doctor`: it looks at
// everything a workspace depends on (its layout and config, what memctl
// check audits, git's merge driver and attributes, the AGENTS.md block,
// the agent runtimes' hooks, the recall index and the embedder, the
// locks, and temporaries that killed writers left) and says, for each,
// whether it is fine, what is wrong and what to do. With Fix it repairs
// what is safe to repair (registrations, the AGENTS.md block, the index,
// a stale lock holder file, stray temporaries) and never deletes data: a
// file a person may have edited is backed up under the git directory
// first, and a temporary is moved there, not removed.
//
// It works in a broken workspace (a config that does not load, an issues
// file that does not parse, no .ledger at all): each check stands alone.
// It never prints, exits or reads the clock.
package doctor

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/index"
)

// Status of a check.
type Status string

// The statuses. A warning leaves the workspace healthy (doctor exits 0);
// a problem does not.
const (
	OK      Status = "ok"
	Warn    Status = "warn"
	Problem Status = "problem"
)

// Check ids, stable: scripts match on them.
const (
	IDWorkspace   = "workspace"
	IDConfig      = "config"
	IDFacts       = "facts"
	IDProposals   = "proposals"
	IDIssues      = "issues"
	IDRuns        = "runs"
	IDPlaybooks   = "playbooks"
	IDAgentsBlock = "agents-block"
	IDMergeDriver = "merge-driver"
	IDAttributes  = "gitattributes"
	IDHooks       = "hooks"
	IDIndex       = "index"
	IDEmbedder    = "embedder"
	IDLock        = "lock"
	IDTempFiles   = "temp-files"
	IDIgnore      = "gitignore"
)

// Check is one thing doctor looked at.
type Check struct {
	ID     string
	Status Status
	// Rule is memctl check's rule when the check is one of its findings.
	Rule    string
	Message string
	File    string // relative to the workspace root, or under the git directory; "" for none
	Line    int    // 0 when not about one line
	Hint    string // what to do; "" when there is nothing to do
	// Fixable: Fix repairs it.
	Fixable bool
	// Fixed says what Fix did about it; FixError why Fix could not.
	Fixed, FixError string

	fix func(ctx context.Context, f *fixer) (string, error)
}

// Report is what Run found, in the order it is best read: problems
// first, then warnings, then what is fine, each in the order doctor
// looks.
type Report struct {
	Root   string
	Checks []Check
}

// Count counts the checks of a status.
func (r *Report) Count(s Status) int {
	n := 0
	for _, c := range r.Checks {
		if c.Status == s {
			n++
		}
	}
	return n
}

// Fixable counts the problems and warnings Fix would repair.
func (r *Report) Fixable() int {
	n := 0
	for _, c := range r.Checks {
		if c.Status != OK && c.Fixable {
			n++
		}
	}
	return n
}

// FixedCount counts the checks Fix repaired.
func (r *Report) FixedCount() int {
	n := 0
	for _, c := range r.Checks {
		if c.Fixed != "" {
			n++
		}
	}
	return n
}

// Healthy says that no problem remains (warnings allowed).
func (r *Report) Healthy() bool { return r.Count(Problem) == 0 }

// Env is what doctor takes from the composition root (app.DoctorEnv):
// how this process makes the configured embedder, what the index is made
// of, and how it takes the workspace lock. Each gets the workspace as
// doctor loaded it (the defaults when its config does not load).
type Env struct {
	Embedder func(*config.Workspace) (embed.Embedder, error)
	Sources  func(*config.Workspace) []index.Source
	IndexDir func(*config.Workspace) string
	Lock     func(context.Context, *config.Workspace) (*fsx.Lock, error)
	// Holder names this process in the index lock's holder file.
	Holder fsx.Holder
	// Notice gets what the index says while Fix rebuilds it.
	Notice func(string)
}

// Options say how to run.
type Options struct {
	Now time.Time
	// Fix repairs what is safe to repair, then looks again.
	Fix bool
	// ProbeTimeout bounds the request that checks an HTTP embedder
	// (default 5s).
	ProbeTimeout time.Duration
	// LockAge is how long a live holder may hold a lock before doctor
	// warns that it may be stuck (default 10 minutes).
	LockAge time.Duration
}

// Run checks the workspace of repo and, with opts.Fix, repairs what it
// safely can and checks again: the report is of the workspace as it is
// afterwards, each repaired check saying what was done. It returns an
// error only when it cannot take the lock for its repairs; whatever is
// wrong in the workspace is a check.
func Run(ctx context.Context, repo *gitx.Repo, env Env, opts Options) (*Report, error) {
	if opts.ProbeTimeout <= 0 {
		opts.ProbeTimeout = 5 * time.Second
	}
	if opts.LockAge <= 0 {
		opts.LockAge = 10 * time.Minute
	}
	checks := inspect(ctx, repo, env, opts)
	if opts.Fix && slices.ContainsFunc(checks, func(c Check) bool { return c.fix != nil && c.Status != OK }) {
		done, err := repair(ctx, repo, env, checks)
		if err != nil {
			return nil, err
		}
		checks = inspect(ctx, repo, env, opts)
		for i := range checks {
			c := &checks[i]
			if d, ok := done[key(c.ID, c.File)]; ok {
				c.Fixed, c.FixError = d.Fixed, d.FixError
			}
		}
		// A check repaired out of existence (a stale holder file, moved
		// temporaries) is kept: the report says what was done.
		for _, k := range slices.Sorted(maps.Keys(done)) {
			d := done[k]
			if !slices.ContainsFunc(checks, func(c Check) bool { return key(c.ID, c.File) == k }) {
				if d.FixError == "" {
					d.Message = "repaired: " + d.Message
				}
				checks = append(checks, d)
			}
		}
	}
	order := map[Status]int{Problem: 0, Warn: 1, OK: 2}
	slices.SortStableFunc(checks, func(a, b Check) int { return cmp.Compare(order[a.Status], order[b.Status]) })
	return &Report{Root: repo.Root, Checks: checks}, nil
}

func key(id, file string) string { return id + "\x00" + file }

// inspect runs every check; none stops the others. The git checks run
// beside the rest: they start git (and, for a merge driver that is not
// this memctl's own registration, a trial merge), the slowest part.
func inspect(ctx context.Context, repo *gitx.Repo, env Env, opts Options) []Check {
	var c, git collector
	ws, ledger := loadWorkspace(repo, &c)
	if !ledger {
		// Without .ledger, memctl init is the one answer: doctor does not
		// set up git or agents for a workspace that is not there.
		c.locks(ws, env, opts)
		c.temps(ws)
		return c.checks
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		git.gitChecks(ctx, ws)
	}()
	c.audit(ctx, ws, opts.Now)
	c.indexChecks(ctx, ws, env)
	c.embedder(ctx, ws, env, opts.ProbeTimeout)
	<-done
	// In the order a person reads them: the files, git, agents, the index.
	var out collector
	var index []Check
	for _, ch := range c.checks {
		if ch.ID == IDIndex || ch.ID == IDEmbedder {
			index = append(index, ch)
			continue
		}
		out.add(ch)
	}
	out.checks = append(out.checks, git.checks...)
	out.ignoreFiles(ws)
	out.hooks(ws)
	out.checks = append(out.checks, index...)
	out.locks(ws, env, opts)
	out.temps(ws)
	return out.checks
}

// collector gathers the checks of one inspection.
type collector struct{ checks []Check }

func (c *collector) add(ch Check) { c.checks = append(c.checks, ch) }
