package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/doctor"
	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/index"
)

type doctorOptions struct {
	fix  bool
	json bool
}

func newDoctorCmd(env *Env) *cobra.Command {
	var opts doctorOptions
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the workspace's health, and repair what is safe with --fix: exit 0 healthy, 1 problems",
		Long: `Doctor checks everything memctl depends on and says, for each, ok, warn or
problem, what is wrong and what to do: the workspace's layout and config;
what memctl check audits (budgets, issues.jsonl, proposals pending too
long, the AGENTS.md block, conflict markers, secrets); the merge driver
git runs for .beads/issues.jsonl and the line in .gitattributes; the
.gitignore lines that keep interrupted writes' temporaries out of git; each
agent runtime's hooks; the recall index (read and checksummed) and the
embedder (an HTTP one is asked for a vector, with a short timeout); the
workspace and index locks; and temporaries killed writers left.

--fix repairs what is safe to repair: the merge driver registration, the
.gitattributes and .gitignore lines, the AGENTS.md block, outdated hooks,
missing directories, a damaged index (rebuilt from the files), a stale lock
holder file, stray temporaries (moved under .git/memctl/backups). It never
deletes data: a file a person may have edited is backed up under
.git/memctl/backups first. It takes the workspace lock for what it writes,
then checks again; a second --fix changes nothing.

Doctor works in a broken workspace (a config that does not load, no
.ledger): each check stands alone. Warnings leave the exit status 0.`,
		Example: `  memctl doctor
  memctl doctor --fix
  memctl doctor --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDoctor(cmd.Context(), env, opts) },
	}
	cmd.Flags().BoolVar(&opts.fix, "fix", false, "repair what is safe to repair (nothing is deleted), then check again")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON (the shape: memctl help json)")
	return cmd
}

// doctorJSON is the --json shape of doctor.
type doctorJSON struct {
	SchemaVersion int               `json:"schema_version"`
	OK            bool              `json:"ok"`
	Checks        []doctorCheckJSON `json:"checks"`
	Summary       doctorSummaryJSON `json:"summary"`
}

type doctorCheckJSON struct {
	ID       string `json:"id"`
	Status   string `json:"status"`
	Rule     string `json:"rule"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Message  string `json:"message"`
	Hint     string `json:"hint"`
	Fixable  bool   `json:"fixable"`
	Fixed    string `json:"fixed"`
	FixError string `json:"fix_error"`
}

type doctorSummaryJSON struct {
	Problems int `json:"problems"`
	Warnings int `json:"warnings"`
	OK       int `json:"ok"`
	Fixable  int `json:"fixable"`
	Fixed    int `json:"fixed"`
}

func runDoctor(ctx context.Context, env *Env, opts doctorOptions) error {
	dir, err := env.Getwd()
	if err != nil {
		return err
	}
	repo, err := config.Find(dir)
	if err != nil {
		return err
	}
	r, err := doctor.Run(ctx, repo, env.doctorEnv(), doctor.Options{Now: env.Now(), Fix: opts.fix})
	if err != nil {
		return err
	}
	if opts.json {
		err = writeDoctorJSON(env.Out, r)
	} else {
		err = writeDoctorText(env.Out, r)
	}
	if err != nil {
		return err
	}
	env.notef("%s", doctorSummary(r, opts.fix))
	if !r.Healthy() {
		return &silentError{code: exitFailure}
	}
	return nil
}

func writeDoctorJSON(w io.Writer, r *doctor.Report) error {
	out := doctorJSON{SchemaVersion: schemaVersion, OK: r.Healthy(), Checks: make([]doctorCheckJSON, 0, len(r.Checks)),
		Summary: doctorSummaryJSON{Problems: r.Count(doctor.Problem), Warnings: r.Count(doctor.Warn), OK: r.Count(doctor.OK),
			Fixable: r.Fixable(), Fixed: r.FixedCount()}}
	for _, c := range r.Checks {
		out.Checks = append(out.Checks, doctorCheckJSON{ID: c.ID, Status: string(c.Status), Rule: c.Rule, File: c.File, Line: c.Line,
			Message: c.Message, Hint: c.Hint, Fixable: c.Fixable && c.Status != doctor.OK, Fixed: c.Fixed, FixError: c.FixError})
	}
	return writeJSON(w, out)
}

// writeDoctorText prints one line per check, problems first: the status,
// the check's id, where (file:line) and what, then what to do, what --fix
// did or why it could not.
func writeDoctorText(w io.Writer, r *doctor.Report) error {
	var b strings.Builder
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "%-7s  %-13s  ", c.Status, c.ID)
		if c.File != "" {
			b.WriteString(visibleLine(c.File))
			if c.Line > 0 {
				b.WriteString(":" + strconv.Itoa(c.Line))
			}
			b.WriteString(": ")
		}
		b.WriteString(visibleLine(c.Message))
		if c.Fixable && c.Status != doctor.OK {
			b.WriteString(" [fixable]")
		}
		b.WriteByte('\n')
		switch {
		case c.Fixed != "":
			fmt.Fprintf(&b, "         fixed: %s\n", visibleLine(c.Fixed))
		case c.FixError != "":
			fmt.Fprintf(&b, "         fix failed: %s\n", visibleLine(c.FixError))
		}
		if c.Status != doctor.OK && c.Hint != "" {
			fmt.Fprintf(&b, "         hint: %s\n", visibleLine(c.Hint))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// doctorSummary is the closing line: the counts, and the command to run
// next.
func doctorSummary(r *doctor.Report, fixed bool) string {
	problems, warnings, fixable := r.Count(doctor.Problem), r.Count(doctor.Warn), r.Fixable()
	var b strings.Builder
	b.WriteString("doctor: ")
	if n := r.FixedCount(); fixed {
		fmt.Fprintf(&b, "fixed %d; ", n)
	}
	if problems == 0 {
		fmt.Fprintf(&b, "healthy: %s, %s ok", plural(warnings, "warning"), plural(r.Count(doctor.OK), "check"))
	} else {
		fmt.Fprintf(&b, "%s, %s", plural(problems, "problem"), plural(warnings, "warning"))
	}
	switch {
	case fixable > 0 && !fixed:
		fmt.Fprintf(&b, "; %d can be repaired: run memctl doctor --fix", fixable)
	case problems > 0:
		b.WriteString("; the rest needs you: follow each hint, then run memctl doctor again")
	}
	return b.String()
}

// doctorEnv is what doctor takes from the composition root: the
// embedder, index and lock as every other command makes them (app).
func (e *Env) doctorEnv() doctor.Env {
	opts := e.appOptions()
	return doctor.Env{
		Embedder: func(ws *config.Workspace) (embed.Embedder, error) { return app.EmbedderFor(ws, opts) },
		Sources:  func(ws *config.Workspace) []index.Source { return app.Sources(ws, e.Getenv) },
		IndexDir: app.IndexDir,
		Lock: func(ctx context.Context, ws *config.Workspace) (*fsx.Lock, error) {
			return e.lockAt(ctx, &ws.Config, ws.LockPath())
		},
		Holder: e.holder(),
		Notice: opts.Notice,
	}
}
