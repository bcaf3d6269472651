package runs

import (
	"cmp"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/ledger"
)

// WarnRequest asks what went wrong before in some files.
type WarnRequest struct {
	// Files are the files about to be touched, relative to the
	// repository root (either separator; "./" is dropped).
	Files []string
	// PlaybooksDir is the playbooks directory on disk, PlaybooksRel its
	// name in results (.ledger/playbooks); "" reads no playbooks.
	PlaybooksDir, PlaybooksRel string
}

// WarnResult is what Warn found: the failed runs that touched the files and
// the playbooks about them, each newest first.
type WarnResult struct {
	// Files are the request's files, cleaned, sorted and without repeats.
	Files     []string
	Runs      []RunWarning
	Playbooks []PlaybookWarning
	// Problems are run files that could not be read (left out).
	Problems []error
}

// RunWarning is a past run that failed and touched some of the files.
type RunWarning struct {
	Entry Entry
	// Files are the request's files it changed or had an error in.
	Files []string
	// Errors are its errors, those in the files first, each with the
	// path of its signature's playbook when there is one.
	Errors      []WarnError
	FailedTests []string
}

// WarnError is an error a run met, and the playbook of its signature ("":
// none).
type WarnError struct {
	Error
	Playbook string
}

// PlaybookWarning is a playbook about the files: one of its evidence runs
// touched them, or a run that failed in them met its signature.
type PlaybookWarning struct {
	Signature string
	Path      string
	Title     string
	// Runs are the runs that link it to the files, newest first; Time is
	// the newest one's.
	Runs []string
	Time time.Time
}

// Failed reports whether the run went wrong: its status is failure or
// partial, or it met an error or a failing test.
func (r *Record) Failed() bool {
	return r.Status == StatusFailure || r.Status == StatusPartial || len(r.Errors) > 0 ||
		slices.ContainsFunc(r.Tests, func(t Test) bool { return t.Status == TestFail })
}

// Warn lists the past failed runs whose files_changed or error files
// include req.Files, and the playbooks whose evidence runs touched them or
// whose signature those failures met. It reads the list cache, so it is
// cheap enough for every session start; no files asks nothing.
func (s Store) Warn(req WarnRequest) (WarnResult, error) {
	if len(cleanFiles(req.Files)) == 0 {
		return WarnResult{Files: cleanFiles(req.Files)}, nil
	}
	l, err := s.List(Filter{})
	if err != nil {
		return WarnResult{Files: cleanFiles(req.Files)}, err
	}
	return WarnListed(l, req)
}

// WarnListed is Warn over runs already listed (List with no filter), for
// a caller that needs the list for more than the warnings (memctl prime):
// the list is read once. The listing's problems are the result's.
func WarnListed(l Listing, req WarnRequest) (WarnResult, error) {
	res := WarnResult{Files: cleanFiles(req.Files)}
	if len(res.Files) == 0 {
		return res, nil
	}
	res.Problems = l.Problems
	books, err := readPlaybooks(req.PlaybooksDir, req.PlaybooksRel)
	if err != nil {
		return res, err
	}
	bySig := make(map[string]*ledger.Playbook, len(books))
	for _, b := range books {
		bySig[b.Signature] = b
	}
	linked := map[string][]Entry{} // playbook signature → runs that link it, newest first
	touchedBy := map[string]Entry{}
	for _, e := range l.Entries { // newest first
		files := touched(e.Record, res.Files)
		if len(files) == 0 {
			continue
		}
		touchedBy[e.Record.RunID] = e
		if !e.Record.Failed() {
			continue
		}
		w := RunWarning{Entry: e, Files: files, Errors: warnErrors(e.Record, res.Files, bySig), FailedTests: e.Record.FailedTests()}
		res.Runs = append(res.Runs, w)
		for _, we := range w.Errors {
			if we.Playbook != "" && !slices.ContainsFunc(linked[we.Signature], sameRun(e)) {
				linked[we.Signature] = append(linked[we.Signature], e)
			}
		}
	}
	for _, b := range books {
		for _, ev := range b.Evidence {
			id, ok := strings.CutPrefix(ev, "run:")
			if e, hit := touchedBy[id]; ok && hit && !slices.ContainsFunc(linked[b.Signature], sameRun(e)) {
				linked[b.Signature] = append(linked[b.Signature], e)
			}
		}
		if runs := linked[b.Signature]; len(runs) > 0 {
			res.Playbooks = append(res.Playbooks, playbookWarning(b, runs))
		}
	}
	slices.SortFunc(res.Playbooks, func(a, b PlaybookWarning) int {
		if c := b.Time.Compare(a.Time); c != 0 {
			return c
		}
		return cmp.Compare(a.Signature, b.Signature)
	})
	return res, nil
}

