package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/archive"
	"github.com/memctl/memctl/internal/fsx"
)

type exportOptions struct {
	output, format string
	force, json    bool
}

func newExportCmd(env *Env) *cobra.Command {
	var opts exportOptions
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write every memctl file of the workspace to one archive (or JSON Lines)",
		Long: `Export writes the workspace's memctl files (.ledger/config.toml, the facts,
proposals, playbooks and run records, .beads/issues.jsonl) to a tar.gz
archive led by manifest.json, which lists each file's size, mode and
SHA-256; memctl import restores it. Derived data (the recall index and the
caches under .git/memctl) and personal files (your preferences and pins)
are not exported. The same files give the same archive, byte for byte,
except the manifest's created_at.

--format jsonl writes one JSON object per record instead (facts,
preferences, proposals, playbooks, runs, issues), for other tools; memctl
import does not read it. The shapes: memctl help json.

--format beads writes the issues as bd 1.0.5's "bd export" does (to stdout
unless -o): "_type":"issue" lines with the derived counts, which every bd
imports ("bd export" in bd mode). It needs no memctl init.

The default file is memctl-export-<time>.tar.gz (.jsonl) in the current
directory; -o - writes to stdout. An existing file is kept unless --force.`,
		Example: `  memctl export
  memctl export -o backup.tar.gz --json
  memctl export --format jsonl -o - | jq -c 'select(.kind == "fact")'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runExport(cmd.Context(), env, opts) },
	}
	cmd.Flags().StringVarP(&opts.output, "output", "o", "", "write to `file` (- for stdout; default memctl-export-<time>.tar.gz)")
	cmd.Flags().StringVar(&opts.format, "format", "tar.gz", "tar.gz (for memctl import), jsonl (one record a line, for other tools) or beads (the issues as bd export writes them; stdout unless -o)")
	cmd.Flags().BoolVar(&opts.force, "force", false, "replace an existing output file")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print what was written as JSON (the shape: memctl help json)")
	return cmd
}

// exportJSON is export's --json result (docs/json.md#export).
type exportJSON struct {
	SchemaVersion int               `json:"schema_version"`
	Path          string            `json:"path"`
	Format        string            `json:"format"`
	FormatVersion int               `json:"format_version"`
	MemctlVersion string            `json:"memctl_version"`
	CreatedAt     time.Time         `json:"created_at"`
	Bytes         int64             `json:"bytes"`
	Files         []exportFileJSON  `json:"files"`
	Records       *exportCountsJSON `json:"records,omitempty"`
	Skipped       []string          `json:"skipped"`
}

type exportFileJSON struct {
	Path   string `json:"path"`
	Kind   string `json:"kind"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

type exportCountsJSON struct {
	Config      int `json:"config"`
	Fact        int `json:"fact"`
	Preference  int `json:"preference"`
	Proposal    int `json:"proposal"`
	Playbook    int `json:"playbook"`
	Run         int `json:"run"`
	Issue       int `json:"issue"`
	BeadsRecord int `json:"beads_record"`
}

func runExport(ctx context.Context, env *Env, opts exportOptions) error {
	if opts.format == "beads" {
		return runExportBeads(ctx, env, opts)
	}
	if opts.format != "tar.gz" && opts.format != "jsonl" {
		return usagef(fmt.Errorf("--format %q: want tar.gz, jsonl or beads", opts.format))
	}
	if opts.output == "-" && opts.json {
		return usagef(errors.New("--json with -o -: stdout is the export; write it to a file to get the JSON result"))
	}
	ws, err := env.Workspace()
	if err != nil {
		return err
	}
	// Writers wait while the files are read, so the export is one state
	// of the workspace.
	if err := env.Lock(ctx, ws); err != nil {
		return err
	}
	now := env.Now().UTC().Truncate(time.Second)
	out := opts.output
	if out == "" {
		out = archive.DefaultName(opts.format, now)
	}
	res := exportJSON{SchemaVersion: schemaVersion, Path: out, Format: opts.format, FormatVersion: archive.FormatVersion,
		MemctlVersion: Version(), CreatedAt: now, Files: []exportFileJSON{}, Skipped: []string{}}
	write := func(w io.Writer) error { return exportTo(env, w, ws.Root, opts.format, now, &res) }
	if out == "-" {
		return exportError(write(env.Out))
	}
	if !filepath.IsAbs(out) {
		wd, err := env.Getwd()
		if err != nil {
			return fmt.Errorf("find working directory: %w", err)
		}
		out = filepath.Join(wd, out)
	}
	if _, err := os.Lstat(out); err == nil && !opts.force {
		return withHint(fmt.Errorf("%s: %w", res.Path, fs.ErrExist), "name another file with -o, or add --force to replace it")
	}
	var werr error
	err = fsx.WriteFileFunc(out, 0o644, func(w io.Writer) error { werr = write(w); return werr })
	if werr != nil {
		return exportError(werr)
	}
	if err != nil {
		return err
	}
	if opts.json {
		return writeJSON(env.Out, res)
	}
	n, what := len(res.Files), "files"
	if c := res.Records; c != nil {
		n, what = c.Config+c.Fact+c.Preference+c.Proposal+c.Playbook+c.Run+c.Issue+c.BeadsRecord, "records"
	}
	_, err = fmt.Fprintf(env.Out, "%s\t%d %s\t%d bytes\n", res.Path, n, what, res.Bytes)
	return err
}

// exportTo writes the export in format to w and fills res with what it
// wrote; it warns about what it left out.
func exportTo(env *Env, w io.Writer, root, format string, now time.Time, res *exportJSON) error {
	cw := &countingWriter{w: w}
	o := archive.ExportOptions{MemctlVersion: Version(), Created: now}
	var skipped []string
	if format == "jsonl" {
		r, err := archive.WriteJSONL(cw, root, o)
		if err != nil {
			return err
		}
		for _, w := range r.Warnings {
			env.warnf("%s", w)
		}
		c := r.Records
		res.Records = &exportCountsJSON{Config: c[archive.KindConfig], Fact: c[archive.RecordFact], Preference: c[archive.RecordPreference],
			Proposal: c[archive.KindProposal], Playbook: c[archive.KindPlaybook], Run: c[archive.KindRun], Issue: c[archive.RecordIssue], BeadsRecord: c[archive.RecordBeads]}
		skipped = r.Skipped
	} else {
		r, err := archive.Export(cw, root, o)
		if err != nil {
			return err
		}
		for _, e := range r.Manifest.Files {
			res.Files = append(res.Files, exportFileJSON{Path: e.Path, Kind: e.Kind, Size: e.Size, SHA256: e.SHA256})
		}
		skipped = r.Skipped
	}
	for _, s := range skipped {
		env.warnf("%s is not a memctl file (or is a link); not exported", s)
		res.Skipped = append(res.Skipped, s)
	}
	res.Bytes = cw.n
	return nil
}

// exportError adds what to do next to a file the JSON Lines export could
// not read as records.
func exportError(err error) error {
	var content *archive.ContentError
	if errors.As(err, &content) {
		return withHint(err, "fix the file (memctl check names the problem), or export --format tar.gz, which keeps any file as it is")
	}
	return err
}

// countingWriter counts what goes through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// runExportBeads writes the issues as bd export does: to stdout, or
// atomically to -o's file.
func runExportBeads(ctx context.Context, env *Env, opts exportOptions) error {
	if opts.json {
		return usagef(errors.New("--format beads writes the issues themselves; --json has nothing to add"))
	}
	t, err := env.openTasks(ctx, false)
	if err != nil {
		return err
	}
	if opts.output == "" || opts.output == "-" {
		_, err := t.store.WriteBeadsExport(env.Out)
		return err
	}
	out := opts.output
	if !filepath.IsAbs(out) {
		wd, err := env.Getwd()
		if err != nil {
			return fmt.Errorf("find working directory: %w", err)
		}
		out = filepath.Join(wd, out)
	}
	if _, err := os.Stat(out); err == nil && !opts.force {
		return withHint(fmt.Errorf("%s exists", opts.output), "add --force to replace it, or choose another file with -o")
	}
	var n int
	if err := fsx.WriteFileFunc(out, 0o644, func(w io.Writer) error {
		n, err = t.store.WriteBeadsExport(w)
		return err
	}); err != nil {
		return err
	}
	env.notef("exported %d issues to %s", n, opts.output)
	return nil
}
