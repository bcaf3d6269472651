package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/gitx"
)

// AttrsLine routes .beads/issues.jsonl through memctl's keyed merge driver.
// Without the driver configured, git falls back to its text merge, so the
// line is harmless in a clone that has not run `memctl init`.
const AttrsLine = ".beads/issues.jsonl merge=memctl"

// starterFacts are the facts files a new workspace gets: a title and one
// line saying what belongs there.
var starterFacts = []struct{ name, title, about string }{
	{"architecture", "Architecture", "Decisions about the system's structure and why they were made: components, boundaries, data flow."},
	{"invariants", "Invariants", "What must always hold in this codebase; breaking one is a bug."},
	{"performance_rules", "Performance rules", "Rules that keep hot paths fast, each with the measurement behind it."},
	{"pitfalls", "Pitfalls", "Mistakes made here before, and how to avoid them."},
	{"preferences", "Preferences", "How this team likes things done: style, tools, review habits."},
}

// InitResult says what Init did. Paths are relative to the root.
type InitResult struct {
	Prefix string
	// PrefixSource says where a prefix Init chose came from (ProjectPrefix's
	// source); "" when --prefix or config.toml set it.
	PrefixSource string
	Created      []string
	Updated      []string
	Warnings     []string
}

// Changed reports whether Init wrote anything.
func (r *InitResult) Changed() bool { return len(r.Created)+len(r.Updated) > 0 }

// LockPath is the file whose lock serialises memctl writes in the working
// tree of repo. It lives in the git directory, so it is never committed.
func LockPath(repo *gitx.Repo) string {
	return filepath.Join(repo.GitDir, "memctl", "lock")
}

// Init creates what is missing of the workspace layout in repo: the
// .ledger tree with config.toml and the starter facts files, an empty
// .beads/issues.jsonl, IgnoreLine in .ledger/.gitignore and
// .beads/.gitignore, and the merge line in .gitattributes. It never
// overwrites an existing file. prefix is the task-id prefix for a new
// config.toml ("" for the default); an existing config keeps its own.
func Init(repo *gitx.Repo, prefix string) (*InitResult, error) {
	root := repo.Root
	res := &InitResult{}
	path := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }

	cfgPath := path(ConfigFile)
	if _, err := os.Stat(cfgPath); err == nil {
		cfg, warns, err := Load(cfgPath, ConfigFile, Default(DefaultPrefix(root)))
		if err != nil {
			return nil, err
		}
		for _, w := range warns {
			res.Warnings = append(res.Warnings, w.String())
		}
		if prefix != "" && prefix != cfg.Tasks.Prefix {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s already sets the task prefix %q; --prefix %q was not applied (edit [tasks] prefix to change it)", ConfigFile, cfg.Tasks.Prefix, prefix))
		}
		prefix = cfg.Tasks.Prefix
	} else if prefix == "" {
		prefix, res.PrefixSource = ProjectPrefix(root)
	}
	res.Prefix = prefix
	// A repository bd already uses keeps its .beads as bd left it: init
	// adds nothing there (not even the ignore line), so adopting memctl
	// changes no bd file.
	_, err := os.Stat(path(IssuesFile))
	adopt := err == nil

	for _, dir := range []string{LedgerDir, FactsDir, ProposalsDir, RunsDir, PlaybooksDir, BeadsDir} {
		if _, err := fsx.MkdirAll(path(dir)); err != nil {
			return nil, err
		}
	}
	for _, f := range starterFiles(prefix) {
		created, err := fsx.CreateFile(path(f.rel), f.data, 0o644)
		if err != nil {
			return nil, err
		}
		if created {
			res.Created = append(res.Created, f.rel)
		}
	}
	for _, rel := range IgnoreFiles {
		if adopt && rel == BeadsDir+"/.gitignore" {
			continue
		}
		created, changed, err := EnsureIgnore(root, rel)
		switch {
		case err != nil:
			return nil, err
		case created:
			res.Created = append(res.Created, rel)
		case changed:
			res.Updated = append(res.Updated, rel)
		}
	}
	return res, ensureAttrs(path(AttrsFile), res)
}

type starterFile struct {
	rel  string
	data []byte
}

// starterFiles are the files Init creates when they are missing, in the
// order it creates them.
func starterFiles(prefix string) []starterFile {
	files := []starterFile{{ConfigFile, Template(prefix)}}
	for _, f := range starterFacts {
		files = append(files, starterFile{FactsDir + "/" + f.name + ".md", []byte("# " + f.title + "\n\n" + f.about + "\n")})
	}
	for _, dir := range []string{ProposalsDir, RunsDir, PlaybooksDir} {
		files = append(files, starterFile{dir + "/.gitkeep", nil})
	}
	return append(files, starterFile{IssuesFile, nil})
}

// Starter is what Init writes into a new workspace whose task prefix is
// prefix, by path: a file that still holds exactly this has not been
// touched since. (memctl import replaces such a file without --force.)
func Starter(prefix string) map[string][]byte {
	m := map[string][]byte{}
	for _, f := range starterFiles(prefix) {
		m[f.rel] = f.data
	}
	return m
}

// ensureAttrs adds AttrsLine to .gitattributes unless an equivalent line is
// there. A symbolic link is left alone with a warning.
func ensureAttrs(file string, res *InitResult) error {
	fi, err := os.Lstat(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := fsx.WriteFile(file, []byte(AttrsLine+"\n"), 0o644); err != nil {
			return err
		}
		res.Created = append(res.Created, AttrsFile)
		return nil
	case err != nil:
		return fmt.Errorf("read %s: %w", AttrsFile, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s is a symbolic link; memctl does not write through links. Add this line yourself: %s", AttrsFile, AttrsLine))
		return nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("read %s: %w", AttrsFile, err)
	}
	if hasAttrsLine(data) {
		return nil
	}
	out := append([]byte{}, data...)
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	out = append(out, AttrsLine+"\n"...)
	if err := fsx.WriteFile(file, out, 0o644); err != nil {
		return err
	}
	res.Updated = append(res.Updated, AttrsFile)
	return nil
}

// HasAttrs reports whether the .gitattributes at root routes the issues
// file to memctl's merge driver.
func HasAttrs(root string) (bool, error) {
	data, err := os.ReadFile(filepath.Join(root, AttrsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", AttrsFile, err)
	}
	return hasAttrsLine(data), nil
}

// EnsureAttrs adds AttrsLine to the .gitattributes at root unless an
// equivalent line is there, as Init does; a symbolic link is left alone,
// with a warning.
func EnsureAttrs(root string) (*InitResult, error) {
	res := &InitResult{}
	return res, ensureAttrs(filepath.Join(root, AttrsFile), res)
}

// hasAttrsLine reports whether .gitattributes already routes the issues
// file to the memctl driver.
func hasAttrsLine(data []byte) bool {
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || (f[0] != ".beads/issues.jsonl" && f[0] != "/.beads/issues.jsonl") {
			continue
		}
		for _, attr := range f[1:] {
			if attr == "merge=memctl" {
				return true
			}
		}
	}
	return false
}
