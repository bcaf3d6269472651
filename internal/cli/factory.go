package cli

// The composition root: every opener of a part of the workspace, in the
// order they depend on each other (identity, tasks, the index and what it
// needs, proposals), as gh keeps its factory in one file. Commands call
// these; nothing else builds a store, an index or a book.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/index"
	"github.com/memctl/memctl/internal/proposal"
	"github.com/memctl/memctl/internal/recall"
	"github.com/memctl/memctl/internal/tasks"
)

// identity is a name to act under: override if set, else git's user.name,
// else its user.email, else $USER, else "unknown"; and git's email.
func (e *Env) identity(ws *config.Workspace, override string) (name, email string) {
	name, email = gitx.Identity(ws.Root)
	for _, n := range []string{override, name, email, e.Getenv("USER"), "unknown"} {
		if n != "" {
			return n, email
		}
	}
	return "", email
}

// actor is who memctl acts as: MEMCTL_ACTOR, else git's user.name (or
// user.email), else $USER.
func (e *Env) actor(ws *config.Workspace) tasks.Actor {
	name, email := e.identity(ws, e.Getenv("MEMCTL_ACTOR"))
	return tasks.Actor{Name: name, Email: email}
}

// reviewer is who decides: --reviewer, else MEMCTL_ACTOR (as for every
// other command), else git's user.name or user.email, else $USER.
func (e *Env) reviewer(ws *config.Workspace, flag string) (name, email string) {
	if flag == "" {
		flag = e.Getenv("MEMCTL_ACTOR")
	}
	return e.identity(ws, flag)
}

// taskSession is an open task graph: the workspace, the store and, for
// writes, the lock held until the command ends.
type taskSession struct {
	ws    *config.Workspace
	store *tasks.Store
	path  string
}

// layerOff is the refusal of a write to a layer switched off in the
// config: an agent's write must fail loudly, not vanish.
func layerOff(layer string) error {
	return withHint(fmt.Errorf("the %s layer is disabled ([%s] enabled = false in %s)", layer, layer, config.ConfigFile),
		"set ["+layer+"] enabled = true in "+config.ConfigFile+" to keep "+layer+" in this repository")
}

// openTasks loads the task graph. With write set it first takes the
// workspace lock, so the read-modify-write cannot interleave with another
// memctl process. A disabled layer reads as empty and refuses writes.
func (e *Env) openTasks(ctx context.Context, write bool) (*taskSession, error) {
	ws, err := e.Workspace()
	if err != nil {
		return nil, err
	}
	if !ws.Config.Tasks.Enabled {
		// Handled here once: a read sees an empty graph (empty results,
		// the note says why), a write is refused, never silently dropped.
		if write {
			return nil, layerOff("tasks")
		}
		e.notef("%v", layerOff("tasks")) // the message; the hint is for writes
		empty, err := tasks.Parse(nil)
		if err != nil {
			return nil, err
		}
		return &taskSession{ws: ws, store: empty, path: ws.Path(config.IssuesFile)}, nil
	}
	if write {
		if err := e.Lock(ctx, ws); err != nil {
			return nil, err
		}
	}
	if err := e.checkUnmergedIssues(ws, write); err != nil {
		return nil, err
	}
	path := ws.Path(config.IssuesFile)
	s, err := tasks.LoadCached(path, tasksCachePath(ws))
	if err != nil {
		var le *tasks.LineError
		if errors.As(err, &le) {
			return nil, withHint(fmt.Errorf("%s: %w", config.IssuesFile, err),
				"fix that line (after a merge, look for conflict markers); memctl never drops a line it cannot read")
		}
		return nil, fmt.Errorf("read %s: %w", config.IssuesFile, err)
	}
	return &taskSession{ws: ws, store: s, path: path}, nil
}

