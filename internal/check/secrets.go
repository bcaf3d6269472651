package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/secrets"
)

// SecretsOptions say what memctl check --secrets scans besides the
// memctl files of the working tree.
type SecretsOptions struct {
	// History also scans every version of those files in git history.
	History bool
	// Personal is the personal preferences file, outside the repository
	// ("" for none); PersonalName is how findings name it.
	Personal, PersonalName string
}

// SecretFinding is a secret in a memctl file: where, which rule, its
// fingerprint (for [[secrets.allow]]) and, for a version in git history,
// the commit that introduced it. It never holds the secret.
type SecretFinding struct {
	File         string // relative to the workspace root, or the personal file's name
	Line, Column int
	Rule         string
	Fingerprint  string
	Commit       *gitx.VersionCommit // nil: the working tree
	Remedy       string
}

// SecretsReport is the result of memctl check --secrets.
type SecretsReport struct {
	Findings []SecretFinding
	Files    int // files of the working tree scanned
	Commits  int // commits walked (History)
	Versions int // distinct file contents in history scanned, each once
}

// The remedies, stable: scripts and people read them.
const (
	RemedyFile = "rotate the credential (it was written to a memctl file, so treat it as leaked) and remove it from the file; " +
		"if it is not a secret, add its fingerprint to [[secrets.allow]] in " + config.ConfigFile
	RemedyHistory = "rotate the credential (it is in git history, so treat it as leaked); remove it from every commit with " +
		"git filter-repo --replace-text, then force-push and have everyone clone again (a fetch keeps the old commits); " +
		"if it is not a secret, add its fingerprint to [[secrets.allow]] in " + config.ConfigFile
	RemedyPersonal = "rotate the credential and remove it from the file (it is yours, not in the repository, but memctl reads it into sessions)"
)

// secretDirs are the parts of the repository memctl writes (memctlFile
// says which of their files).
var secretDirs = []string{config.LedgerDir, config.BeadsDir}

// memctlFile reports whether the file at rel is one memctl writes or
// reads into memory: everything in .ledger (config, facts, proposals,
// playbooks, runs and their digests, anything else there) and the JSON
// Lines files of .beads (not bd's database or logs, which are not text
// and are not committed).
func memctlFile(rel string) bool {
	return strings.HasPrefix(rel, config.LedgerDir+"/") ||
		strings.HasPrefix(rel, config.BeadsDir+"/") && strings.HasSuffix(rel, ".jsonl")
}

