package archive

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/memctl/memctl/internal/config"
)

// Kinds of memctl files, as an archive's manifest and the JSONL export
// name them.
const (
	KindConfig   = "config"
	KindFacts    = "facts"
	KindProposal = "proposal"
	KindRun      = "run"
	KindPlaybook = "playbook"
	KindIssues   = "issues"
	KindKeep     = "keep" // a .gitkeep that keeps an empty directory in git
)

// Classify says which kind of memctl file rel (slash-separated, relative
// to the workspace root) is, or "" when memctl does not own such a path.
// Export writes only these paths and import writes nothing else: the
// committed memctl files (DESIGN.md §1), never derived data (the recall
// index and caches under the git directory), never a file of another tool
// (bd's own files under .beads), never a dot-named temporary.
func Classify(rel string) string {
	dir, name := path.Split(rel)
	dir = strings.TrimSuffix(dir, "/")
	if name == "" || strings.HasPrefix(name, ".") && name != ".gitkeep" {
		return ""
	}
	switch {
	case rel == config.ConfigFile:
		return KindConfig
	case rel == config.IssuesFile:
		return KindIssues
	case name == ".gitkeep":
		if dir == config.ProposalsDir || dir == config.RunsDir || dir == config.PlaybooksDir || dir == config.FactsDir {
			return KindKeep
		}
	case dir == config.FactsDir && strings.HasSuffix(name, ".md"):
		return KindFacts
	case dir == config.ProposalsDir && strings.HasSuffix(name, ".json"):
		return KindProposal
	case dir == config.PlaybooksDir && strings.HasSuffix(name, ".md"):
		return KindPlaybook
	case path.Dir(dir) == config.RunsDir && strings.HasSuffix(name, ".json"):
		month := path.Base(dir)
		if month != "" && !strings.HasPrefix(month, ".") {
			return KindRun
		}
	}
	return ""
}

// File is one memctl file of a workspace.
type File struct {
	Path string // relative to the root, slash-separated
	Kind string
	Size int64
	Mode fs.FileMode // permission bits
}

// Collect lists the memctl files of the workspace at root, sorted by
// path. Skipped are the paths under .ledger that are not memctl files
// (another tool's, or a symbolic link, which memctl never follows), for
// the caller to warn about; dot-named entries (fsx's temporaries) are left
// out silently.
func Collect(root string) (files []File, skipped []string, err error) {
	add := func(rel string, fi fs.FileInfo) {
		switch {
		case fi.Mode()&fs.ModeSymlink != 0, !fi.Mode().IsRegular():
			skipped = append(skipped, rel)
		case Classify(rel) == "":
			if !strings.HasPrefix(path.Base(rel), ".") {
				skipped = append(skipped, rel)
			}
		default:
			files = append(files, File{Path: rel, Kind: Classify(rel), Size: fi.Size(), Mode: fi.Mode().Perm()})
		}
	}
	ledger := filepath.Join(root, filepath.FromSlash(config.LedgerDir))
	err = filepath.WalkDir(ledger, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == ledger {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if p != ledger && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		add(rel, fi)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("list %s: %w", config.LedgerDir, err)
	}
	fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(config.IssuesFile)))
	switch {
	case err == nil:
		add(config.IssuesFile, fi)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, nil, fmt.Errorf("read %s: %w", config.IssuesFile, err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	sort.Strings(skipped)
	return files, skipped, nil
}
