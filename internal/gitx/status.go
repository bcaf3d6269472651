package gitx

import (
	"context"
	"slices"
	"strings"
)

// Changed lists the files git status reports in the working tree at
// root: modified, staged, added, deleted, renamed (both names) and
// untracked (each file, not its directory), relative to the repository
// root with slashes, sorted, once each. Ignored files are not listed.
// git runs with --no-optional-locks: it neither takes index.lock nor
// writes refreshed stat data back, since memctl reads from hooks beside
// the user's own git commands, which would fail on that lock.
func Changed(ctx context.Context, root string) ([]string, error) {
	return ChangedOutside(ctx, root)
}

// ChangedOutside is Changed without the files under the given
// directories (slash-separated, relative to the root): git neither
// refreshes nor scans them, which on a repository of thousands of memctl
// records (.ledger/runs) halves the time git status takes.
func ChangedOutside(ctx context.Context, root string, dirs ...string) ([]string, error) {
	args := []string{"--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", "."}
	for _, d := range dirs {
		args = append(args, ":(exclude)"+d)
	}
	out, err := Git(ctx, root, args...)
	if err != nil {
		return nil, err
	}
	return parseStatus(out), nil
}

// parseStatus reads git status --porcelain=v1 -z: "XY path" entries ended
// by NUL, a rename's or copy's entry followed by its source path.
func parseStatus(out string) []string {
	var files []string
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		e := fields[i]
		if len(e) < 4 {
			continue
		}
		files = append(files, e[3:])
		if x := e[0]; (x == 'R' || x == 'C') && i+1 < len(fields) {
			i++
			if fields[i] != "" {
				files = append(files, fields[i])
			}
		}
	}
	slices.Sort(files)
	return slices.Compact(files)
}