func sameRun(e Entry) func(Entry) bool {
	return func(o Entry) bool { return o.Record.RunID == e.Record.RunID }
}

func playbookWarning(b *ledger.Playbook, runs []Entry) PlaybookWarning {
	slices.SortStableFunc(runs, func(x, y Entry) int { return y.Record.SortTime().Compare(x.Record.SortTime()) })
	w := PlaybookWarning{Signature: b.Signature, Path: b.Path, Title: b.Title(), Time: runs[0].Record.SortTime()}
	for _, e := range runs {
		w.Runs = append(w.Runs, e.Record.RunID)
	}
	return w
}

// readPlaybooks reads the playbooks that name a signature.
func readPlaybooks(dir, rel string) ([]*ledger.Playbook, error) {
	if dir == "" {
		return nil, nil
	}
	names, err := ledger.PlaybookNames(dir, rel)
	if err != nil {
		return nil, err
	}
	var out []*ledger.Playbook
	for _, n := range names {
		p, err := ledger.ReadPlaybook(filepath.Join(dir, n), path.Join(rel, n))
		if err != nil {
			return nil, err
		}
		if p != nil && p.Signature != "" {
			out = append(out, p)
		}
	}
	return out, nil
}

// cleanFiles makes the files slash paths without "./", sorted, once each.
func cleanFiles(files []string) []string {
	var out []string
	for _, f := range files {
		f = strings.TrimSpace(filepath.ToSlash(f))
		if f == "" {
			continue
		}
		if f = strings.TrimPrefix(path.Clean(f), "./"); f != "." {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// sameFile reports whether a path a record names is one of the files: the
// same path, or one ends with the other after a slash (a record may name
// a file absolutely, or by its base name as a stack trace does).
func sameFile(recorded, file string) bool {
	recorded = filepath.ToSlash(recorded)
	if recorded == "" {
		return false
	}
	return recorded == file || strings.HasSuffix(recorded, "/"+file) || strings.HasSuffix(file, "/"+recorded)
}

// touched are the files the run changed or had an error in.
func touched(r *Record, files []string) []string {
	var out []string
	for _, f := range files {
		hit := slices.ContainsFunc(r.FilesChanged, func(c string) bool { return sameFile(c, f) }) ||
			slices.ContainsFunc(r.Errors, func(e Error) bool { return sameFile(e.File, f) })
		if hit {
			out = append(out, f)
		}
	}
	return out
}

// warnErrors are the run's errors, those in the files first, with their
// playbooks.
func warnErrors(r *Record, files []string, books map[string]*ledger.Playbook) []WarnError {
	out := make([]WarnError, 0, len(r.Errors))
	for _, e := range r.Errors {
		w := WarnError{Error: e}
		if b := books[e.Signature]; b != nil {
			w.Playbook = b.Path
		}
		out = append(out, w)
	}
	inFiles := func(w WarnError) bool {
		return slices.ContainsFunc(files, func(f string) bool { return sameFile(w.File, f) })
	}
	slices.SortStableFunc(out, func(a, b WarnError) int {
		switch ia, ib := inFiles(a), inFiles(b); {
		case ia && !ib:
			return -1
		case ib && !ia:
			return 1
		}
		return 0
	})
	return out
}

// FailedTests are the names of the tests that failed in the run.
func (r *Record) FailedTests() []string {
	var out []string
	for _, t := range r.Tests {
		if t.Status == TestFail {
			out = append(out, t.Name)
		}
	}
	return out
}
