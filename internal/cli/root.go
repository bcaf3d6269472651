package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/secrets"
)

// version and commit are set at build time:
// -ldflags "-X github.com/memctl/memctl/internal/cli.version=v1.2.3 -X github.com/memctl/memctl/internal/cli.commit=<hash>".
var version, commit = "", ""

// Version returns memctl's version: the one stamped at build time, else
// the module version `go install …@vX` recorded, else "dev".
func Version() string { return readBuild().Version }

// build is what the binary knows of how it was built.
type build struct {
	Version string
	Commit  string // the source's commit, when known
	Dirty   bool   // built from a working tree with changes
}

// readBuild reads the build, once a process (every command's start asks
// for the version): the linker's stamps first, then what the Go toolchain
// recorded (debug.ReadBuildInfo): the module version of `go install
// …@version` (a pseudo-version names its commit), and for a build in a
// git checkout the commit and whether the tree was modified.
var readBuild = sync.OnceValue(func() build {
	bi, _ := debug.ReadBuildInfo()
	return buildFrom(bi, version, commit)
})

// buildFrom is readBuild over the toolchain's record bi (nil: none) and
// the linker's stamps.
func buildFrom(bi *debug.BuildInfo, version, commit string) build {
	b := build{Version: version, Commit: commit}
	if bi != nil {
		if b.Version == "" && bi.Main.Version != "(devel)" {
			b.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = cmp.Or(b.Commit, s.Value)
			case "vcs.modified":
				b.Dirty = s.Value == "true"
			}
		}
		b.Commit = cmp.Or(b.Commit, pseudoVersionCommit(b.Version))
	}
	b.Version = cmp.Or(b.Version, "dev")
	return b
}

// pseudoVersionCommit is the commit a Go pseudo-version names
// (v0.0.0-20261129010203-abcdef123456), or "".
func pseudoVersionCommit(v string) string {
	v, _, _ = strings.Cut(v, "+") // build metadata: +dirty, +incompatible
	i := strings.LastIndexByte(v, '-')
	if i < 0 || len(v)-i-1 != 12 {
		return ""
	}
	rev := v[i+1:]
	for _, c := range rev {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return ""
		}
	}
	// The part before is a 14-digit UTC time stamp.
	head := v[:i]
	if j := strings.LastIndexAny(head, "-."); j < 0 || len(head)-j-1 != 14 {
		return ""
	}
	return rev
}

// Main runs memctl with args and returns the process exit code.
func Main(ctx context.Context, args []string, env *Env) (code int) {
	defer env.close()
	// Large files are read through read-only mappings (fsx.ReadMapped). If
	// another program truncates one in place while it is mapped, reading it
	// faults: turn that into an error with a retry hint instead of a crash.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(interface{ Addr() uintptr }); !ok {
				panic(r)
			}
			code = finish(env, nil, true, false, fmt.Errorf("%w (%v)", fsx.ErrChanged, r))
		}
	}()
	if len(args) > 0 && args[0] == "bd" {
		inv, err := translateBd(args[1:])
		if err != nil {
			return finish(env, nil, true, argsWantJSON(args), err)
		}
		if inv.noop != "" {
			env.notef("%s", inv.noop)
			return 0
		}
		env.useBdGlobals(inv)
		args = inv.args
	}
	first := ""
	if len(args) > 0 {
		first = args[0]
	}
	root := newRootCmd(env, first)
	root.SetArgs(args)
	root.SetIn(env.In)
	root.SetOut(env.Out)
	root.SetErr(env.Err)
	ran := false
	root.PersistentPreRun = func(cmd *cobra.Command, _ []string) {
		ran = true
		env.command = cmd.CommandPath()
	}
	cmd, err := root.ExecuteContextC(ctx)
	return finish(env, cmd, ran, argsWantJSON(args), err)
}

// argsWantJSON reports whether the command line asks for JSON, for errors
// cobra finds before it has parsed the flags (an unknown flag before
// --json, say), which must still come as a JSON error object.
func argsWantJSON(args []string) bool {
	for i, a := range args {
		switch {
		case a == "--":
			return false
		case a == "--json" || a == "--json=true" || a == "--format=json":
			return true
		case a == "--format" && i+1 < len(args) && args[i+1] == "json":
			return true
		}
	}
	return false
}

