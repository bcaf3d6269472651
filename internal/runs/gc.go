package runs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// DefaultKeepDays is how long run records are kept when [runs] keep_days
// is not set.
const DefaultKeepDays = 180

// Citing is a directory whose files may cite runs (facts, proposals,
// playbooks): a run id that appears in one of them, as a word of its own
// (run:<id>, or "<id>" in a proposal's evidence), keeps the run.
type Citing struct {
	Dir, Rel string
	Ext      string // only files with this extension (".md")
}

// GCOptions say what GC removes.
type GCOptions struct {
	Now time.Time
	// KeepDays: records whose last time (ended_at, else started_at) is
	// more than this many days before Now go, unless cited; 0 keeps all.
	KeepDays int
	Citing   []Citing
	DryRun   bool
}

// GCResult is what GC deleted (or would have, in a dry run), the old
// records it kept because a file cites them, and the files it could not
// read, which it never deletes.
type GCResult struct {
	Deleted  []Entry
	Kept     []Cited
	Problems []error
}

// Cited is a record kept because the files in By cite it.
type Cited struct {
	Entry
	By []string
}

// GC deletes the run records older than opts.KeepDays that no citing file
// names, oldest first, and then month directories it left empty. A
// record with no time is never old. The caller holds the workspace lock.
func (s Store) GC(opts GCOptions) (GCResult, error) {
	var res GCResult
	if opts.KeepDays <= 0 {
		return res, nil
	}
	all, err := s.List(Filter{})
	if err != nil {
		return res, err
	}
	res.Problems = all.Problems
	cutoff := opts.Now.Add(-time.Duration(opts.KeepDays) * 24 * time.Hour)
	var old []Entry
	for _, e := range all.Entries {
		if t := e.Record.Time(); !t.IsZero() && t.Before(cutoff) {
			old = append(old, e)
		}
	}
	if len(old) == 0 {
		return res, nil
	}
	slices.SortFunc(old, func(a, b Entry) int { // oldest first
		if c := a.Record.Time().Compare(b.Record.Time()); c != 0 {
			return c
		}
		return strings.Compare(a.Record.RunID, b.Record.RunID)
	})
	citers, err := readCiting(opts.Citing)
	if err != nil {
		return res, err
	}
	// Each citing file is read into its ids once, not searched once per run.
	citedBy := map[string][]string{}
	for _, c := range citers {
		for id := range citedIDs(c.text) {
			citedBy[id] = append(citedBy[id], c.rel)
		}
	}
	dirs := map[string]bool{}
	for _, e := range old {
		if by := citedBy[e.Record.RunID]; len(by) > 0 {
			res.Kept = append(res.Kept, Cited{Entry: e, By: by})
			continue
		}
		if !opts.DryRun {
			file := s.fileOf(e)
			if err := os.Remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return res, fmt.Errorf("delete %s: %w", e.Path, err)
			}
			dirs[filepath.Dir(file)] = true
		}
		res.Deleted = append(res.Deleted, e)
	}
	for d := range dirs {
		_ = os.Remove(d) // only succeeds when empty, which is the point
	}
	if len(dirs) > 0 {
		// Built again by the next hook: the removals changed the stamps,
		// but one in the tick of the index's key might not have.
		s.ForgetIndex()
	}
	return res, nil
}

type citer struct{ rel, text string }

// readCiting reads the citing files, in directory then name order.
func readCiting(dirs []Citing) ([]citer, error) {
	var out []citer
	for _, c := range dirs {
		ents, err := os.ReadDir(c.Dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", c.Rel, err)
		}
		for _, e := range ents {
			if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), c.Ext) || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			data, err := os.ReadFile(filepath.Join(c.Dir, e.Name()))
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", path.Join(c.Rel, e.Name()), err)
			}
			out = append(out, citer{rel: path.Join(c.Rel, e.Name()), text: string(data)})
		}
	}
	return out, nil
}

// cites reports whether text names run id as a word of its own: not
// inside a longer id (r-abc does not cite r-abcd, nor r-abc.1), though a
// full stop may end the sentence after it.
func cites(text, id string) bool {
	_, ok := citedIDs(text)[id]
	return ok
}

// citedIDs are the words of text made of id characters, each also
// without one trailing '.' (the end of a sentence): what may name a run.
func citedIDs(text string) map[string]struct{} {
	ids := map[string]struct{}{}
	for i := 0; i < len(text); {
		if !isIDChar(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isIDChar(text[j]) {
			j++
		}
		w := text[i:j]
		ids[w] = struct{}{}
		if t, ok := strings.CutSuffix(w, "."); ok {
			ids[t] = struct{}{}
		}
		i = j
	}
	return ids
}

func isIDChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}
