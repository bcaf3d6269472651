package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/runs"
)

type warnOptions struct {
	files []string
	json  bool
}

func newWarnCmd(env *Env) *cobra.Command {
	var opts warnOptions
	cmd := &cobra.Command{
		Use:   "warn",
		Short: "List past failed runs and playbooks that touched some files",
		Long: `Warn lists the past runs that failed (status failure or partial, or with
errors or failing tests) and changed the files or had an error in them,
and the playbooks linked to them (an evidence run touched them, or one of
those failures met the playbook's signature), newest first. Without
--files it asks about the files git status reports: changed, staged and
untracked. Nothing found is not an error.`,
		Example: `  memctl warn --files internal/parse.go,cmd/main.go
  memctl warn --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runWarn(cmd.Context(), env, opts) },
	}
	f := cmd.Flags()
	f.StringSliceVar(&opts.files, "files", nil, "the `paths` to ask about, comma-separated (default: git status's)")
	f.BoolVar(&opts.json, "json", false, "print JSON (the shape: memctl help json)")
	return cmd
}

func runWarn(ctx context.Context, env *Env, opts warnOptions) error {
	rs, err := env.openRuns(ctx, false)
	if err != nil {
		return err
	}
	req := runs.WarnRequest{PlaybooksDir: rs.ws.Path(config.PlaybooksDir), PlaybooksRel: config.PlaybooksDir}
	if !rs.off { // off, there is nothing to ask about: the note said why
		if req.Files, err = warnFiles(ctx, env, rs.ws, opts.files); err != nil {
			return err
		}
	}
	res, err := rs.store.Warn(req)
	if err != nil {
		return err
	}
	for _, p := range res.Problems {
		env.warnf("%v (left out; fix it by hand)", p)
	}
	if opts.json {
		return writeJSON(env.Out, toWarnJSON(res))
	}
	switch {
	case len(res.Files) == 0:
		env.notef("no files to warn about: none given and none changed")
		return nil
	case len(res.Runs) == 0 && len(res.Playbooks) == 0:
		env.notef("no past failures in %s", strings.Join(res.Files, ", "))
		return nil
	}
	t := newTable(env, "KIND", "ID", "WHEN", "STATUS", "SEE", "WHAT").clipToWidth()
	for _, w := range res.Runs {
		r := w.Entry.Record
		what, see := r.Digest.Intent, w.Entry.Path
		switch {
		case len(w.Errors) > 0:
			what = w.Errors[0].Signature + " " + w.Errors[0].Excerpt
			if w.Errors[0].Playbook != "" {
				see = w.Errors[0].Playbook
			}
		case len(w.FailedTests) > 0:
			what = "failed: " + strings.Join(w.FailedTests, ", ")
		}
		if r.Status == runs.StatusSuccess && what != r.Digest.Intent {
			// It broke during the run and the run ended well: fixed there.
			what = "fixed in this run: " + what
		}
		t.row("run", r.RunID, dash(formatTime(r.SortTime())), r.StatusOrUnknown(), see, dash(oneLine(what)))
	}
	for _, p := range res.Playbooks {
		t.row("playbook", p.Signature, dash(formatTime(p.Time)), "-", p.Path, dash(oneLine(p.Title)))
	}
	return t.flush()
}

// warnFiles are the files to warn about, relative to the repository root:
// those given (relative to the current directory), else git status's,
// leaving out memctl's own files (.ledger/, .beads/): what a session
// records is not code that broke.
func warnFiles(ctx context.Context, env *Env, ws *config.Workspace, given []string) ([]string, error) {
	if len(given) == 0 {
		files, err := gitx.Changed(ctx, ws.Root)
		if err != nil {
			return nil, withHint(fmt.Errorf("list the changed files: %w", err), "name the files with --files a.go,b/c.py")
		}
		return slices.DeleteFunc(files, func(f string) bool {
			return strings.HasPrefix(f, config.LedgerDir+"/") || strings.HasPrefix(f, config.BeadsDir+"/")
		}), nil
	}
	cwd, err := env.Getwd()
	if err != nil {
		return given, nil // taken as relative to the root
	}
	out := make([]string, 0, len(given))
	for _, f := range given {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if !filepath.IsAbs(f) {
			f = filepath.Join(cwd, f)
		}
		if rel, err := filepath.Rel(ws.Root, f); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			f = rel
		}
		out = append(out, filepath.ToSlash(f))
	}
	return out, nil
}

// warnJSON is what warn --json prints.
type warnJSON struct {
	SchemaVersion int                `json:"schema_version"`
	Files         []string           `json:"files"`
	Runs          []warnRunJSON      `json:"runs"`
	Playbooks     []warnPlaybookJSON `json:"playbooks"`
}

type warnRunJSON struct {
	RunID       string          `json:"run_id"`
	Path        string          `json:"path"`
	StartedAt   *time.Time      `json:"started_at"`
	Status      string          `json:"status"`
	Intent      string          `json:"intent"`
	Files       []string        `json:"files"`
	Errors      []warnErrorJSON `json:"errors"`
	FailedTests []string        `json:"failed_tests"`
}

type warnErrorJSON struct {
	runErrorJSON
	Playbook string `json:"playbook"`
}

type warnPlaybookJSON struct {
	Signature string     `json:"signature"`
	Path      string     `json:"path"`
	Title     string     `json:"title"`
	Runs      []string   `json:"runs"`
	LastAt    *time.Time `json:"last_at"`
}

func toWarnJSON(res runs.WarnResult) warnJSON {
	out := warnJSON{SchemaVersion: schemaVersion, Files: strs(res.Files),
		Runs: make([]warnRunJSON, 0, len(res.Runs)), Playbooks: make([]warnPlaybookJSON, 0, len(res.Playbooks))}
	for _, w := range res.Runs {
		r := w.Entry.Record
		j := warnRunJSON{RunID: r.RunID, Path: w.Entry.Path, StartedAt: timeJSON(r.SortTime()), Status: r.StatusOrUnknown(),
			Intent: r.Digest.Intent, Files: strs(w.Files), Errors: make([]warnErrorJSON, 0, len(w.Errors)), FailedTests: strs(w.FailedTests)}
		for _, e := range w.Errors {
			j.Errors = append(j.Errors, warnErrorJSON{runErrorJSON: toRunErrorJSON(e.Error), Playbook: e.Playbook})
		}
		out.Runs = append(out.Runs, j)
	}
	for _, p := range res.Playbooks {
		out.Playbooks = append(out.Playbooks, warnPlaybookJSON{Signature: p.Signature, Path: p.Path, Title: p.Title,
			Runs: strs(p.Runs), LastAt: timeJSON(p.Time)})
	}
	return out
}
