package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
)

func newCompletionCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Completion prints a script that makes your shell complete memctl's commands
and flags. Load it from your shell's start-up file.`,
		Example: `  source <(memctl completion bash)
  memctl completion zsh > "${fpath[1]}/_memctl"
  memctl completion fish > ~/.config/fish/completions/memctl.fish`,
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		Args:      cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCompletion(cmd.Context(), env, cmd.Root(), args[0])
		},
	}
}

func runCompletion(_ context.Context, env *Env, root *cobra.Command, shell string) error {
	switch shell {
	case "bash":
		return root.GenBashCompletionV2(env.Out, true)
	case "zsh":
		return root.GenZshCompletion(env.Out)
	case "fish":
		return root.GenFishCompletion(env.Out, true)
	case "powershell":
		return root.GenPowerShellCompletionWithDesc(env.Out)
	}
	return usagef(fmt.Errorf("unknown shell %q: use bash, zsh, fish or powershell", shell))
}
