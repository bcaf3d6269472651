package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/docs"
)

// newHelpCmd replaces cobra's help command. As with git, `memctl help NAME`
// shows the guide called NAME when there is one (the documentation is
// embedded in the binary, so it is there in every repository) and the
// command's usage otherwise; `memctl NAME --help` always shows the usage.
func newHelpCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "help [topic | command]",
		Short: "Show a guide (memctl help config) or a command's usage",
		Long: `Help shows one of memctl's guides, embedded in the binary:

` + topicList() + `
For any other name it shows that command's usage, as "memctl NAME --help" does.`,
		Example: "  memctl help exit-codes\n  memctl help dep add",
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			names := make([]string, 0, len(docs.Topics))
			for _, t := range docs.Topics {
				names = append(names, t.Name)
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			if len(args) == 0 {
				return root.Help()
			}
			if len(args) == 1 {
				if text, ok := docs.Text(args[0]); ok {
					_, err := fmt.Fprint(env.Out, text)
					return err
				}
			}
			target, rest, err := root.Find(args)
			if err != nil || target == root || len(rest) > 0 {
				return withHint(usagef(fmt.Errorf("no help topic or command %q", strings.Join(args, " "))),
					"topics: "+topicNames()+`; "memctl --help" lists the commands`)
			}
			return target.Help()
		},
	}
}

// topicList is the guides, one a line, for help texts.
func topicList() string {
	var b strings.Builder
	for _, t := range docs.Topics {
		fmt.Fprintf(&b, "  %-11s %s\n", t.Name, t.Summary)
	}
	return b.String()
}

func topicNames() string {
	names := make([]string, len(docs.Topics))
	for i, t := range docs.Topics {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}
