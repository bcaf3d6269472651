package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// bd's drop-in mode: memctl bd <bd command line>, or the memctl binary
// run under the name bd (a link memctl init --bd-alias makes), takes bd's
// command line, so an agent whose instructions say "bd ready --json"
// works unchanged. bd's global flags are mapped or accepted and ignored;
// a bd command memctl does not cover is a usage error naming it.

// ProgramArgs is the command line main passes to Main: under the name bd
// (bd, bd.exe), it is bd mode's.
func ProgramArgs(argv0 string, args []string) []string {
	name := strings.TrimSuffix(filepath.Base(argv0), ".exe")
	if name == "bd" {
		return append([]string{"bd"}, args...)
	}
	return args
}

// bdCommands are the bd commands bd mode covers: memctl has each under the
// same name, with bd's arguments, flags and --json shape (memctl help
// beads lists the differences that remain).
var bdCommands = []string{
	"blocked", "children", "close", "comment", "comments", "count", "create", "defer", "delete", "dep",
	"epic", "export", "help", "import", "init", "label", "list", "prime", "q", "ready", "reopen", "search",
	"show", "stale", "stats", "undefer", "update", "version",
}

// bdWrites are the covered commands that write; bd's --readonly refuses
// them.
var bdWrites = []string{"close", "comment", "create", "defer", "delete", "import", "init", "q", "reopen", "undefer", "update"}

// bdGlobal are bd's global flags: those that take a value, and those bd
// mode accepts and ignores (memctl has no daemon, database or Dolt).
var (
	bdGlobalValue = []string{"--db", "--dolt-auto-commit", "--lock-timeout"}
	bdGlobalBool  = []string{"--no-db", "--no-daemon", "--sandbox", "--allow-stale", "--no-auto-flush",
		"--no-auto-import", "--profile", "--quiet", "-q", "--verbose", "-v", "--global", "--ignore-schema-skew"}
)

// bdInvocation is a bd command line translated: memctl's arguments and
// what the global flags asked for.
type bdInvocation struct {
	args     []string
	actor    string // --actor: MEMCTL_ACTOR for this run
	dir      string // -C/--directory
	readonly bool
	// noop is set for bd's sync commands: memctl writes .beads/issues.jsonl
	// on every change and git carries it, so there is nothing to do; the
	// note says so on stderr and the run exits 0.
	noop string
}

// bdSyncNote is what bd mode says for bd sync and bd dolt push/pull.
const bdSyncNote = "bd mode: nothing to sync; memctl writes .beads/issues.jsonl on every change; commit and push it with git"

// translateBd turns bd's command line (without the leading "bd") into
// memctl's, or a usage error.
func translateBd(in []string) (bdInvocation, error) {
	var inv bdInvocation
	var rest []string
	for i := 0; i < len(in); i++ {
		a := in[i]
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case a == "--":
			rest = append(rest, in[i:]...)
			i = len(in)
		case name == "--actor" || name == "-C" || name == "--directory" || slices.Contains(bdGlobalValue, name):
			if !hasVal {
				if i+1 >= len(in) {
					return inv, usagef(fmt.Errorf("bd mode: %s needs a value", name))
				}
				i++
				val = in[i]
			}
			switch name {
			case "--actor":
				inv.actor = val
			case "-C", "--directory":
				inv.dir = val
			}
		case a == "--readonly":
			inv.readonly = true
		case slices.Contains(bdGlobalBool, a):
		default:
			rest = append(rest, a)
		}
	}
	cmd := ""
	for _, a := range rest {
		if !strings.HasPrefix(a, "-") {
			cmd = a
			break
		}
	}
	switch {
	case cmd == "" && len(rest) == 0:
		return inv, usagef(fmt.Errorf("bd mode: name a bd command (%s)", strings.Join(bdCommands, ", ")))
	case cmd == "":
		inv.args = rest // --help, --version
		return inv, nil
	case cmd == "sync" || cmd == "dolt" && bdDoltSync(rest):
		inv.noop = bdSyncNote
		return inv, nil
	case !slices.Contains(bdCommands, cmd):
		return inv, withHint(usagef(fmt.Errorf("bd mode: memctl does not cover \"bd %s\"", cmd)),
			"memctl help beads lists what bd mode covers: "+strings.Join(bdCommands, ", "))
	case inv.readonly && slices.Contains(bdWrites, cmd) || inv.readonly && slices.Contains([]string{"dep", "label"}, cmd) && slices.ContainsFunc(rest, func(s string) bool { return s == "add" || s == "remove" }) ||
		inv.readonly && cmd == "comments" && slices.Contains(rest, "add"):
		return inv, usagef(fmt.Errorf("bd mode: --readonly refuses \"bd %s\", which writes", cmd))
	}
	switch cmd {
	case "export":
		args, err := bdExportArgs(rest)
		if err != nil {
			return inv, err
		}
		rest = args
	case "import":
		args, err := bdImportArgs(rest)
		if err != nil {
			return inv, err
		}
		rest = args
	}
	inv.args = rest
	return inv, nil
}