// finish reports err the way the command's output mode wants and returns
// the exit code. argsJSON: the command line has --json, for errors found
// before the flags were parsed.
func finish(env *Env, cmd *cobra.Command, ran, argsJSON bool, err error) int {
	if err == nil {
		return exitOK
	}
	if !ran && !isOurs(err) {
		// cobra refused the command line before any command ran: an unknown
		// command or flag, or the wrong number of arguments.
		err = usagef(err)
	}
	code := exitCode(err)
	var silent *silentError
	if errors.As(err, &silent) {
		return code
	}
	hint := usageHint(cmd, hintFor(err))
	var b *batchError
	isBatch := errors.As(err, &b)
	if wantsJSON(cmd) || (!ran && argsJSON) {
		body := errorBodyJSON{Code: codeName(code), ExitCode: code, Message: unsecret(err.Error()), Hint: unsecret(hint), Refused: refusedDetail(err)}
		if isBatch {
			body.Failed = make([]failedJSON, 0, len(b.failed))
			for _, f := range b.failed {
				c := exitCode(f.err)
				body.Failed = append(body.Failed, failedJSON{
					ID: f.id, Code: codeName(c), ExitCode: c, Message: unsecret(f.err.Error()), Hint: unsecret(hintFor(f.err)),
				})
			}
		}
		_ = writeJSON(env.Err, errorJSON{Error: body})
		return code
	}
	if isBatch && b.total > 1 {
		// One error line per id that failed, each with its own hint.
		for _, f := range b.failed {
			writeErrorText(env, fmt.Sprintf("%s: %v", f.id, f.err), hintFor(f.err))
		}
		return code
	}
	writeErrorText(env, err.Error(), hint)
	return code
}

// writeErrorText prints an error and its hint for a person. Messages may
// quote what a file holds: escaped like any other text.
func writeErrorText(env *Env, msg, hint string) {
	fmt.Fprintf(env.Err, "memctl: error: %s\n", visible(unsecret(msg)))
	if hint != "" {
		fmt.Fprintf(env.Err, "memctl: hint: %s\n", visible(unsecret(hint)))
	}
}

// unsecret returns a message with each secret it quotes replaced by
// [REDACTED:<rule>]. Errors and warnings quote what they were given (a
// flag's value, a line of a file), and an agent's stderr ends up in its
// transcript: a credential typed in the wrong flag must not be echoed.
func unsecret(msg string) string {
	if out, found, err := secrets.Redact(msg); err == nil && len(found) > 0 {
		return out
	}
	return msg
}

// isOurs tells errors memctl made from cobra's own.
func isOurs(err error) bool {
	var (
		u *usageError
		h *hintError
		s *silentError
	)
	return errors.As(err, &u) || errors.As(err, &h) || errors.As(err, &s)
}

// wantsJSON reports whether the command that ran was given --json (or
// check's --format json).
func wantsJSON(cmd *cobra.Command) bool {
	if cmd == nil {
		return false
	}
	if f := cmd.Flags().Lookup("json"); f != nil && f.Value.String() == "true" {
		return true
	}
	if f := cmd.Flags().Lookup("format"); f != nil && f.Value.String() == "json" {
		return true
	}
	return false
}

// commands are memctl's commands, in the order help lists them.
var commands = []func(*Env) *cobra.Command{
	newInitCmd,
	newFactsCmd,
	newCheckCmd,
	newDoctorCmd,
	newCreateCmd,
	newShowCmd,
	newListCmd,
	newReadyCmd,
	newBlockedCmd,
	newUpdateCmd,
	newCloseCmd,
	newReopenCmd,
	newDepCmd,
	newCommentCmd,
	newCommentsCmd,
	newLabelCmd,
	newStatsCmd,
	newCountCmd,
	newSearchCmd,
	newChildrenCmd,
	newStaleCmd,
	newDeferCmd,
	newUndeferCmd,
	newQuickCmd,
	newEpicCmd,
	newDeleteCmd,
	newStatusCmd,
	newPrimeCmd,
	newPinCmd,
	newUnpinCmd,
	newPinsCmd,
	newProposeCmd,
	newPrefCmd,
	newReviewCmd,
	newProposalsCmd,
	newPlaybookCmd,
	newIndexCmd,
	newRecallCmd,
	newEvalCmd,
	newMergeDriverCmd,
	newResolveCmd,
	newSyncCmd,
	newLogCmd,
	newRunCmd,
	newRunsCmd,
	newDigestCmd,
	newFlushCmd,
	newHookCmd,
	newHooksCmd,
	newGCCmd,
	newConsolidateCmd,
	newSignatureCmd,
	newWarnCmd,
	newExportCmd,
	newImportCmd,
	newMCPCmd,
	newVersionCmd,
	newManCmd,
	newCompletionCmd,
}

