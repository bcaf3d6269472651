package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// groupCommand makes cmd, a command that only groups subcommands, print
// its help when called alone and refuse anything else (exit 2), naming
// the word it did not know and the subcommands it has. Unknown flags
// are let through so that "dep nosuch --json" says what is wrong with
// the subcommand, not with the flag.
func groupCommand(cmd *cobra.Command) *cobra.Command {
	cmd.FParseErrWhitelist.UnknownFlags = true
	cmd.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		var names []string
		for _, c := range cmd.Commands() {
			if c.IsAvailableCommand() {
				names = append(names, c.Name())
			}
		}
		return usagef(fmt.Errorf("unknown subcommand %q for %q: use %s", args[0], cmd.CommandPath(), strings.Join(names, ", ")))
	}
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	return cmd
}