// bdDoltSync reports whether a bd dolt command line is push or pull, the
// commands bd's instructions give agents for the end of a session.
func bdDoltSync(args []string) bool {
	for i, a := range args {
		if a == "dolt" {
			for _, b := range args[i+1:] {
				if !strings.HasPrefix(b, "-") {
					return b == "push" || b == "pull"
				}
			}
			return false
		}
	}
	return false
}

// bdExportArgs maps bd export [-o FILE] onto memctl export --format beads.
// bd's selection flags (--all, --include-infra, --include-memories,
// --scrub) are accepted: memctl's file holds issues only.
func bdExportArgs(args []string) ([]string, error) {
	out := []string{"export", "--format", "beads"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "export", a == "--all", a == "--include-infra", a == "--include-memories", a == "--scrub", a == "--json":
		case a == "-o" || a == "--output":
			if i+1 >= len(args) {
				return nil, usagef(fmt.Errorf("bd mode: %s needs a file", a))
			}
			i++
			out = append(out, "-o", args[i], "--force")
		case strings.HasPrefix(a, "--output="), strings.HasPrefix(a, "-o="):
			_, v, _ := strings.Cut(a, "=")
			out = append(out, "-o", v, "--force")
		default:
			return nil, usagef(fmt.Errorf("bd mode: bd export %s is not covered; memctl takes -o FILE", a))
		}
	}
	return out, nil
}

// bdImportArgs maps bd import FILE (or -i FILE) onto memctl import
// --from-beads FILE; --dry-run passes through.
func bdImportArgs(args []string) ([]string, error) {
	out := []string{"import"}
	file := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "import", a == "--json":
			if a == "--json" {
				out = append(out, a)
			}
		case a == "--dry-run":
			out = append(out, a)
		case a == "-i" || a == "--input":
			if i+1 >= len(args) {
				return nil, usagef(fmt.Errorf("bd mode: %s needs a file", a))
			}
			i++
			file = args[i]
		case strings.HasPrefix(a, "-"):
			return nil, usagef(fmt.Errorf("bd mode: bd import %s is not covered; memctl takes FILE (or -i FILE) and --dry-run", a))
		default:
			file = a
		}
	}
	if file == "" || file == "-" {
		return nil, usagef(errors.New("bd mode: bd import needs a file (memctl does not read the issues from stdin)"))
	}
	return append(out, "--from-beads", file), nil
}

// useBdGlobals applies bd's --actor (as MEMCTL_ACTOR) and -C (the working
// directory) to the run.
func (e *Env) useBdGlobals(inv bdInvocation) {
	if inv.actor != "" {
		getenv := e.Getenv
		e.Getenv = func(k string) string {
			if k == "MEMCTL_ACTOR" {
				return inv.actor
			}
			return getenv(k)
		}
	}
	if inv.dir != "" {
		getwd := e.Getwd
		e.Getwd = func() (string, error) {
			if filepath.IsAbs(inv.dir) {
				return inv.dir, nil
			}
			wd, err := getwd()
			if err != nil {
				return "", err
			}
			return filepath.Join(wd, inv.dir), nil
		}
	}
}
