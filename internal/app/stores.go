package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/consolidate"
	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/index"
	"github.com/memctl/memctl/internal/prime"
	"github.com/memctl/memctl/internal/proposal"
	"github.com/memctl/memctl/internal/recall"
	"github.com/memctl/memctl/internal/runs"
	"github.com/memctl/memctl/internal/tasks"
)

// Every opener of a part of the workspace, in the order they depend on
// each other (tasks, runs, the index and what it needs, proposals, prime),
// as gh keeps its factory in one file. The front-ends call these; nothing
// else builds a store, an index or a book.

// TaskSession is an open task graph: the workspace, the store and its
// file. For writes, the session holds the workspace lock until Close.
type TaskSession struct {
	WS    *config.Workspace
	Store *tasks.Store
	Path  string
	// sess, when set (Session.Tasks), is told what the write gate
	// redacted in the writes Save saves.
	sess *Session
}

// Save writes the graph back to its file, then reports what the write
// gate redacted in the writes it saved (Session.ReportRedactions).
func (t *TaskSession) Save() error {
	if err := t.Store.Save(t.Path); err != nil {
		return err
	}
	if t.sess != nil {
		t.sess.ReportRedactions(t.Store.Redactions)
		t.Store.Redactions = nil
	}
	return nil
}

// Tasks loads the task graph. With write set it first takes the
// workspace lock, so the read-modify-write cannot interleave with another
// memctl process. A disabled layer reads as empty (with a notice) and
// refuses writes (*LayerOffError).
func (s *Session) Tasks(ctx context.Context, write bool) (*TaskSession, error) {
	ws := s.ws
	if !ws.Config.Tasks.Enabled {
		// Handled here once: a read sees an empty graph (empty results,
		// the notice says why), a write is refused, never silently dropped.
		off := &LayerOffError{Layer: "tasks"}
		if write {
			return nil, off
		}
		s.noticef("%v", off) // the message; the hint is for writes
		empty, err := tasks.Parse(nil)
		if err != nil {
			return nil, err
		}
		return &TaskSession{WS: ws, Store: empty, Path: ws.Path(config.IssuesFile)}, nil
	}
	if write {
		if err := s.Lock(ctx); err != nil {
			return nil, err
		}
	}
	if err := s.CheckUnmergedIssues(write); err != nil {
		return nil, err
	}
	path := ws.Path(config.IssuesFile)
	st, err := tasks.LoadCached(path, TasksCachePath(ws))
	if err != nil {
		var le *tasks.LineError
		if errors.As(err, &le) {
			return nil, WithHint(fmt.Errorf("%s: %w", config.IssuesFile, err),
				"fix that line (after a merge, look for conflict markers); memctl never drops a line it cannot read")
		}
		return nil, fmt.Errorf("read %s: %w", config.IssuesFile, err)
	}
	st.Secrets = ws.Config.Secrets.Policy
	return &TaskSession{WS: ws, Store: st, Path: path, sess: s}, nil
}

// CheckUnmergedIssues refuses the issues file while a stopped merge has it
// unmerged and it may hold only one side. Once memctl resolve has merged
// it (the file is exactly the resolution of the index stages), reads go
// on with a notice and writes wait for git add: a change now would make
// the file look edited, and send the next command back to resolve.
func (s *Session) CheckUnmergedIssues(write bool) error {
	ws := s.ws
	unmerged, err := ws.Repo.StoppedUnmerged(config.IssuesFile)
	if err != nil || !unmerged {
		return err
	}
	resolved, err := tasks.IsResolved(ws.Root, config.IssuesFile)
	switch {
	case err != nil:
		return err
	case !resolved && hasConflictMarkers(ws.Path(config.IssuesFile)):
		// resolve wrote the records both sides changed between markers:
		// the next step is to edit them, not to resolve again.
		return WithHint(fmt.Errorf("%s is unmerged and has conflict markers: records both sides changed are between <<<<<<< and >>>>>>>", config.IssuesFile),
			"keep one version of each record between the markers, delete the marker lines, then git add "+config.IssuesFile)
	case !resolved:
		return WithHint(fmt.Errorf("%s is unmerged: a merge or pull stopped on it, and it may hold only your side", config.IssuesFile),
			"run memctl resolve to merge it from the git index, then git add "+config.IssuesFile)
	case write:
		return WithHint(fmt.Errorf("%s is resolved but not staged; a change now would be taken for an edit of the merge", config.IssuesFile),
			"git add "+config.IssuesFile+" to finish the merge, then run the command again")
	}
	s.noticef("%s is resolved but not staged: git add %s to finish the merge", config.IssuesFile, config.IssuesFile)
	return nil
}

// hasConflictMarkers reports whether the file at path has conflict-marker
// lines; an unreadable file has none.
func hasConflictMarkers(path string) bool {
	data, err := os.ReadFile(path)
	return err == nil && len(gitx.ConflictMarkers(data)) > 0
}

