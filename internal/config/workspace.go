package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/gitx"
)

// Paths inside the working tree, relative to its root, slash-separated.
const (
	LedgerDir    = ".ledger"
	ConfigFile   = ".ledger/config.toml"
	FactsDir     = ".ledger/facts"
	ProposalsDir = ".ledger/proposals"
	RunsDir      = ".ledger/runs"
	PlaybooksDir = ".ledger/playbooks"
	BeadsDir     = ".beads"
	IssuesFile   = ".beads/issues.jsonl"
	AgentsFile   = "AGENTS.md"
	ClaudeFile   = "CLAUDE.md"
	AttrsFile    = ".gitattributes"
)

// ErrNoWorkspace is returned when the repository has no .ledger directory,
// that is, `memctl init` has not been run in it.
var ErrNoWorkspace = errors.New("no memctl workspace")

// Workspace is an initialised memctl workspace: a git working tree with a
// .ledger directory, and its configuration.
type Workspace struct {
	Repo     *gitx.Repo
	Root     string
	Config   Config
	Warnings []Warning
	// BeadsOnly is a repository bd uses without memctl: no .ledger, a
	// .beads/issues.jsonl. Task commands work on it with the default
	// configuration and the prefix bd uses (OpenTasks); nothing else does.
	BeadsOnly bool
}

// Find locates the git working tree that holds dir, without requiring a
// workspace in it. It wraps gitx.ErrNotRepo.
func Find(dir string) (*gitx.Repo, error) {
	return gitx.Find(dir)
}

// Open finds the workspace holding dir and loads its configuration. It
// returns an error wrapping gitx.ErrNotRepo outside a repository,
// ErrNoWorkspace when .ledger is missing, and an *Error for a broken
// config.toml.
func Open(dir string) (*Workspace, error) {
	repo, err := gitx.Find(dir)
	if err != nil {
		return nil, err
	}
	ws := &Workspace{Repo: repo, Root: repo.Root}
	fi, err := os.Stat(ws.Path(LedgerDir))
	if err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w in %s (no %s directory)", ErrNoWorkspace, repo.Root, LedgerDir)
	}
	cfg, warns, err := Load(ws.Path(ConfigFile), ConfigFile, Default(DefaultPrefix(repo.Root)))
	if err != nil {
		return nil, err
	}
	ws.Config, ws.Warnings = cfg, warns
	return ws, nil
}

// OpenTasks opens the workspace holding dir for the task graph: the
// memctl workspace when there is one, else, in a repository that has
// .beads/issues.jsonl but no .ledger (bd uses it, memctl init has not
// run), a BeadsOnly workspace with the default configuration and the
// task prefix bd uses (ProjectPrefix). memctl adopts such a repository
// without writing anything but the task changes asked for. Other errors
// are Open's.
func OpenTasks(dir string) (*Workspace, error) {
	ws, err := Open(dir)
	if !errors.Is(err, ErrNoWorkspace) {
		return ws, err
	}
	repo, ferr := gitx.Find(dir)
	if ferr != nil {
		return nil, ferr
	}
	fi, serr := os.Stat(filepath.Join(repo.Root, filepath.FromSlash(IssuesFile)))
	if serr != nil || !fi.Mode().IsRegular() {
		return nil, err
	}
	prefix, _ := ProjectPrefix(repo.Root)
	return &Workspace{Repo: repo, Root: repo.Root, Config: Default(prefix), BeadsOnly: true}, nil
}

// Path turns a slash-separated path relative to the root into a file path.
func (w *Workspace) Path(rel string) string {
	return filepath.Join(w.Root, filepath.FromSlash(rel))
}

// LockPath is the file whose lock serialises memctl writes in this working
// tree. It lives in the git directory, so it is never committed.
func (w *Workspace) LockPath() string { return LockPath(w.Repo) }

// DefaultPrefix derives the task-id prefix from the repository directory's
// name: lower-cased, every run of other characters than letters and digits
// turned into one '-'. A name with no letters or digits gives "tk".
func DefaultPrefix(root string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(filepath.Base(root)) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return "tk"
	}
	return b.String()
}

// ValidPrefix reports whether p can start task ids: 1 to 32 ASCII letters,
// digits, '-' or '_', beginning with a letter or digit. A '.' is excluded
// because it separates a parent id from a child number.
func ValidPrefix(p string) bool {
	if len(p) == 0 || len(p) > 32 {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case i > 0 && (c == '-' || c == '_'):
		default:
			return false
		}
	}
	return true
}
