// Package audit is the history of memctl's files from git: which commit
// changed which fact, task, proposal, run record, playbook or the
// configuration, by whom and when. It walks the first-parent history with
// gitx, compares each changed file's two versions with the parsers of the
// files' own packages, and names every change in memctl's terms.
package audit

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/secrets"
)

// Kinds of records an entry names.
const (
	KindFact     = "fact"
	KindTask     = "task"
	KindProposal = "proposal"
	KindRun      = "run"
	KindPlaybook = "playbook"
	KindConfig   = "config"
	// KindFile is another file under .ledger, or a memctl file that could
	// not be read at one of its two versions.
	KindFile = "file"
)

// Entry is one record changed by one commit.
type Entry struct {
	Commit      string // full hash
	Merge       bool   // the commit is a merge, compared with its first parent
	AuthorName  string
	AuthorEmail string
	When        time.Time // author time

	File   string // slash path from the repository root
	Kind   string
	ID     string // the record's id; "" for config and other files
	Action string // added, edited, removed, created, updated, filed, approved…
	// Details say what changed, in order ("status open→closed", "commented").
	Details []string
	// Text is the record's first words: a fact's text, a task's title, a
	// proposal's content, a run's intent, a playbook's title.
	Text string
	// Related are other ids the record links to: the fact a proposal
	// changes or was approved into, a fact's id before an edit changed it.
	Related []string
}

// Summary is the entry in one line of memctl's terms, for a person:
// "task tk-1 updated (status open→closed): Fix the parser".
func (e Entry) Summary() string {
	var b strings.Builder
	b.WriteString(e.Kind)
	if e.ID != "" {
		b.WriteString(" " + e.ID)
	} else if e.Kind != KindConfig {
		b.WriteString(" " + e.File)
	}
	b.WriteString(" " + e.Action)
	if e.Kind == KindFact {
		b.WriteString(" in " + factCategory(e.File))
	}
	if len(e.Details) > 0 {
		b.WriteString(" (" + strings.Join(e.Details, ", ") + ")")
	}
	if e.Text != "" {
		b.WriteString(": " + e.Text)
	}
	return b.String()
}

// Query chooses what Log lists.
type Query struct {
	// Path limits the log to one file or directory (a slash path from the
	// repository root, at or under .ledger, or .beads/issues.jsonl).
	Path string
	// ID limits the log to one record, followed through the records it
	// links to (the fact a proposal was approved into).
	ID string
	// Since leaves out changes authored before it (zero: none).
	Since time.Time
	// Author keeps changes whose author name or email contains it, in any
	// case ("": everyone's).
	Author string
	// Limit is the most entries to return (0: all).
	Limit int
}

// Result is the log, newest first.
type Result struct {
	Entries []Entry
	// CutAt is, in a shallow clone, the commit the history stops at: the
	// clone does not have its parent, so what it and the commits before it
	// changed is not known. "" for a full history.
	CutAt string
}

// followed are the paths whose history Log follows.
var followed = []string{config.LedgerDir, config.IssuesFile}

// NotFoundError is a path or id that no commit changed and the working
// tree does not have.
type NotFoundError struct {
	What string // "path" or "id"
	Name string
}

func (e *NotFoundError) Error() string {
	if e.What == "path" {
		return fmt.Sprintf("no commit changed %s and it does not exist", e.Name)
	}
	return fmt.Sprintf("no commit changed a record with id %q", e.Name)
}

// ErrNotFound is what every *NotFoundError wraps.
var ErrNotFound = errors.New("not found in the history")

func (e *NotFoundError) Unwrap() error { return ErrNotFound }

