package cli

import (
	"context"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/hooks"
	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/proposal"
	"github.com/memctl/memctl/internal/tasks"
)

// Shell completion of the values memctl's arguments name, read from the
// workspace the shell is in: task ids, proposal ids, fact categories and
// runtimes, each with a description where the shell shows one. A
// completion never fails: outside a workspace, or on any error, it offers
// nothing (and no file names). It changes nothing in the workspace
// (reading the task graph may refresh its derived cache).

// issueKind says which issues an argument takes.
type issueKind int

const (
	anyIssue    issueKind = iota
	openIssue             // not closed: close, claim
	closedIssue           // closed: reopen
)

// completeIssues completes every argument with issue ids of kind.
func completeIssues(env *Env, kind issueKind) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return issueCompletions(cmd.Context(), env, kind, args, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeIssuesUpTo completes the first n arguments with issue ids.
func completeIssuesUpTo(env *Env, n int) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) >= n {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return issueCompletions(cmd.Context(), env, anyIssue, args, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

func issueCompletions(ctx context.Context, env *Env, kind issueKind, given []string, prefix string) []cobra.Completion {
	if ctx == nil {
		ctx = context.Background()
	}
	t, err := env.openTasks(ctx, false)
	if err != nil {
		return nil
	}
	var out []cobra.Completion
	for _, iss := range t.store.Issues() {
		switch {
		case !strings.HasPrefix(iss.ID, prefix), slices.Contains(given, iss.ID),
			kind == openIssue && iss.Status == tasks.StatusClosed,
			kind == closedIssue && iss.Status != tasks.StatusClosed:
			continue
		}
		out = append(out, cobra.CompletionWithDesc(iss.ID, iss.Title))
	}
	return out
}

// completeProposals completes a proposal id: the pending proposals.
func completeProposals(env *Env) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ws, err := env.workspace(true)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		list, _, err := proposal.Dir{Path: ws.Path(config.ProposalsDir), Rel: config.ProposalsDir}.List()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, p := range list {
			if p.Status == proposal.StatusPending && strings.HasPrefix(p.ID, toComplete) {
				out = append(out, cobra.CompletionWithDesc(p.ID, p.Category+": "+clip(firstLine(p.Content), 60)))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeCategories completes a fact category: the facts files'.
func completeCategories(env *Env) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		ws, err := env.workspace(true)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		l, err := ledger.Load(ws.Path(config.FactsDir), config.FactsDir)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, c := range l.Categories() {
			if strings.HasPrefix(c, toComplete) && !slices.Contains(args, c) {
				out = append(out, c)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeRuntimes completes runtime names, each once.
func completeRuntimes(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for _, r := range hooks.Runtimes {
		if strings.HasPrefix(r.Name, toComplete) && !slices.Contains(args, r.Name) {
			out = append(out, r.Name)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeHookArgs completes `memctl hook <runtime> <event>`.
func completeHookArgs(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	switch len(args) {
	case 0:
		return completeRuntimes(cmd, args, toComplete)
	case 1:
		var out []cobra.Completion
		for _, e := range hooks.Events {
			if strings.HasPrefix(e, toComplete) {
				out = append(out, e)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	return nil, cobra.ShellCompDirectiveNoFileComp
}