// RunsSession is the run store of the workspace. Off is set when the runs
// layer is disabled: reads then see no runs.
type RunsSession struct {
	WS    *config.Workspace
	Store runs.Store
	Off   bool
}

// Runs opens the run store. With write set it first takes the workspace
// lock. A disabled layer reads as empty (with a notice) and refuses writes.
func (s *Session) Runs(ctx context.Context, write bool) (*RunsSession, error) {
	rs := &RunsSession{WS: s.ws, Store: RunStore(s.ws)}
	if !s.ws.Config.Runs.Enabled {
		off := &LayerOffError{Layer: "runs"}
		if write {
			return nil, off
		}
		s.noticef("%v", off)
		rs.Off = true
		return rs, nil
	}
	if write {
		if err := s.Lock(ctx); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// RunStore is the workspace's run store, with its list cache and the
// tool hooks' index under the git directory.
func RunStore(ws *config.Workspace) runs.Store {
	lock := ws.LockPath()
	return runs.Store{Dir: ws.Path(config.RunsDir), Rel: config.RunsDir,
		Cache:     filepath.Join(ws.Repo.GitDir, "memctl", "runs.cache"),
		Index:     filepath.Join(ws.Repo.GitDir, "memctl", "warn.index"),
		Playbooks: ws.Path(config.PlaybooksDir),
		TryLock: func() (func(), bool) {
			l, err := fsx.Acquire(context.Background(), lock, 0)
			if err != nil {
				return nil, false
			}
			// Named, as every holder is, for a writer that gives up waiting.
			_ = l.Announce(fsx.Holder{PID: os.Getpid(), Command: "memctl hook (building the hook index)"})
			return func() { _ = l.Release() }, true
		}}
}

// TasksCachePath is the task graph's cache, under the git directory.
func TasksCachePath(ws *config.Workspace) string {
	return filepath.Join(ws.Repo.GitDir, "memctl", "tasks.cache")
}

// CheckCleanPath is where check remembers the lines of issues.jsonl it
// found clean, under the git directory.
func CheckCleanPath(ws *config.Workspace) string {
	return filepath.Join(ws.Repo.GitDir, "memctl", "check.clean")
}

// IndexDir is where a workspace's index lives: in the git directory shared
// by its worktrees, never in the working tree.
func IndexDir(ws *config.Workspace) string {
	return filepath.Join(ws.Repo.CommonDir, "memctl")
}

// DownPath is the file that remembers a failed embedder (embed.Guard),
// beside the index.
func DownPath(ws *config.Workspace) string {
	return filepath.Join(IndexDir(ws), embed.DownFile)
}

// Sources is what recall searches: the kinds of the enabled layers, and
// the person's own preferences file as getenv names it
// (config.UserPreferencesPath; none when it names none). That file is
// read into the index under the git directory only, which is never
// committed, exported or shared.
func Sources(ws *config.Workspace, getenv func(string) string) []index.Source {
	out := TeamSources(ws)
	if getenv != nil {
		if path := config.UserPreferencesPath(getenv); path != "" {
			out = append(out, recall.PersonalSource{Path: path, Home: getenv("HOME")})
		}
	}
	return out
}

// Sources is what recall searches for this session (the package's
// Sources with the session's environment).
func (s *Session) Sources() []index.Source { return Sources(s.ws, s.opts.Getenv) }

// TeamSources is what recall searches of the repository: the kinds of
// the enabled layers.
func TeamSources(ws *config.Workspace) []index.Source {
	var out []index.Source
	for _, src := range recall.Sources() {
		switch src.Kind() {
		case index.KindFact, index.KindProposal:
			if !ws.Config.Facts.Enabled {
				continue
			}
		case index.KindTask:
			if !ws.Config.Tasks.Enabled {
				continue
			}
		case index.KindRun, index.KindPlaybook:
			if !ws.Config.Runs.Enabled {
				continue
			}
		}
		out = append(out, src)
	}
	return out
}

// Embedder makes the configured embedder: the workspace's [embed],
// overridden by the user's own config file (whose warnings go to Warn).
func (s *Session) Embedder() (embed.Embedder, error) {
	return EmbedderFor(s.ws, s.opts)
}

// EmbedderFor makes ws's embedder as Session.Embedder does, for a
// front-end that has no Session (doctor, which loads the workspace itself
// as far as it loads).
func EmbedderFor(ws *config.Workspace, opts Options) (embed.Embedder, error) {
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	cfg := ws.Config.Embed
	if path := config.UserConfigPath(opts.Getenv); path != "" {
		u, warns, err := config.LoadUser(path, cfg)
		if err != nil {
			return nil, err
		}
		for _, w := range warns {
			if opts.Warn != nil {
				opts.Warn(w.String())
			}
		}
		cfg = u
	}
	return embed.FromConfig(cfg, opts.Getenv)
}

// Index opens the workspace's index until Close; a second call returns
// the same index. It is not brought up to date: see UpdatedIndex.
func (s *Session) Index(ctx context.Context) (*index.Index, error) {
	if s.index != nil {
		return s.index, nil
	}
	emb, err := s.Embedder()
	if err != nil {
		return nil, err
	}
	if h, ok := emb.(*embed.HTTP); ok {
		// An embedder that failed is skipped for a while, by every
		// process: a stopped server costs one failure, not one per call.
		emb = embed.NewGuard(h, DownPath(s.ws), s.opts.Now)
	}
	x, err := index.Open(ctx, index.Options{
		Dir:      IndexDir(s.ws),
		Embedder: emb,
		Notice:   func(msg string) { s.noticef("%s", msg) },
		Repo:     s.ws.Repo,
		Holder:   s.opts.holder(),
	})
	if err != nil {
		return nil, err
	}
	s.index = x
	s.closers = append(s.closers, x.Close)
	return x, nil
}

// UpdatedIndex is Index brought up to date with the files of the enabled
// layers (only files that changed are read again).
func (s *Session) UpdatedIndex(ctx context.Context) (*index.Index, error) {
	x, err := s.Index(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := x.Update(ctx, s.ws.Root, s.Sources()); err != nil {
		return nil, fmt.Errorf("update the recall index: %w", err)
	}
	return x, nil
}

// SimilarityMatcher is the recall index's matcher for propose, or nil
// (words only) when the index is disabled or cannot be used: a proposal
// never fails for want of an index.
func (s *Session) SimilarityMatcher(ctx context.Context) *recall.Matcher {
	if !s.ws.Config.Index.Enabled {
		return nil
	}
	x, err := s.Index(ctx)
	if err == nil {
		_, err = x.Update(ctx, s.ws.Root, s.Sources())
	}
	if err != nil {
		s.warnf("similar facts are judged by words only: the recall index failed: %v", err)
		return nil
	}
	return &recall.Matcher{Ctx: ctx, Index: x}
}

// Book is the workspace's facts book: facts, proposals and playbooks.
func (s *Session) Book() *proposal.Book {
	ws := s.ws
	return &proposal.Book{
		FactsDir: ws.Path(config.FactsDir), FactsRel: config.FactsDir,
		Proposals:    proposal.Dir{Path: ws.Path(config.ProposalsDir), Rel: config.ProposalsDir},
		PlaybooksDir: ws.Path(config.PlaybooksDir), PlaybooksRel: config.PlaybooksDir,
		Config: ws.Config.Facts, Secrets: ws.Config.Secrets.Policy,
	}
}

// FactsBook opens the workspace for a change to the facts: the layer on,
// the workspace lock taken, and the book with the similarity matcher. Call
// done once the proposal is filed: it warns when similarity fell back to
// words.
func (s *Session) FactsBook(ctx context.Context) (book *proposal.Book, done func(), err error) {
	if !s.ws.Config.Facts.Enabled {
		return nil, nil, &LayerOffError{Layer: "facts"}
	}
	if err := s.Lock(ctx); err != nil {
		return nil, nil, err
	}
	book, done = s.Book(), func() {}
	if m := s.SimilarityMatcher(ctx); m != nil {
		book.Matcher = m
		done = func() {
			if m.Err != nil {
				s.warnf("similar facts were judged by words only: %v", m.Err)
			}
		}
	}
	return book, done, nil
}

// ConsolidateRequest is the request that files proposals for what the
// runs of store show, as memctl, at the session's time.
func (s *Session) ConsolidateRequest(store runs.Store, dryRun bool) consolidate.Request {
	return consolidate.Request{Runs: store, Book: s.Book(), Now: s.Now(), Rand: s.opts.Rand,
		DryRun: dryRun, NoFacts: !s.ws.Config.Facts.Enabled}
}

// RunContext is what git (and with times set, the clock) says about a
// run recorded now.
func (s *Session) RunContext(times bool) runs.Context {
	repo := s.ws.Repo
	c := runs.Context{Repo: repo.RemoteName(), Branch: repo.Branch(), CommitSHA: repo.Head(), Actor: s.Actor().Name}
	if times {
		c.Now = s.Now()
	}
	return c
}

// PrimeOptions are prime's options for the session's actor, as every
// front-end builds them (memctl prime, the session-start hooks, the MCP
// prime tool); the front-end sets the budget and the files.
func (s *Session) PrimeOptions() prime.Options {
	ws := s.ws
	return prime.Options{
		Actor:         s.Actor().Name,
		Branch:        ws.Repo.Branch(),
		PersonalPrefs: config.UserPreferencesPath(s.opts.Getenv),
		TasksCache:    TasksCachePath(ws),
		Runs:          RunStore(ws),
		PinsDir:       prime.PinsDir(ws),
		Now:           s.Now(),
	}
}
