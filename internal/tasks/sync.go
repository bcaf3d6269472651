package tasks

import (
	"context"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/gitx"
)

// SyncRequest is what memctl sync is asked to do.
type SyncRequest struct {
	// Push pushes after pulling (and sets the upstream of a branch that
	// has none).
	Push bool
}

// SyncResult is what a sync did: gitx's account of the git steps, and the
// tasks the pull changed.
type SyncResult struct {
	gitx.SyncResult
	// TasksChanged are the ids, sorted, of the issues the pull added,
	// changed or removed in .beads/issues.jsonl; empty, never nil, when
	// none or when the two versions cannot be compared.
	TasksChanged []string
}

// Sync is the workspace's git sync: it commits what changed under .ledger/
// and .beads/ (nothing else), reports the setup files every clone needs
// that are not committed, pulls so that the merge driver merges the
// issues file record by record, pushes when asked, and names the tasks
// the pull changed. Its errors are gitx.Sync's (*gitx.SyncError,
// *gitx.ConflictError), returned with what was done before them: the
// result is never nil.
func Sync(ctx context.Context, ws *config.Workspace, req SyncRequest) (*SyncResult, error) {
	res, err := ws.Repo.Sync(ctx, gitx.SyncRequest{
		Paths: []string{config.LedgerDir, config.BeadsDir},
		Setup: []string{config.AttrsFile, config.AgentsFile, config.ClaudeFile},
		Push:  req.Push,
	})
	out := &SyncResult{TasksChanged: []string{}}
	if res != nil {
		out.SyncResult = *res
		out.TasksChanged = pulledIDs(ws.Root, res.Before, res.After)
	}
	return out, err
}

// pulledIDs are the ids of the issues that differ in the issues file
// between commits before and after; empty when either is "" or a version
// cannot be read or parsed, since the pull itself succeeded.
func pulledIDs(root, before, after string) []string {
	if before == "" || after == "" || before == after {
		return []string{}
	}
	versions, err := gitx.FileAt(root, config.IssuesFile, before, after)
	if err != nil {
		return []string{}
	}
	ids, err := ChangedIDs(versions[0], versions[1])
	if err != nil || ids == nil {
		return []string{}
	}
	return ids
}
