package cli

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/fsx"
)

// version is set at build time: -ldflags "-X github.com/memctl/memctl/internal/cli.version=v1.2.3".
var version = ""

// Version returns memctl's version: the one stamped at build time, else
// the module version `go install …@vX` recorded, else "dev".
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// Main runs memctl with args and returns the process exit code.
func Main(ctx context.Context, args []string, env *Env) (code int) {
	defer env.close()
	// Large files are read through read-only mappings (fsx.ReadMapped). If
	// another program truncates one in place while it is mapped, reading it
	// faults: turn that into an error with a retry hint instead of a crash.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	// A memctl command lives for milliseconds and its heap is small: trade
	// some of it for fewer collections (measured: check on 1,000 proposals
	// and 10,000 issues, 100 → 90 ms). GOGC in the environment still wins.
	if env.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(200))
	}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(interface{ Addr() uintptr }); !ok {
				panic(r)
			}
			code = finish(env, nil, true, fmt.Errorf("%w (%v)", fsx.ErrChanged, r))
		}
	}()
	root := newRootCmd(env)
	root.SetArgs(args)
	root.SetIn(env.In)
	root.SetOut(env.Out)
	root.SetErr(env.Err)
	ran := false
	root.PersistentPreRun = func(*cobra.Command, []string) { ran = true }
	cmd, err := root.ExecuteContextC(ctx)
	return finish(env, cmd, ran, err)
}

// finish reports err the way the command's output mode wants and returns
// the exit code.
func finish(env *Env, cmd *cobra.Command, ran bool, err error) int {
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
	hint := hintFor(err)
	if wantsJSON(cmd) {
		_ = writeJSON(env.Err, errorJSON{Error: errorBodyJSON{
			Code: codeName(code), ExitCode: code, Message: err.Error(), Hint: hint, Refused: refusedDetail(err),
		}})
		return code
	}
	// Messages may quote what a file holds: escaped like any other text.
	fmt.Fprintf(env.Err, "memctl: error: %s\n", visible(err.Error()))
	if hint != "" {
		fmt.Fprintf(env.Err, "memctl: hint: %s\n", visible(hint))
	}
	return code
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

func newRootCmd(env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "memctl",
		Short: "Memory for coding agents that survives context compaction, kept in git",
		Long: `memctl keeps what an agent must not forget in plain files in your git repository:
human-verified facts (.ledger/facts), a Beads-compatible task graph
(.beads/issues.jsonl), and run digests, with a local index for recall.
Git is the sync, the history and the review.`,
		Example: `  memctl init
  memctl facts --json
  memctl check --format github`,
		Version:           Version(),
		SilenceUsage:      true,
		SilenceErrors:     true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	root.SetVersionTemplate("memctl {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usagef(err) })
	root.AddCommand(
		newInitCmd(env),
		newFactsCmd(env),
		newCheckCmd(env),
		newCreateCmd(env),
		newShowCmd(env),
		newListCmd(env),
		newReadyCmd(env),
		newBlockedCmd(env),
		newUpdateCmd(env),
		newCloseCmd(env),
		newReopenCmd(env),
		newDepCmd(env),
		newCommentCmd(env),
		newCommentsCmd(env),
		newLabelCmd(env),
		newStatsCmd(env),
		newProposeCmd(env),
		newReviewCmd(env),
		newProposalsCmd(env),
		newIndexCmd(env),
		newRecallCmd(env),
		newEvalCmd(env),
		newMergeDriverCmd(env),
		newSyncCmd(env),
		newVersionCmd(env),
		newCompletionCmd(env),
	)
	return root
}
