package runs

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/fsx"
)

// A tool hook asks Warn before every edit, and almost always there is
// nothing to say. WarnIndexed answers that without listing the runs: a small
// derived index (under the git directory) holds the paths of the files
// that failed runs touched and that the runs a playbook cites touched. A
// file none of them matches has no warning; only a hit
// pays, and then only for the runs the index names (WarnIndexed).
// The index is keyed by the stamps of the runs and
// playbooks directories and of each month's directory, which every
// record written (atomically: a rename), added or removed changes; a key
// taken within fsx.FineRacyWindow of the newest of them (RacyWindow for
// whole-second times) is not trusted.

// warnIndexVersion is part of the index's key: raised whenever its
// layout or what it holds changes, so that an index another memctl wrote
// is built again, not misread.
const warnIndexVersion = 2

type warnIndex struct {
	Key string `json:"key"`
	// Runs maps each recorded path to the runs that name it (failed, or
	// cited by a playbook).
	Runs map[string][]string `json:"runs"`
}

// WarnIndexed is Warn answered from the index: only the runs it names
// for req's files are read (the same answer as Warn, which lists every
// run). Without a usable index it is Warn.
func (s Store) WarnIndexed(req WarnRequest, indexPath string) (WarnResult, error) {
	ids, ok := s.warnCandidates(req, indexPath)
	if !ok {
		return s.Warn(req)
	}
	var l Listing
	for _, id := range ids {
		e, err := s.Get(id)
		if err != nil {
			return s.Warn(req) // gone or unreadable since the index: ask the files
		}
		l.Entries = append(l.Entries, e)
	}
	slices.SortFunc(l.Entries, func(a, b Entry) int {
		if c := b.Record.SortTime().Compare(a.Record.SortTime()); c != 0 {
			return c
		}
		return cmp.Compare(a.Record.RunID, b.Record.RunID)
	})
	return WarnListed(l, req)
}

// warnCandidates are the runs the index names for req's files, each
// once; ok is false when there is no usable index (none asked for, or it
// could not be built).
func (s Store) warnCandidates(req WarnRequest, indexPath string) ([]string, bool) {
	files := cleanFiles(req.Files)
	if len(files) == 0 {
		return nil, true
	}
	if indexPath == "" {
		return nil, false
	}
	key, newest, ok := s.warnKey(req.PlaybooksDir)
	if !ok {
		return nil, false
	}
	var idx warnIndex
	fresh := false
	if fi, err := os.Stat(indexPath); err == nil && fsx.SettledFine(fi.ModTime().UnixNano(), newest) {
		if data, err := os.ReadFile(indexPath); err == nil && json.Unmarshal(data, &idx) == nil && idx.Key == key {
			fresh = true
		}
	}
	if !fresh {
		var err error
		if idx, err = s.warnRuns(req); err != nil {
			return nil, false
		}
		idx.Key = key
		if data, err := json.Marshal(idx); err == nil {
			if err := os.MkdirAll(filepath.Dir(indexPath), 0o755); err == nil {
				_ = fsx.WriteDerived(indexPath, data)
			}
		}
	}
	var ids []string
	for p, runs := range idx.Runs {
		if slices.ContainsFunc(files, func(f string) bool { return sameFile(p, f) }) {
			for _, id := range runs {
				if !slices.Contains(ids, id) {
					ids = append(ids, id)
				}
			}
		}
	}
	slices.Sort(ids)
	return ids, true
}

// warnKey is the stamps of the runs directory, its months and the
// playbooks directory, hashed, and the newest of their times.
func (s Store) warnKey(playbooksDir string) (string, int64, bool) {
	h := sha256.New()
	fmt.Fprintf(h, "warn index %d\n", warnIndexVersion)
	var newest int64
	add := func(p string) bool {
		st, err := fsx.StatStamp(p)
		if err != nil && !os.IsNotExist(err) {
			return false
		}
		fmt.Fprintf(h, "%s %d %d %d %d\n", p, st.Size, st.ModTime, st.ChangeTime, st.Ino)
		newest = max(newest, st.Newest())
		return true
	}
	months, err := s.months()
	if err != nil || !add(s.Dir) {
		return "", 0, false
	}
	for _, m := range months {
		if !add(filepath.Join(s.Dir, m)) {
			return "", 0, false
		}
	}
	if playbooksDir != "" && !add(playbooksDir) {
		return "", 0, false
	}
	return hex.EncodeToString(h.Sum(nil)), newest, true
}

// warnRuns is the index: the paths failed runs touched and the runs
// playbooks cite touched, each with those runs.
func (s Store) warnRuns(req WarnRequest) (warnIndex, error) {
	l, err := s.List(Filter{})
	if err != nil {
		return warnIndex{}, err
	}
	books, err := readPlaybooks(req.PlaybooksDir, req.PlaybooksRel)
	if err != nil {
		return warnIndex{}, err
	}
	cited := map[string]bool{}
	for _, b := range books {
		for _, ev := range b.Evidence {
			if id, ok := strings.CutPrefix(ev, "run:"); ok {
				cited[id] = true
			}
		}
	}
	idx := warnIndex{Runs: map[string][]string{}}
	add := func(p, id string) {
		if p = filepath.ToSlash(p); p != "" && !slices.Contains(idx.Runs[p], id) {
			idx.Runs[p] = append(idx.Runs[p], id)
		}
	}
	for _, e := range l.Entries {
		r := e.Record
		if !r.Failed() && !cited[r.RunID] {
			continue
		}
		for _, f := range r.FilesChanged {
			add(f, r.RunID)
		}
		for _, x := range r.Errors {
			add(x.File, r.RunID)
		}
	}
	return idx, nil
}
