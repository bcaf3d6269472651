package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/ledger"
)

type factsOptions struct {
	category string
	stats    bool
	json     bool
}

func newFactsCmd(env *Env) *cobra.Command {
	var opts factsOptions
	cmd := &cobra.Command{
		Use:               "facts [category]",
		ValidArgsFunction: completeCategories(env),
		Short:             "List the human-verified facts, or their line and byte budgets with --stats",
		Long: `Facts lists the facts in .ledger/facts/*.md: every top-level list item of a
category file is one fact. Each has a stable id: the one written in the fact
as <!-- id:… -->, or else one derived from its category and text.`,
		Example: `  memctl facts
  memctl facts pitfalls --json
  memctl facts --stats`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.category = args[0]
			}
			return runFacts(cmd.Context(), env, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.stats, "stats", false, "show lines and bytes per file against the budgets")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON (the shape: memctl help json)")
	return cmd
}

// factsJSON is the --json shape of facts.
type factsJSON struct {
	SchemaVersion int        `json:"schema_version"`
	Facts         []factJSON `json:"facts"`
	Lines         int        `json:"lines"`
	MaxLines      int        `json:"max_lines"`
}

type factJSON struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Text     string `json:"text"`
	File     string `json:"file"`
	Line     int    `json:"line"`
}

// factStatsJSON is the --json shape of facts --stats.
type factStatsJSON struct {
	SchemaVersion int             `json:"schema_version"`
	Files         []factsFileJSON `json:"files"`
	Lines         int             `json:"lines"`
	MaxLines      int             `json:"max_lines"`
	Bytes         int             `json:"bytes"`
	MaxTotalBytes int             `json:"max_total_bytes"`
}

type factsFileJSON struct {
	File         string `json:"file"`
	Category     string `json:"category"`
	Lines        int    `json:"lines"`
	MaxFileLines int    `json:"max_file_lines"`
	Facts        int    `json:"facts"`
	Bytes        int    `json:"bytes"`
	MaxFileBytes int    `json:"max_file_bytes"`
}

func runFacts(_ context.Context, env *Env, opts factsOptions) error {
	ws, err := env.Workspace()
	if err != nil {
		return err
	}
	cfg := ws.Config.Facts
	l := &ledger.Ledger{}
	if cfg.Enabled {
		if l, err = ledger.Load(ws.Path(config.FactsDir), config.FactsDir); err != nil {
			return err
		}
	} else {
		env.notef("the facts layer is disabled ([facts] enabled = false in %s)", config.ConfigFile)
	}
	if opts.category != "" && cfg.Enabled {
		f, err := l.File(opts.category)
		if err != nil {
			return withHint(err, categoriesHint(l))
		}
		l = &ledger.Ledger{Files: []*ledger.File{f}}
	}
	for _, f := range l.Files {
		for _, p := range f.Problems {
			if p.Conflict { // the facts of both sides are shown, the markers are not
				env.warnf("%s:%d: %s", f.Path, p.Line, p.Message)
				continue
			}
			env.warnf("%s:%d: %s (this part of the file is skipped; memctl check reports it too)", f.Path, p.Line, p.Message)
		}
	}
	if opts.stats {
		return writeFactStats(env, l, cfg, opts.json)
	}
	facts := l.Facts()
	if opts.json {
		out := factsJSON{SchemaVersion: schemaVersion, Facts: make([]factJSON, 0, len(facts)), Lines: l.Lines(), MaxLines: cfg.MaxLines}
		for _, f := range facts {
			out.Facts = append(out.Facts, factJSON{ID: f.ID, Category: f.Category, Text: f.Text, File: f.File, Line: f.Line})
		}
		return writeJSON(env.Out, out)
	}
	if len(facts) == 0 {
		env.notef("no facts")
		return nil
	}
	t := newTable(env, "ID", "CATEGORY", "WHERE", "FACT").clipToWidth()
	for _, f := range facts {
		t.row(f.ID, f.Category, f.File+":"+strconv.Itoa(f.Line), oneLine(f.Text))
	}
	return t.flush()
}

func writeFactStats(env *Env, l *ledger.Ledger, cfg config.Facts, asJSON bool) error {
	if asJSON {
		out := factStatsJSON{SchemaVersion: schemaVersion, Files: make([]factsFileJSON, 0, len(l.Files)), Lines: l.Lines(), MaxLines: cfg.MaxLines,
			Bytes: l.Bytes(), MaxTotalBytes: cfg.MaxTotalBytes}
		for _, f := range l.Files {
			out.Files = append(out.Files, factsFileJSON{File: f.Path, Category: f.Category, Lines: f.Lines, MaxFileLines: cfg.MaxFileLines,
				Facts: len(f.Facts), Bytes: f.Bytes, MaxFileBytes: cfg.MaxFileBytes})
		}
		return writeJSON(env.Out, out)
	}
	t := newTable(env, "FILE", "FACTS", "LINES", "BUDGET", "USED", "BYTES", "BYTE BUDGET", "USED")
	facts := 0
	for _, f := range l.Files {
		facts += len(f.Facts)
		t.row(f.Path, strconv.Itoa(len(f.Facts)), strconv.Itoa(f.Lines), strconv.Itoa(cfg.MaxFileLines), overBudget(f.Lines, cfg.MaxFileLines),
			strconv.Itoa(f.Bytes), strconv.Itoa(cfg.MaxFileBytes), overBudget(f.Bytes, cfg.MaxFileBytes))
	}
	t.row("total", strconv.Itoa(facts), strconv.Itoa(l.Lines()), strconv.Itoa(cfg.MaxLines), overBudget(l.Lines(), cfg.MaxLines),
		strconv.Itoa(l.Bytes()), strconv.Itoa(cfg.MaxTotalBytes), overBudget(l.Bytes(), cfg.MaxTotalBytes))
	return t.flush()
}

// overBudget marks a line or byte count over its budget, and shows how full it is.
func overBudget(lines, budget int) string {
	pct := lines * 100 / budget
	if lines > budget {
		return fmt.Sprintf("%d%% OVER BUDGET", pct)
	}
	return fmt.Sprintf("%d%%", pct)
}

// categoriesHint lists the categories there are.
func categoriesHint(l *ledger.Ledger) string {
	cats := l.Categories()
	if len(cats) == 0 {
		return "there are no facts files in " + config.FactsDir + `; run "memctl init" to create the starter files`
	}
	return fmt.Sprintf("categories are the files in %s: %s", config.FactsDir, strings.Join(cats, ", "))
}
