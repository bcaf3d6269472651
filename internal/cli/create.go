package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/tasks"
)

type createOptions struct {
	title, description, design, notes, acceptance string
	typ, priority, assignee, parent               string
	deferUntil, due, externalRef, id, metadata    string
	estimate                                      int
	labels, deps                                  []string
	silent, json, dryRun, force, estimateSet      bool
}

func newCreateCmd(env *Env) *cobra.Command {
	var opts createOptions
	cmd := &cobra.Command{
		Use:   "create [title]",
		Short: "Create a task (Beads' bd create)",
		Example: `  memctl create "Fix login timeout" -t bug -p 1 --json
  id=$(memctl create "Write docs" --deps discovered-from:app-3f2 --silent)
  memctl create "Step one" --parent app-3f2 -l backend,api`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.estimateSet = cmd.Flags().Changed("estimate")
			if len(args) == 1 {
				if opts.title != "" && opts.title != args[0] {
					return usagef(errors.New("give the title as an argument or with --title, not both"))
				}
				opts.title = args[0]
			}
			return runCreate(cmd.Context(), env, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.title, "title", "", "the title")
	f.StringVarP(&opts.description, "description", "d", "", "the description (- reads stdin)")
	f.StringVar(&opts.design, "design", "", "design notes")
	f.StringVar(&opts.notes, "notes", "", "notes")
	f.StringVar(&opts.acceptance, "acceptance", "", "acceptance criteria")
	f.StringVarP(&opts.typ, "type", "t", "task", "issue `type`: bug, feature, task, epic, chore, …")
	f.StringVarP(&opts.priority, "priority", "p", "2", "priority 0–4 or P0–P4 (0 is critical)")
	f.StringVarP(&opts.assignee, "assignee", "a", "", "assignee")
	f.StringVar(&opts.parent, "parent", "", "parent `id`: the new issue is <parent>.<n> with a parent-child edge")
	f.StringSliceVarP(&opts.labels, "labels", "l", nil, "labels, comma-separated")
	f.StringSliceVar(&opts.deps, "deps", nil, "dependencies `type:id,…` (id or blocked-by:id = depends on id; blocks:id = blocks id)")
	f.StringVar(&opts.deferUntil, "defer", "", "create it deferred, hidden from ready until `when` (RFC 3339, YYYY-MM-DD, +3d, 2w, tomorrow)")
	f.StringVar(&opts.due, "due", "", "due date `when` (as --defer)")
	f.IntVarP(&opts.estimate, "estimate", "e", 0, "time estimate in `minutes`")
	f.StringVar(&opts.externalRef, "external-ref", "", "external reference, such as gh-9 or a tracker URL")
	f.StringVar(&opts.id, "id", "", "an explicit `id` instead of a generated one (it must carry the prefix unless --force)")
	f.BoolVar(&opts.force, "force", false, "with --id, allow another prefix")
	f.StringVar(&opts.metadata, "metadata", "", "custom metadata: a JSON `value`, or @file.json to read it from a file")
	f.BoolVar(&opts.dryRun, "dry-run", false, "print what would be created and write nothing")
	f.BoolVar(&opts.silent, "silent", false, "print only the new id")
	f.BoolVar(&opts.json, "json", false, "print the created issue as JSON (bd's shape)")
	return cmd
}

func runCreate(ctx context.Context, env *Env, opts createOptions) error {
	if strings.TrimSpace(opts.title) == "" {
		return usagef(errors.New("a title is required: memctl create \"title\""))
	}
	prio, err := parsePriority(opts.priority)
	if err != nil {
		return err
	}
	deps, err := tasks.ParseDepSpecs(opts.deps)
	if err != nil {
		return usagef(err)
	}
	if opts.description == "-" {
		b, err := io.ReadAll(env.In)
		if err != nil {
			return fmt.Errorf("read description from stdin: %w", err)
		}
		opts.description = strings.TrimRight(string(b), "\n")
	}
	n := tasks.NewIssue{
		Title: opts.title, Description: opts.description, Design: opts.design, Notes: opts.notes,
		Acceptance: opts.acceptance, Type: opts.typ, Assignee: opts.assignee, Parent: opts.parent,
		Priority: prio, Labels: opts.labels, Deps: deps, ExternalRef: opts.externalRef, ID: opts.id, ForcePrefix: opts.force,
	}
	if opts.force && opts.id == "" {
		return usagef(errors.New("--force goes with --id"))
	}
	for _, w := range []struct {
		flag, v string
		dst     *time.Time
	}{{"defer", opts.deferUntil, &n.DeferUntil}, {"due", opts.due, &n.DueAt}} {
		if w.v != "" {
			t, err := parseWhen(w.flag, w.v, env.Now(), false)
			if err != nil {
				return err
			}
			*w.dst = t
		}
	}
	if opts.estimateSet {
		if opts.estimate < 0 {
			return usagef(fmt.Errorf("--estimate %d: give minutes ≥ 0", opts.estimate))
		}
		n.EstimatedMinutes = &opts.estimate
	}
	if opts.metadata != "" {
		meta, err := readMetadata(opts.metadata)
		if err != nil {
			return err
		}
		n.Metadata = meta
	}
	// A dry run takes no lock and saves nothing: the store is read, the
	// issue made in memory and printed.
	t, err := env.openTasks(ctx, !opts.dryRun)
	if err != nil {
		return err
	}
	iss, err := t.store.Create(n, t.ws.Config.Tasks.Prefix, env.actor(t.ws), env.Now())
	if err != nil {
		return taskError(err)
	}
	if opts.dryRun {
		env.notef("dry run: nothing was written")
	} else if err := t.save(); err != nil {
		return err
	}
	switch {
	case opts.silent:
		_, err = fmt.Fprintln(env.Out, iss.ID)
	case opts.json:
		err = writeJSON(env.Out, createObject(iss))
	default:
		_, err = fmt.Fprintf(env.Out, "%s\t%s\n", iss.ID, visibleLine(iss.Title))
	}
	return err
}

// readMetadata reads --metadata: a JSON value, or @file to read one.
func readMetadata(v string) ([]byte, error) {
	data := []byte(v)
	if name, ok := strings.CutPrefix(v, "@"); ok {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, usagef(fmt.Errorf("--metadata %s: %w", v, err))
		}
		data = b
	}
	if !json.Valid(data) {
		return nil, usagef(fmt.Errorf("--metadata: not valid JSON; give a JSON value such as '{\"team\":\"infra\"}' or @file.json"))
	}
	return data, nil
}