// Log lists the changes the commits of repo's first-parent history made
// to memctl's files, newest first, as q chooses. exists tells whether a
// path exists in the working tree (for a path no commit changed: empty, or
// not found). A repository with no commits has an empty log.
func Log(ctx context.Context, repo *gitx.Repo, q Query, exists func(rel string) bool) (*Result, error) {
	h, err := repo.OpenHistory()
	if err != nil {
		return nil, err
	}
	defer h.Close()
	prefixes := followed
	if q.Path != "" {
		prefixes = []string{q.Path}
	}
	res := &Result{Entries: []Entry{}}
	w := &walker{h: h, q: q, follow: map[string]bool{}, cache: loadCache(CachePath(repo.CommonDir))}
	defer w.cache.save()
	if q.ID != "" {
		w.follow[q.ID] = true
	}
	author := strings.ToLower(q.Author)
	seen := false
	walk, err := h.WalkFirstParent(ctx, prefixes, func(c gitx.Commit, changes []gitx.FileChange) (bool, error) {
		if !q.Since.IsZero() && c.CommitTime.Before(q.Since) && c.AuthorTime.Before(q.Since) {
			return false, nil
		}
		entries, err := w.commit(c, changes)
		if err != nil {
			return false, err
		}
		seen = seen || len(entries) > 0
		for _, e := range entries {
			if !q.Since.IsZero() && e.When.Before(q.Since) {
				continue
			}
			if author != "" && !strings.Contains(strings.ToLower(e.AuthorName), author) && !strings.Contains(strings.ToLower(e.AuthorEmail), author) {
				continue
			}
			res.Entries = append(res.Entries, unsecret(e))
			if q.Limit > 0 && len(res.Entries) == q.Limit {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	res.CutAt = walk.CutAt
	if seen || !walk.Complete {
		return res, nil
	}
	switch {
	case q.ID != "":
		return nil, &NotFoundError{What: "id", Name: q.ID}
	case q.Path != "" && !exists(q.Path):
		return nil, &NotFoundError{What: "path", Name: q.Path}
	}
	return res, nil
}

// unsecret redacts the credentials an entry quotes from history
// ([REDACTED:<rule>]): a secret committed and removed since is still in
// git, and the log must not show it again (memctl check --secrets
// --history finds it, and says how to remove it).
func unsecret(e Entry) Entry {
	redact := func(s string) string {
		if out, found, err := secrets.Redact(s); err == nil && len(found) > 0 {
			return out
		}
		return s
	}
	e.Text = redact(e.Text)
	if len(e.Details) > 0 {
		e.Details = slices.Clone(e.Details)
		for i, d := range e.Details {
			e.Details[i] = redact(d)
		}
	}
	return e
}

// walker turns the files one commit changed into entries.
type walker struct {
	h *gitx.History
	q Query
	// follow are the ids an id query takes in: the one asked for and the
	// ids its entries link to, gathered newest first.
	follow map[string]bool
	cache  *cache
}

// commit returns the entries of one commit that the query keeps (by path
// and id; time and author are the caller's).
func (w *walker) commit(c gitx.Commit, changes []gitx.FileChange) ([]Entry, error) {
	all, err := w.changes(c.Hash, changes)
	if err != nil {
		return nil, err
	}
	for i := range all {
		e := &all[i]
		e.Commit, e.Merge = c.Hash, c.Parents > 1
		e.AuthorName, e.AuthorEmail, e.When = c.AuthorName, c.AuthorEmail, c.AuthorTime.UTC()
	}
	if w.q.ID == "" {
		return all, nil
	}
	// Take in the records linked to a followed one until nothing more
	// links: an approval's proposal entry names the fact it wrote in the
	// same commit.
	keep := make([]bool, len(all))
	for grew := true; grew; {
		grew = false
		for i, e := range all {
			if keep[i] || !w.linked(e) {
				continue
			}
			keep[i], grew = true, true
			for _, id := range append([]string{e.ID}, e.Related...) {
				if id != "" {
					w.follow[id] = true
				}
			}
		}
	}
	out := all[:0]
	for i, e := range all {
		if keep[i] {
			out = append(out, e)
		}
	}
	return out, nil
}

// changes names what the files a commit changed: from the cache when it
// has the commit (the entries under the query's path), else by reading
// and comparing the files' versions. A commit compared over every path Log
// follows goes into the cache.
func (w *walker) changes(commit string, changes []gitx.FileChange) ([]Entry, error) {
	if cached, ok := w.cache.get(commit); ok {
		if w.q.Path == "" {
			return cached, nil
		}
		var out []Entry
		for _, e := range cached {
			if e.File == w.q.Path || strings.HasPrefix(e.File, w.q.Path+"/") {
				out = append(out, e)
			}
		}
		return out, nil
	}
	var all []Entry
	for _, ch := range changes {
		before, err := w.h.Blob(ch.Path, ch.From)
		if err != nil {
			return nil, err
		}
		after, err := w.h.Blob(ch.Path, ch.To)
		if err != nil {
			return nil, err
		}
		all = append(all, diffFile(ch.Path, before, after, ch.From != "", ch.To != "")...)
	}
	if w.q.Path == "" {
		w.cache.put(commit, all)
	}
	return all, nil
}

func (w *walker) linked(e Entry) bool {
	if w.follow[e.ID] {
		return true
	}
	return slices.ContainsFunc(e.Related, func(id string) bool { return w.follow[id] })
}

// TargetError is an argument that names no file memctl keeps.
type TargetError struct{ Arg, Reason string }

func (e *TargetError) Error() string { return fmt.Sprintf("%s: %s", e.Arg, e.Reason) }

// Target reads the argument of a log: a path (it has a slash, starts with
// a dot, or ends in .md, .json, .jsonl or .toml), relative to cwd, which
// must be at or under .ledger or be .beads/issues.jsonl (.beads stands for
// it); else an id. root is the repository's top directory.
func Target(root, cwd, arg string) (path, id string, err error) {
	isPath := strings.ContainsRune(arg, '/') || strings.ContainsRune(arg, filepath.Separator) || strings.HasPrefix(arg, ".")
	for _, ext := range []string{".md", ".json", ".jsonl", ".toml"} {
		isPath = isPath || strings.HasSuffix(arg, ext)
	}
	if !isPath {
		return "", arg, nil
	}
	abs := arg
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, arg)
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", "", &TargetError{Arg: arg, Reason: "outside the repository"}
	}
	rel = filepath.ToSlash(rel)
	switch {
	case rel == config.BeadsDir, rel == config.IssuesFile:
		return config.IssuesFile, "", nil
	case rel == config.LedgerDir, strings.HasPrefix(rel, config.LedgerDir+"/"):
		return rel, "", nil
	}
	return "", "", &TargetError{Arg: arg, Reason: fmt.Sprintf("not one of memctl's files (%s, %s); its history is git log's", config.LedgerDir, config.IssuesFile)}
}