// checkUnmergedIssues refuses the issues file while a stopped merge has it
// unmerged and it may hold only one side. Once memctl resolve has merged
// it (the file is exactly the resolution of the index stages), reads go
// on with a note and writes wait for git add: a change now would make the
// file look edited, and send the next command back to resolve.
func (e *Env) checkUnmergedIssues(ws *config.Workspace, write bool) error {
	unmerged, err := ws.Repo.StoppedUnmerged(config.IssuesFile)
	if err != nil || !unmerged {
		return err
	}
	resolved, err := tasks.IsResolved(ws.Root, config.IssuesFile)
	switch {
	case err != nil:
		return err
	case !resolved && e.hasConflictMarkers(ws.Path(config.IssuesFile)):
		// resolve wrote the records both sides changed between markers:
		// the next step is to edit them, not to resolve again.
		return withHint(fmt.Errorf("%s is unmerged and has conflict markers: records both sides changed are between <<<<<<< and >>>>>>>", config.IssuesFile),
			"keep one version of each record between the markers, delete the marker lines, then git add "+config.IssuesFile)
	case !resolved:
		return withHint(fmt.Errorf("%s is unmerged: a merge or pull stopped on it, and it may hold only your side", config.IssuesFile),
			"run memctl resolve to merge it from the git index, then git add "+config.IssuesFile)
	case write:
		return withHint(fmt.Errorf("%s is resolved but not staged; a change now would be taken for an edit of the merge", config.IssuesFile),
			"git add "+config.IssuesFile+" to finish the merge, then run the command again")
	}
	e.notef("%s is resolved but not staged: git add %s to finish the merge", config.IssuesFile, config.IssuesFile)
	return nil
}

// hasConflictMarkers reports whether the file at path has conflict-marker
// lines; an unreadable file has none.
func (e *Env) hasConflictMarkers(path string) bool {
	data, err := os.ReadFile(path)
	return err == nil && len(gitx.ConflictMarkers(data)) > 0
}

// embedderFor makes the configured embedder: the workspace's [embed],
// overridden by the user's own config file.
func embedderFor(env *Env, ws *config.Workspace) (embed.Embedder, error) {
	cfg := ws.Config.Embed
	if path := config.UserConfigPath(env.Getenv); path != "" {
		u, warns, err := config.LoadUser(path, cfg)
		if err != nil {
			return nil, err
		}
		for _, w := range warns {
			env.warnf("%s", w)
		}
		cfg = u
	}
	return embed.FromConfig(cfg, env.Getenv)
}

// indexDir is where a workspace's index lives: in the git directory shared
// by its worktrees, never in the working tree.
func indexDir(ws *config.Workspace) string {
	return filepath.Join(ws.Repo.CommonDir, "memctl")
}

// sourcesFor is what recall searches: the kinds of the enabled layers.
func sourcesFor(ws *config.Workspace) []index.Source {
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

// openIndex opens the workspace's index for the rest of the command.
func (e *Env) openIndex(ctx context.Context, ws *config.Workspace) (*index.Index, error) {
	emb, err := embedderFor(e, ws)
	if err != nil {
		return nil, err
	}
	x, err := index.Open(ctx, index.Options{
		Dir:      indexDir(ws),
		Embedder: emb,
		Notice:   func(msg string) { e.notef("%s", msg) },
		Repo:     ws.Repo,
		Holder:   e.holder(),
	})
	if err != nil {
		return nil, err
	}
	e.closers = append(e.closers, x.Close)
	return x, nil
}

// similarityMatcher is the recall index's matcher for propose, or nil
// (words only) when the index is disabled or cannot be used: a proposal
// never fails for want of an index.
func (e *Env) similarityMatcher(ctx context.Context, ws *config.Workspace) *recall.Matcher {
	if !ws.Config.Index.Enabled {
		return nil
	}
	x, err := e.openIndex(ctx, ws)
	if err == nil {
		_, err = x.Update(ctx, ws.Root, sourcesFor(ws))
	}
	if err != nil {
		e.warnf("similar facts are judged by words only: the recall index failed: %v", err)
		return nil
	}
	return &recall.Matcher{Ctx: ctx, Index: x}
}

func (e *Env) book(ws *config.Workspace) *proposal.Book {
	return &proposal.Book{
		FactsDir: ws.Path(config.FactsDir), FactsRel: config.FactsDir,
		Proposals:    proposal.Dir{Path: ws.Path(config.ProposalsDir), Rel: config.ProposalsDir},
		PlaybooksDir: ws.Path(config.PlaybooksDir), PlaybooksRel: config.PlaybooksDir,
		Config: ws.Config.Facts,
	}
}

// tasksCachePath is the task graph's cache, under the git directory.
func tasksCachePath(ws *config.Workspace) string {
	return filepath.Join(ws.Repo.GitDir, "memctl", "tasks.cache")
}
