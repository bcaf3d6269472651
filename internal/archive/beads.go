package archive

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/secrets"
	"github.com/memctl/memctl/internal/tasks"
)

// ErrNoBeadsExport is a bd repository with no JSONL file: a Dolt-era bd
// (v0.51 on) keeps its issues in its database and writes JSONL only when
// asked (bd export).
var ErrNoBeadsExport = errors.New("no Beads JSONL file")

// FindBeadsJSONL returns the JSONL file to read for p: p itself when it
// is a file; for a directory, its .beads directory if it has one, then
// the file metadata.json names ("jsonl_export", bd's SQLite era), else
// issues.jsonl, else beads.jsonl. A missing p wraps fs.ErrNotExist; a
// directory without one of them is ErrNoBeadsExport.
func FindBeadsJSONL(p string) (string, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	if !fi.IsDir() {
		return p, nil
	}
	dir := p
	if fi, err := os.Stat(filepath.Join(p, ".beads")); err == nil && fi.IsDir() {
		dir = filepath.Join(p, ".beads")
	}
	names := []string{"issues.jsonl", "beads.jsonl"}
	if data, err := os.ReadFile(filepath.Join(dir, "metadata.json")); err == nil {
		var meta struct {
			JSONLExport string `json:"jsonl_export"`
		}
		if json.Unmarshal(data, &meta) == nil && meta.JSONLExport != "" && filepath.Base(meta.JSONLExport) == meta.JSONLExport {
			names = append([]string{meta.JSONLExport}, names...)
		}
	}
	for _, n := range names {
		if fi, err := os.Stat(filepath.Join(dir, n)); err == nil && fi.Mode().IsRegular() {
			return filepath.Join(dir, n), nil
		}
	}
	return "", fmt.Errorf("%s: %w (looked for %v)", dir, ErrNoBeadsExport, names)
}

// BeadsOptions say how to import a Beads export.
type BeadsOptions struct {
	Force, DryRun bool
	// Secrets is the workspace's [secrets] policy: a secret its
	// allow-list lets through passes the gate.
	Secrets secrets.Policy
}

// BeadsResult is what FromBeads did.
type BeadsResult struct {
	// Source is the JSONL file read.
	Source string
	tasks.BeadsImport
}

// FromBeads merges the Beads export at src (a bd repository, its .beads
// directory or a JSONL file: FindBeadsJSONL) into the workspace's
// .beads/issues.jsonl with tasks' MergeBeads, after the write gate
// (*GateError: an export can be crafted, and its text becomes memctl's).
// A conflict is a *tasks.BeadsConflictError and writes nothing; the file
// is written atomically, and only when something was added or replaced.
// Hold the workspace lock.
func FromBeads(root, src string, opts BeadsOptions) (*BeadsResult, error) {
	file, err := FindBeadsJSONL(src)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(file)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if fi.Size() > DefaultLimits.MaxFileSize {
		return nil, fmt.Errorf("%s is %d bytes, over the %d memctl imports", file, fi.Size(), DefaultLimits.MaxFileSize)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	var gate GateError
	gate.check(Entry{Path: file, Kind: KindIssues}, data)
	if gate.allow(opts.Secrets); len(gate.Findings) > 0 {
		return nil, &gate
	}
	target := filepath.Join(root, filepath.FromSlash(config.IssuesFile))
	s, err := tasks.Load(target)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", config.IssuesFile, err)
	}
	merged, err := s.MergeBeads(data, opts.Force)
	res := &BeadsResult{Source: file}
	if merged != nil {
		res.BeadsImport = *merged
	}
	var le *tasks.LineError
	if errors.As(err, &le) {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if err != nil {
		return res, err
	}
	if opts.DryRun || len(res.Added)+len(res.Replaced) == 0 {
		return res, nil
	}
	if _, err := fsx.MkdirAll(filepath.Dir(target)); err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(filepath.Dir(target)); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s is a symbolic link; memctl does not write through links", config.BeadsDir)
	}
	if err := s.Save(target); err != nil {
		return nil, err
	}
	return res, nil
}
