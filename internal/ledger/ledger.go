package ledger

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// ErrUnknownCategory is returned when a category has no facts file.
var ErrUnknownCategory = errors.New("no such fact category")

// Ledger is every facts file of a workspace, sorted by category.
type Ledger struct {
	Files []*File
}

// Load reads every *.md file directly in dir (the workspace's
// .ledger/facts); rel is dir relative to the workspace root, used in the
// files' paths. A missing directory is an empty ledger.
func Load(dir, rel string) (*Ledger, error) {
	names, err := FileNames(dir, rel)
	if err != nil {
		return nil, err
	}
	l := &Ledger{}
	for _, name := range names {
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("read facts file %s: %w", path.Join(rel, name), err)
		}
		l.Files = append(l.Files, Parse(strings.TrimSuffix(name, ".md"), path.Join(rel, name), src))
	}
	sort.Slice(l.Files, func(i, j int) bool { return l.Files[i].Category < l.Files[j].Category })
	return l, nil
}

// FileNames lists the facts files in dir (*.md, not hidden), sorted; a
// missing directory has none. rel names dir in errors.
func FileNames(dir, rel string) ([]string, error) {
	entries, err := os.ReadDir(dir) // sorted by name
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read facts directory %s: %w", rel, err)
	}
	var names []string
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".md") && !strings.HasPrefix(name, ".") && !e.IsDir() {
			names = append(names, name)
		}
	}
	return names, nil
}

// Categories returns the category names, sorted.
func (l *Ledger) Categories() []string {
	out := make([]string, len(l.Files))
	for i, f := range l.Files {
		out[i] = f.Category
	}
	return out
}

// File returns the file of a category, or ErrUnknownCategory.
func (l *Ledger) File(category string) (*File, error) {
	for _, f := range l.Files {
		if f.Category == category {
			return f, nil
		}
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownCategory, category)
}

// Facts returns every fact in file order, categories sorted.
func (l *Ledger) Facts() []Fact {
	var out []Fact
	for _, f := range l.Files {
		out = append(out, f.Facts...)
	}
	return out
}

// Fact returns the first fact with id, in the order of Facts.
func (l *Ledger) Fact(id string) (Fact, bool) {
	for _, f := range l.Files {
		for _, fact := range f.Facts {
			if fact.ID == id {
				return fact, true
			}
		}
	}
	return Fact{}, false
}

// Lines is the number of lines of all facts files together.
func (l *Ledger) Lines() int {
	n := 0
	for _, f := range l.Files {
		n += f.Lines
	}
	return n
}

// Bytes is the size of all facts files together.
func (l *Ledger) Bytes() int {
	n := 0
	for _, f := range l.Files {
		n += f.Bytes
	}
	return n
}

// Duplicate is a fact id used by more than one fact.
type Duplicate struct {
	ID    string
	Facts []Fact // in ledger order; the first is the original
}

// Duplicates returns the ids that more than one fact has, in the order of
// their first use. Two facts with the same derived id have the same text in
// the same category; with an explicit id, someone copied a fact.
func (l *Ledger) Duplicates() []Duplicate {
	seen := map[string]int{}
	var out []Duplicate
	for _, f := range l.Facts() {
		i, ok := seen[f.ID]
		if !ok {
			seen[f.ID] = len(out)
			out = append(out, Duplicate{ID: f.ID, Facts: []Fact{f}})
			continue
		}
		out[i].Facts = append(out[i].Facts, f)
	}
	dups := out[:0]
	for _, d := range out {
		if len(d.Facts) > 1 {
			dups = append(dups, d)
		}
	}
	return dups
}
