package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/archive"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/tasks"
)

type importOptions struct {
	fromBeads           string
	force, dryRun, json bool
}

func newImportCmd(env *Env) *cobra.Command {
	var opts importOptions
	cmd := &cobra.Command{
		Use:   "import <archive.tar.gz> | --from-beads <path>",
		Short: "Restore an archive from memctl export, or read a Beads repository's issues",
		Long: `Import restores what memctl export wrote into this workspace. It checks the
whole archive before it writes anything: the manifest, each entry against
it (a regular file, listed once, of the listed size and SHA-256), that every
path is a memctl file (no absolute path, "..", link or device), the secret
gate, and that issues.jsonl and the JSON files read as memctl reads them.
A file identical to the archive's is left alone; one as memctl init wrote
it is replaced; one with other content stops the import, every such file
listed, unless --force. Each file is written atomically, under the
workspace lock.

--from-beads reads a bd repository (its directory, its .beads directory or
a JSONL file, from any bd version) into .beads/issues.jsonl: new ids are
added, identical ones left, an id with other content is a conflict unless
--force. Every field memctl does not know is kept.`,
		Example: `  memctl import backup.tar.gz --dry-run
  memctl import backup.tar.gz --json
  memctl import --from-beads ../old-repo --json`,
		Args: func(_ *cobra.Command, args []string) error {
			switch {
			case len(args) > 1:
				return usagef(fmt.Errorf("import takes one archive; got %d arguments", len(args)))
			case len(args) == 1 && opts.fromBeads != "":
				return usagef(errors.New("give an archive or --from-beads, not both"))
			case len(args) == 0 && opts.fromBeads == "":
				return usagef(errors.New("name the archive to import (memctl import backup.tar.gz) or a bd repository (--from-beads PATH)"))
			case len(args) == 1 && args[0] == "-":
				return usagef(errors.New("import reads the archive twice (to check it, then to write), so it takes a file, not stdin: save it first (memctl export -o backup.tar.gz)"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.fromBeads != "" {
				return runImportBeads(cmd.Context(), env, opts)
			}
			return runImport(cmd.Context(), env, args[0], opts)
		},
	}
	cmd.Flags().StringVar(&opts.fromBeads, "from-beads", "", "read the issues of the bd repository, .beads directory or JSONL file at `path`")
	cmd.Flags().BoolVar(&opts.force, "force", false, "overwrite files (or issues) whose content differs")
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "check everything and say what would be written; write nothing")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON (the shape: memctl help json)")
	return cmd
}

// importJSON is import's --json result (docs/json.md#import).
type importJSON struct {
	SchemaVersion int              `json:"schema_version"`
	Archive       string           `json:"archive"`
	DryRun        bool             `json:"dry_run"`
	FormatVersion int              `json:"format_version"`
	MemctlVersion string           `json:"memctl_version"`
	CreatedAt     string           `json:"created_at"`
	Files         []importFileJSON `json:"files"`
	Counts        importCountsJSON `json:"counts"`
}

type importFileJSON struct {
	Path   string `json:"path"`
	Action string `json:"action"`
}

type importCountsJSON struct {
	Written     int `json:"written"`
	Replaced    int `json:"replaced"`
	Overwritten int `json:"overwritten"`
	Unchanged   int `json:"unchanged"`
}

func runImport(ctx context.Context, env *Env, file string, opts importOptions) error {
	ws, err := env.Workspace()
	if err != nil {
		return err
	}
	if err := env.Lock(ctx, ws); err != nil {
		return err
	}
	if _, err := os.Stat(file); err != nil {
		return importError(fmt.Errorf("read %s: %w", file, err))
	}
	backups := filepath.Join(ws.Repo.CommonDir, "memctl", "backups", "import-"+env.Now().UTC().Format("20060102T150405Z"))
	if !opts.dryRun {
		// Runs and playbooks written at once (all, or some before an
		// error): the tool hooks' index is built again rather than
		// trusted on stamps a burst of writes may leave as they were.
		defer app.RunStore(ws).ForgetIndex()
	}
	res, err := archive.Import(func() (io.ReadCloser, error) { return os.Open(file) }, ws.Root, archive.ImportOptions{
		Force: opts.force, DryRun: opts.dryRun, Starter: config.Starter(ws.Config.Tasks.Prefix), Secrets: ws.Config.Secrets.Policy,
		BackupDir: backups})
	if err != nil {
		return importError(err)
	}
	if n := res.Count(archive.ActionOverwrite); n > 0 && !opts.dryRun {
		rel, _ := filepath.Rel(ws.Root, backups)
		env.notef("the %d overwritten file(s) were copied to %s first", n, filepath.ToSlash(rel))
	}
	m := res.Manifest
	out := importJSON{SchemaVersion: schemaVersion, Archive: file, DryRun: opts.dryRun, FormatVersion: m.FormatVersion,
		MemctlVersion: m.MemctlVersion, CreatedAt: m.Created.UTC().Format("2006-01-02T15:04:05Z07:00"), Files: []importFileJSON{},
		Counts: importCountsJSON{Written: res.Count(archive.ActionWrite), Replaced: res.Count(archive.ActionReplace),
			Overwritten: res.Count(archive.ActionOverwrite), Unchanged: res.Count(archive.ActionUnchanged)}}
	for _, f := range res.Files {
		out.Files = append(out.Files, importFileJSON{Path: f.Path, Action: f.Action})
	}
	if opts.json {
		return writeJSON(env.Out, out)
	}
	prefix := ""
	if opts.dryRun {
		prefix = "would be "
	}
	for _, f := range res.Files {
		if _, err := fmt.Fprintf(env.Out, "%s%s\t%s\n", prefix, f.Action, visibleLine(f.Path)); err != nil {
			return err
		}
	}
	c, done := out.Counts, "imported"
	if opts.dryRun {
		done = "checked (dry run: nothing written)"
	}
	env.notef("%d files %s: %d written, %d replaced (as memctl init left them), %d overwritten, %d unchanged",
		len(res.Files), done, c.Written, c.Replaced, c.Overwritten, c.Unchanged)
	return nil
}

// importBeadsJSON is import --from-beads' --json result.
type importBeadsJSON struct {
	SchemaVersion  int      `json:"schema_version"`
	Source         string   `json:"source"`
	DryRun         bool     `json:"dry_run"`
	Added          []string `json:"added"`
	Replaced       []string `json:"replaced"`
	Unchanged      []string `json:"unchanged"`
	HeadersSkipped int      `json:"headers_skipped"`
}

func runImportBeads(ctx context.Context, env *Env, opts importOptions) error {
	ws, err := env.taskWorkspace() // the task graph only: no init needed, as for task commands
	if err != nil {
		return err
	}
	if err := env.Lock(ctx, ws); err != nil {
		return err
	}
	res, err := archive.FromBeads(ws.Root, opts.fromBeads, archive.BeadsOptions{Force: opts.force, DryRun: opts.dryRun, Secrets: ws.Config.Secrets.Policy})
	if err != nil {
		return importError(err)
	}
	if opts.json {
		return writeJSON(env.Out, importBeadsJSON{SchemaVersion: schemaVersion, Source: res.Source, DryRun: opts.dryRun,
			Added: nonNilIDs(res.Added), Replaced: nonNilIDs(res.Replaced), Unchanged: nonNilIDs(res.Unchanged), HeadersSkipped: res.Headers})
	}
	verb := ""
	if opts.dryRun {
		verb = "would be "
	}
	for _, g := range []struct {
		action string
		ids    []string
	}{{"added", res.Added}, {"replaced", res.Replaced}} {
		for _, id := range g.ids {
			if _, err := fmt.Fprintf(env.Out, "%s%s\t%s\n", verb, g.action, visibleLine(id)); err != nil {
				return err
			}
		}
	}
	dry := ""
	if opts.dryRun {
		dry = " (dry run: nothing written)"
	}
	env.notef("%s: %d added, %d replaced, %d unchanged%s", res.Source, len(res.Added), len(res.Replaced), len(res.Unchanged), dry)
	return nil
}

func nonNilIDs(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// importError adds what to do next to import's refusals.
func importError(err error) error {
	var (
		conflict *archive.ConflictError
		format   *archive.FormatError
		gate     *archive.GateError
		content  *archive.ContentError
		beads    *tasks.BeadsConflictError
		line     *tasks.LineError
	)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &notFoundError{err: withHint(err, "name an existing file (memctl export writes memctl-export-<time>.tar.gz)")}
	case errors.Is(err, archive.ErrNoBeadsExport):
		return &notFoundError{err: withHint(err, `bd 0.51 and later keep issues in their database: run "bd export -o issues.jsonl" in that repository and import the file`)}
	case errors.As(err, &conflict):
		return withHint(err, "nothing was written: compare those files with the archive's, commit or move what you want to keep, or add --force to overwrite them with the archive's")
	case errors.As(err, &beads):
		return withHint(err, "nothing was written: memctl show <id> and the Beads file say how they differ; add --force to take the Beads version of each")
	case errors.As(err, &format):
		return withHint(err, "nothing was written: the archive is damaged, altered or not from memctl export; export it again from the source workspace")
	case errors.As(err, &gate):
		return withHint(err, "nothing was written: remove it from the source (memctl check there names each finding; gitleaks:allow on a line marks a false positive) and export again")
	case errors.As(err, &content):
		return withHint(err, "nothing was written: fix the file in the source workspace (memctl check there names the problems) and export again")
	case errors.As(err, &line):
		return withHint(err, "nothing was written: fix that line of the Beads file (each line one issue object with an id and a title: memctl help tasks)")
	}
	return err
}
