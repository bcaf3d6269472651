package cli

import (
	"context"
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/prime"
)

func newPinCmd(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "pin <id>...",
		Short: "Pin facts, tasks, runs or playbooks into your memctl prime context",
		Long: `Pin adds ids to your working set: memctl prime prints them right after the
facts, with their current text. An id may name a fact, a task, a run or a
playbook (its error signature, or the path of its file); memctl looks for it
in that order and remembers the kind. An id that names none of them is an
error (exit 3); the others are still pinned. The pins are yours (MEMCTL_ACTOR,
else your git identity) and kept under the git directory, never committed.
It prints your pins.`,
		Example: `  memctl pin f-3k9x2a1 app-8f2
  memctl pin r-917866ce65 --json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runPin(cmd.Context(), env, args, asJSON) },
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print your pins as JSON (the shape: memctl help json)")
	return cmd
}

func newUnpinCmd(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "unpin <id>...",
		Short: "Drop ids from your pinned working set",
		Long: `Unpin removes ids from your working set (memctl pin), whether or not what
they named still exists. An id you have not pinned is an error (exit 3); the
others are still removed. It prints your pins.`,
		Example: `  memctl unpin f-3k9x2a1
  memctl unpin app-8f2 --json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runUnpin(cmd.Context(), env, args, asJSON) },
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print your pins as JSON (the shape: memctl help json)")
	return cmd
}

func newPinsCmd(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "pins",
		Short: "List your pinned working set with what each id names now",
		Long: `Pins lists the ids you pinned (memctl pin), oldest first, with their kind and
current text: a fact's text, a task's status and title, a run's status,
intent and result, a playbook's title. An id whose item is gone is listed as
such (memctl unpin drops it).`,
		Example: "  memctl pins\n  memctl pins --json",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return runPins(cmd.Context(), env, asJSON) },
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (the shape: memctl help json)")
	return cmd
}

func runPin(ctx context.Context, env *Env, ids []string, asJSON bool) error {
	ws, err := env.Workspace()
	if err != nil {
		return err
	}
	f, err := env.pinFinder(ws)
	if err != nil {
		return err
	}
	actor := env.actor(ws).Name
	now := env.Now().UTC().Truncate(time.Second)
	b := &batchError{total: len(ids)}
	var add []prime.Pin
	for _, id := range ids {
		it, err := f.Find(id, "")
		if err != nil {
			if errors.Is(err, prime.ErrUnknownID) {
				err = withHint(&notFoundError{err}, "pin a fact id (memctl facts), a task id (memctl list --all), a run id (memctl runs) or a playbook's signature")
			}
			b.failed = append(b.failed, itemError{id: id, err: err})
			continue
		}
		add = append(add, prime.Pin{ID: it.ID, Kind: it.Kind, PinnedAt: now})
	}
	// Under the pins' own lock: every worktree shares them.
	all, err := prime.UpdatePins(ctx, prime.PinsDir(ws), actor, env.acquirer(&ws.Config), func(have []prime.Pin) []prime.Pin {
		all, _ := prime.AddPins(have, add)
		return all
	})
	if err != nil {
		return err
	}
	if err := writePins(env, f, actor, all, asJSON); err != nil {
		return err
	}
	if len(b.failed) > 0 {
		return b
	}
	return nil
}

func runUnpin(ctx context.Context, env *Env, ids []string, asJSON bool) error {
	ws, err := env.Workspace()
	if err != nil {
		return err
	}
	actor := env.actor(ws).Name
	for i, id := range ids {
		ids[i] = prime.PlaybookID(id)
	}
	var missing []string
	kept, err := prime.UpdatePins(ctx, prime.PinsDir(ws), actor, env.acquirer(&ws.Config), func(have []prime.Pin) []prime.Pin {
		var kept []prime.Pin
		kept, missing = prime.RemovePins(have, ids)
		return kept
	})
	if err != nil {
		return err
	}
	f, err := env.pinFinder(ws)
	if err != nil {
		return err
	}
	if err := writePins(env, f, actor, kept, asJSON); err != nil {
		return err
	}
	if len(missing) > 0 {
		b := &batchError{total: len(ids)}
		for _, id := range missing {
			b.failed = append(b.failed, itemError{id: id, err: withHint(&notFoundError{errors.New("not pinned")}, "memctl pins lists your pins")})
		}
		return b
	}
	return nil
}

func runPins(_ context.Context, env *Env, asJSON bool) error {
	ws, err := env.Workspace()
	if err != nil {
		return err
	}
	actor := env.actor(ws).Name
	pins, err := prime.LoadPins(prime.PinsDir(ws), actor)
	if err != nil {
		return err
	}
	f, err := env.pinFinder(ws)
	if err != nil {
		return err
	}
	return writePins(env, f, actor, pins, asJSON)
}

// pinFinder finds ids in the enabled layers (prime.LoadFinder); a task
// graph that cannot be read is one warning.
func (e *Env) pinFinder(ws *config.Workspace) (*prime.Finder, error) {
	f, err := prime.LoadFinder(ws, tasksCachePath(ws), runStore(ws))
	if err == nil && f.TasksUnread != "" {
		e.warnf("%s; task pins are shown without their text", f.TasksUnread)
	}
	return f, err
}

// pinsJSON is the --json shape of pin, unpin and pins.
type pinsJSON struct {
	SchemaVersion int       `json:"schema_version"`
	Actor         string    `json:"actor"`
	Pins          []pinJSON `json:"pins"`
}

type pinJSON struct {
	ID       string    `json:"id"`
	Kind     string    `json:"kind"`
	PinnedAt time.Time `json:"pinned_at"`
	Text     string    `json:"text"`
	Gone     bool      `json:"gone"`
	// Unreadable: what it names may be in a file that cannot be read now.
	Unreadable bool `json:"unreadable"`
}

// writePins prints the pins with what each names now.
func writePins(env *Env, f *prime.Finder, actor string, pins []prime.Pin, asJSON bool) error {
	out := pinsJSON{SchemaVersion: schemaVersion, Actor: actor, Pins: make([]pinJSON, 0, len(pins))}
	for _, p := range pins {
		it, err := f.Find(p.ID, p.Kind)
		if err != nil {
			return err
		}
		out.Pins = append(out.Pins, pinJSON{ID: p.ID, Kind: p.Kind, PinnedAt: p.PinnedAt.UTC(), Text: it.Text, Gone: it.Gone, Unreadable: it.Unreadable})
	}
	if asJSON {
		return writeJSON(env.Out, out)
	}
	if len(out.Pins) == 0 {
		env.notef("nothing pinned (memctl pin <id> pins a fact, task, run or playbook)")
		return nil
	}
	t := newTable(env, "KIND", "ID", "PINNED", "NOW").clipToWidth()
	for _, p := range out.Pins {
		t.row(p.Kind, p.ID, formatTime(p.PinnedAt), p.Text)
	}
	return t.flush()
}