// commandNames maps each command's name and aliases to its constructor,
// so that a run builds only the command it runs (building all of them
// and their flags is a measurable part of a run that takes milliseconds);
// TestCommandNamesMatchTheCommands keeps it in step with commands.
var commandNames = map[string]func(*Env) *cobra.Command{
	"init":         newInitCmd,
	"facts":        newFactsCmd,
	"check":        newCheckCmd,
	"doctor":       newDoctorCmd,
	"create":       newCreateCmd,
	"show":         newShowCmd,
	"list":         newListCmd,
	"ready":        newReadyCmd,
	"blocked":      newBlockedCmd,
	"update":       newUpdateCmd,
	"close":        newCloseCmd,
	"reopen":       newReopenCmd,
	"dep":          newDepCmd,
	"comment":      newCommentCmd,
	"comments":     newCommentsCmd,
	"label":        newLabelCmd,
	"stats":        newStatsCmd,
	"count":        newCountCmd,
	"search":       newSearchCmd,
	"children":     newChildrenCmd,
	"stale":        newStaleCmd,
	"defer":        newDeferCmd,
	"undefer":      newUndeferCmd,
	"q":            newQuickCmd,
	"epic":         newEpicCmd,
	"delete":       newDeleteCmd,
	"status":       newStatusCmd,
	"prime":        newPrimeCmd,
	"pin":          newPinCmd,
	"unpin":        newUnpinCmd,
	"pins":         newPinsCmd,
	"propose":      newProposeCmd,
	"pref":         newPrefCmd,
	"review":       newReviewCmd,
	"proposals":    newProposalsCmd,
	"playbook":     newPlaybookCmd,
	"index":        newIndexCmd,
	"recall":       newRecallCmd,
	"eval":         newEvalCmd,
	"merge-driver": newMergeDriverCmd,
	"resolve":      newResolveCmd,
	"sync":         newSyncCmd,
	"log":          newLogCmd,
	"run":          newRunCmd,
	"runs":         newRunsCmd,
	"digest":       newDigestCmd,
	"flush":        newFlushCmd,
	"hook":         newHookCmd,
	"hooks":        newHooksCmd,
	"gc":           newGCCmd,
	"consolidate":  newConsolidateCmd,
	"signature":    newSignatureCmd,
	"warn":         newWarnCmd,
	"export":       newExportCmd,
	"import":       newImportCmd,
	"mcp":          newMCPCmd,
	"version":      newVersionCmd,
	"man":          newManCmd,
	"completion":   newCompletionCmd,
}

// commandFor returns the constructor of the command a command line runs
// when the first argument names one, else nil (help, completion, man,
// flags first, an unknown name: the whole tree is built).
func commandFor(name string) func(*Env) *cobra.Command {
	if name == "help" || name == "completion" || name == "man" || strings.HasPrefix(name, "__") {
		return nil
	}
	return commandNames[name]
}

// newRootCmd builds the root command with every command, or with only the
// one named only (see commandFor).
func newRootCmd(env *Env, only ...string) *cobra.Command {
	root := &cobra.Command{
		Use:   "memctl",
		Short: "Memory for coding agents that survives context compaction, kept in git",
		Long: `memctl keeps what an agent must not forget in plain files in your git repository:
human-verified facts (.ledger/facts), a Beads-compatible task graph
(.beads/issues.jsonl), and run digests, with a local index for recall.
Git is the sync, the history and the review.

Guides (memctl help TOPIC):
` + topicList(),
		Example: `  memctl init
  memctl facts --json
  memctl check --format github`,
		Version:           Version(),
		SilenceUsage:      true,
		SilenceErrors:     true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	root.SetVersionTemplate("memctl {{.Version}}\n")
	root.SetHelpCommand(newHelpCmd(env))
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usagef(err) })
	if c := commandFor(append(only, "")[0]); c != nil {
		root.AddCommand(c(env))
		return root
	}
	for _, c := range commands {
		root.AddCommand(c(env))
	}
	return root
}
