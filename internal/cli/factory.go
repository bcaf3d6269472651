package cli

// The CLI's side of the composition root (internal/app): thin delegations
// to the app.Session over the workspace, under the names the commands
// call. Logic a second front-end needs lives in app, not here.

import (
	"context"

	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/index"
	"github.com/memctl/memctl/internal/proposal"
	"github.com/memctl/memctl/internal/tasks"
)

// appOptions is what the app session takes from the Env: its environment,
// clock, randomness, lock holder, and stderr for notices and warnings.
func (e *Env) appOptions() app.Options {
	return app.Options{
		Getenv: e.Getenv, Now: e.Now, Rand: e.Rand, Holder: e.holder,
		Notice: func(msg string) { e.notef("%s", msg) },
		Warn:   func(msg string) { e.warnf("%s", msg) },
	}
}

// session is the app session over ws, made on first use and closed by
// Main: one per workspace, so that a command's calls share its lock and
// its index (flush opens the workspace its hook names, not the Env's).
func (e *Env) session(ws *config.Workspace) *app.Session {
	if s := e.sessions[ws]; s != nil {
		return s
	}
	s := app.New(ws, e.appOptions())
	if e.sessions == nil {
		e.sessions = map[*config.Workspace]*app.Session{}
	}
	e.sessions[ws] = s
	e.closers = append(e.closers, s.Close)
	return s
}

// actor is who memctl acts as: MEMCTL_ACTOR, else git's user.name (or
// user.email), else $USER.
func (e *Env) actor(ws *config.Workspace) tasks.Actor { return e.session(ws).Actor() }

// reviewer is who decides: --reviewer, else MEMCTL_ACTOR (as for every
// other command), else git's user.name or user.email, else $USER.
func (e *Env) reviewer(ws *config.Workspace, flag string) (name, email string) {
	return e.session(ws).Reviewer(flag)
}

// taskSession is an open task graph: the workspace, the store and, for
// writes, the lock held until the command ends.
type taskSession struct {
	env   *Env // where save reports what the gate redacted
	ws    *config.Workspace
	store *tasks.Store
	path  string
}

// layerOff is the refusal of a write to a layer switched off in the
// config: an agent's write must fail loudly, not vanish.
func layerOff(layer string) error { return &app.LayerOffError{Layer: layer} }

// openTasks loads the task graph (app.Session.Tasks). With write set it
// first takes the workspace lock. A disabled layer reads as empty and
// refuses writes.
func (e *Env) openTasks(ctx context.Context, write bool) (*taskSession, error) {
	ws, err := e.taskWorkspace()
	if err != nil {
		return nil, err
	}
	t, err := e.session(ws).Tasks(ctx, write)
	if err != nil {
		return nil, err
	}
	return &taskSession{env: e, ws: t.WS, store: t.Store, path: t.Path}, nil
}

// indexDir is where a workspace's index lives: in the git directory shared
// by its worktrees, never in the working tree.
func indexDir(ws *config.Workspace) string { return app.IndexDir(ws) }

// sources is what recall searches: the kinds of the enabled layers and
// the personal preferences file.
func (e *Env) sources(ws *config.Workspace) []index.Source { return app.Sources(ws, e.Getenv) }

// openIndex opens the workspace's index for the rest of the command.
func (e *Env) openIndex(ctx context.Context, ws *config.Workspace) (*index.Index, error) {
	return e.session(ws).Index(ctx)
}

func (e *Env) book(ws *config.Workspace) *proposal.Book { return e.session(ws).Book() }

// tasksCachePath is the task graph's cache, under the git directory.
func tasksCachePath(ws *config.Workspace) string { return app.TasksCachePath(ws) }
