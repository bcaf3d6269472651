package tasks

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/gitx"
)

// Outcome is what Resolve did with one unmerged file.
type Outcome string

// The outcomes.
const (
	// Merged: the file was re-merged from the index and written, clean.
	Merged Outcome = "merged"
	// Conflicted: written, with conflict markers around the records that
	// both sides changed in the same field (as the merge driver does).
	Conflicted Outcome = "conflicts"
	// Manual: a memctl file that has no keyed merge (under .ledger/); it
	// was left alone, to be merged by hand.
	Manual Outcome = "manual"
	// Resolved: the file already holds what resolving gives, clean (an
	// earlier resolve wrote it); nothing was written, git add is left.
	Resolved Outcome = "resolved"
)

// Resolution is the result of resolving one unmerged file.
type Resolution struct {
	Path      string // slash-separated, relative to the root
	Outcome   Outcome
	Conflicts []string // ids of the records left between markers
	Issues    int      // issue records in the written file
}

// ErrNotMemctlFile is returned for a named path that is not a file memctl
// owns (.beads/issues.jsonl or a file under .ledger/).
var ErrNotMemctlFile = errors.New("not a memctl file")

// EditedError says that the working-tree file differs from what the
// stopped merge left (our side, or a file with conflict markers), so
// resolving would overwrite someone's edits.
type EditedError struct{ Path string }

func (e *EditedError) Error() string {
	return fmt.Sprintf("%s was edited after the merge stopped; resolving would overwrite those edits", e.Path)
}

// ownsPath reports whether memctl owns the slash path rel.
func ownsPath(rel string) bool {
	return rel == config.IssuesFile || strings.HasPrefix(rel, config.LedgerDir+"/")
}

// Resolve re-merges memctl files that a merge or pull left unmerged in the
// git index of the working tree at root, from the three stages in the
// index, with the same keyed merge as the merge driver (Merge), and writes
// each result atomically over the working-tree file. It never stages: the
// caller checks the result and runs git add. paths (slash, relative to
// root) limits it to those files; each must be an unmerged memctl file
// (ErrNotMemctlFile, or gitx.ErrNotUnmerged wrapped with the path). With
// no paths it takes every unmerged memctl file, and none is no error.
// A file changed since the merge stopped is refused with *EditedError
// unless force.
func Resolve(root string, paths []string, force bool) ([]Resolution, error) {
	all, err := gitx.UnmergedPaths(root)
	if err != nil {
		return nil, err
	}
	unmerged := map[string]gitx.Unmerged{}
	var todo []string
	for _, u := range all {
		if ownsPath(u.Path) {
			unmerged[u.Path] = u
			todo = append(todo, u.Path)
		}
	}
	if len(paths) > 0 {
		todo = nil
		for _, p := range paths {
			if !ownsPath(p) {
				return nil, fmt.Errorf("%s: %w (memctl resolves %s and files under %s/)", p, ErrNotMemctlFile, config.IssuesFile, config.LedgerDir)
			}
			if _, ok := unmerged[p]; !ok {
				return nil, fmt.Errorf("%s: %w", p, gitx.ErrNotUnmerged)
			}
			todo = append(todo, p)
		}
	}
	out := make([]Resolution, 0, len(todo))
	for _, p := range todo {
		res, err := resolveOne(root, unmerged[p], force)
		if err != nil {
			return out, err
		}
		out = append(out, *res)
	}
	return out, nil
}

func resolveOne(root string, u gitx.Unmerged, force bool) (*Resolution, error) {
	if u.Path != config.IssuesFile {
		return &Resolution{Path: u.Path, Outcome: Manual, Conflicts: []string{}}, nil
	}
	v, m, err := mergeStages(root, u)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(root, filepath.FromSlash(u.Path))
	current, readErr := os.ReadFile(file)
	if readErr != nil && !errors.Is(readErr, os.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", u.Path, readErr)
	}
	res := &Resolution{Path: u.Path, Outcome: Merged, Conflicts: m.Conflicts}
	if len(m.Conflicts) > 0 {
		res.Outcome = Conflicted
	}
	if res.Conflicts == nil {
		res.Conflicts = []string{}
	}
	res.Issues = m.Issues
	switch {
	case readErr == nil && res.Outcome == Merged && bytes.Equal(current, m.Data):
		// Resolve's own output, not an edit: saying so keeps the next
		// step git add, not another resolve.
		res.Outcome = Resolved
		return res, nil
	case !force && !bytes.Equal(current, v.Ours) && len(gitx.ConflictMarkers(current)) == 0:
		return nil, &EditedError{Path: u.Path}
	}
	if err := fsx.WriteFile(file, m.Data, 0o644); err != nil {
		return nil, err
	}
	return res, nil
}

// mergeStages merges the three index stages of u with Merge; a stage
// that does not parse is named by Merge's error.
func mergeStages(root string, u gitx.Unmerged) (*gitx.Versions, *MergeResult, error) {
	v, err := gitx.ReadStages(root, u)
	if err != nil {
		return nil, nil, err
	}
	m, err := Merge(v.Base, v.Ours, v.Theirs)
	if err != nil {
		return nil, nil, fmt.Errorf("merge %s: %w", u.Path, err)
	}
	return v, m, nil
}

// IsResolved reports whether the working-tree file of the slash path rel,
// which a stopped merge left unmerged in the index of the working tree at
// root, holds exactly what Resolve writes for it with no conflicts: the
// file is merged and only git add is left. A path that is not unmerged, or
// whose stages do not merge, is not resolved. It reads the index, the
// three stages and the file, and merges them in memory: cheap enough to
// ask before every command while a merge is under way.
func IsResolved(root, rel string) (bool, error) {
	all, err := gitx.UnmergedPaths(root)
	if err != nil {
		return false, err
	}
	for _, u := range all {
		if u.Path != rel {
			continue
		}
		// Stages that do not merge cleanly have no resolution to compare.
		if _, m, err := mergeStages(root, u); err == nil && len(m.Conflicts) == 0 {
			current, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return false, fmt.Errorf("read %s: %w", rel, err)
			}
			return err == nil && bytes.Equal(current, m.Data), nil
		}
		return false, nil
	}
	return false, nil
}