// Secrets scans every memctl file for secrets, and with opts.History
// every version of them in git history, each distinct content once. What
// the workspace's [[secrets.allow]] lets through is not a finding.
// Findings of the working tree come first, in order of file, line and
// column; then those of history, in the order of the commits that
// introduced them, then of file, line and column. A secret that stays in history under one file is
// reported once, at the commit that introduced it, and not at all when
// the working tree has it there still (it is reported there).
func Secrets(ctx context.Context, ws *config.Workspace, opts SecretsOptions) (*SecretsReport, error) {
	policy := ws.Config.Secrets.Policy
	r := &SecretsReport{}
	current := map[string]bool{} // file and fingerprint of findings in the working tree
	var files []string
	for _, d := range secretDirs {
		err := filepath.WalkDir(ws.Path(d), func(p string, e fs.DirEntry, err error) error {
			switch {
			case errors.Is(err, fs.ErrNotExist):
				return nil
			case err != nil:
				return err
			case e.IsDir() || !e.Type().IsRegular():
				return nil
			}
			rel, err := filepath.Rel(ws.Root, p)
			if err != nil {
				return err
			}
			if rel = filepath.ToSlash(rel); memctlFile(rel) {
				files = append(files, rel)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(files)
	for _, rel := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		data, err := os.ReadFile(ws.Path(rel))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", rel, err)
		}
		found, err := scanFile(rel, data)
		if err != nil {
			return nil, err
		}
		r.Files++
		for _, f := range policy.Filter(found) {
			current[rel+"\x00"+f.Fingerprint] = true
			r.add(rel, f, nil, RemedyFile)
		}
	}
	if opts.Personal != "" {
		data, err := os.ReadFile(opts.Personal)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("read %s: %w", opts.PersonalName, err)
		default:
			found, err := secrets.Scan(string(data))
			if err != nil {
				return nil, err
			}
			r.Files++
			for _, f := range policy.Filter(found) {
				r.add(opts.PersonalName, f, nil, RemedyPersonal)
			}
		}
	}
	if opts.History {
		if err := r.scanHistory(ctx, ws, policy, current); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// newLines returns the lines of data not in seen (adding them), and the
// 1-based line number in data of each.
func newLines(data []byte, seen map[uint64]bool, seed maphash.Seed) ([]byte, []int) {
	out := make([]byte, 0, 1024)
	lines := make([]int, 0, 16)
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		h := maphash.Bytes(seed, bytes.TrimSuffix(line, []byte{'\n'}))
		if seen[h] {
			continue
		}
		seen[h] = true
		out = append(out, bytes.TrimSuffix(line, []byte{'\n'})...)
		out = append(out, '\n')
		lines = append(lines, n)
	}
	return out, lines
}

func (r *SecretsReport) add(file string, f secrets.Finding, c *gitx.VersionCommit, remedy string) {
	r.Findings = append(r.Findings, SecretFinding{File: file, Line: f.Line, Column: f.Column, Rule: f.RuleID,
		Fingerprint: f.Fingerprint, Commit: c, Remedy: remedy})
}

// scanFile scans a memctl file as check scans it: JSON Lines and proposal
// files by their string values (keys are not text anyone wrote), the rest
// whole.
func scanFile(rel string, data []byte) ([]secrets.Finding, error) {
	if strings.HasSuffix(rel, ".jsonl") || path.Dir(rel) == config.ProposalsDir && strings.HasSuffix(rel, ".json") {
		return secrets.ScanJSONLines(string(data))
	}
	return secrets.Scan(string(data))
}

// scanHistory scans each distinct version of the memctl files in history,
// reading them one by one (go-git's object store is not safe for
// concurrent use) while the processors scan. A secret found in the
// working tree under the same file is reported there, not again; one
// found in several versions of a file is reported at its first commit.
func (r *SecretsReport) scanHistory(ctx context.Context, ws *config.Workspace, policy secrets.Policy, current map[string]bool) error {
	h, err := gitx.HistoryVersions(ws.Root, memctlFile, secretDirs...)
	if err != nil {
		return fmt.Errorf("git history: %w", err)
	}
	r.Commits, r.Versions = h.Commits, len(h.Versions)
	type job struct {
		i     int
		data  []byte
		lines []int // for new lines only: the line in the version of each line of data
	}
	found := make([][]secrets.Finding, len(h.Versions))
	errs := make([]error, len(h.Versions))
	jobs := make(chan job)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for j := range jobs {
				found[j.i], errs[j.i] = scanFile(h.Versions[j.i].Path, j.data)
				if j.lines != nil {
					for k := range found[j.i] {
						found[j.i][k].Line = j.lines[found[j.i][k].Line-1]
					}
				}
			}
		})
	}
	// A JSON Lines file is scanned line by line, so of each version only
	// the lines no older version of the file had need scanning: an issues file that
	// grows a line a commit costs its lines once, not once a commit.
	seenLine := map[string]map[uint64]bool{} // by path
	seed := maphash.MakeSeed()
	var readErr error
	for i, v := range h.Versions {
		if readErr = ctx.Err(); readErr != nil {
			break
		}
		data, err := h.Read(v)
		if err != nil {
			readErr = err
			break
		}
		j := job{i: i, data: data}
		if strings.HasSuffix(v.Path, ".jsonl") {
			if seenLine[v.Path] == nil {
				seenLine[v.Path] = map[uint64]bool{}
			}
			j.data, j.lines = newLines(data, seenLine[v.Path], seed)
		}
		jobs <- j
	}
	close(jobs)
	wg.Wait()
	if err := errors.Join(append([]error{readErr}, errs...)...); err != nil {
		return err
	}
	reported := map[string]bool{}
	first := len(r.Findings)
	defer func() {
		hist := r.Findings[first:]
		sort.SliceStable(hist, func(i, j int) bool {
			a, b := hist[i], hist[j]
			if !a.Commit.When.Equal(b.Commit.When) {
				return a.Commit.When.Before(b.Commit.When)
			}
			if a.File != b.File {
				return a.File < b.File
			}
			return a.Line < b.Line || a.Line == b.Line && a.Column < b.Column
		})
	}()
	for i, v := range h.Versions {
		for _, f := range policy.Filter(found[i]) {
			key := v.Path + "\x00" + f.Fingerprint
			if current[key] || reported[key] {
				continue
			}
			reported[key] = true
			c := v.Commit
			r.add(v.Path, f, &c, RemedyHistory)
		}
	}
	return nil
}
