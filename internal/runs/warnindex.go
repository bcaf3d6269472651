package runs

import (
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
// nothing to say. MayWarn answers that without listing the runs: a small
// derived index (under the git directory) holds the paths of the files
// that failed runs touched and that the runs a playbook cites touched. A
// file none of them matches has no warning; only a hit
// pays for Warn (the index answers as sameFile matches: a recorded path
// and a file match when one is the other or ends with "/" and the other).
// The index is keyed by the stamps of the runs and
// playbooks directories and of each month's directory, which every
// record written (atomically: a rename), added or removed changes; a key
// taken within fsx.FineRacyWindow of the newest of them (RacyWindow for
// whole-second times) is not trusted.

type warnIndex struct {
	Key string `json:"key"`
	// Paths are the recorded paths, Tails every one's suffixes at a "/"
	// (the path itself included); both sorted.
	Paths []string `json:"paths"`
	Tails []string `json:"tails"`
}

// MayWarn reports whether Warn could find something for req's files: false
// means certainly not. indexPath is the index's file ("" for none: then
// it is always true). Any problem answers true: Warn will tell.
func (s Store) MayWarn(req WarnRequest, indexPath string) bool {
	files := cleanFiles(req.Files)
	if len(files) == 0 {
		return false
	}
	if indexPath == "" {
		return true
	}
	key, newest, ok := s.warnKey(req.PlaybooksDir)
	if !ok {
		return true
	}
	var idx warnIndex
	if fi, err := os.Stat(indexPath); err == nil && fsx.SettledFine(fi.ModTime().UnixNano(), newest) {
		if data, err := os.ReadFile(indexPath); err == nil && json.Unmarshal(data, &idx) == nil && idx.Key == key {
			return idx.matches(files)
		}
	}
	idx, err := s.warnPaths(req)
	if err != nil {
		return true
	}
	idx.Key = key
	if data, err := json.Marshal(idx); err == nil {
		if err := os.MkdirAll(filepath.Dir(indexPath), 0o755); err == nil {
			_ = fsx.WriteDerived(indexPath, data)
		}
	}
	return idx.matches(files)
}

// matches reports whether a recorded path matches one of files, as
// sameFile does: the file is a recorded path's suffix (the path itself
// included), or a recorded path is one of the file's suffixes.
func (idx warnIndex) matches(files []string) bool {
	for _, f := range files {
		if _, ok := slices.BinarySearch(idx.Tails, f); ok {
			return true
		}
		for i := 0; i < len(f); i++ {
			if f[i] == '/' {
				if _, ok := slices.BinarySearch(idx.Paths, f[i+1:]); ok {
					return true
				}
			}
		}
	}
	return false
}

// warnKey is the stamps of the runs directory, its months and the
// playbooks directory, hashed, and the newest of their times.
func (s Store) warnKey(playbooksDir string) (string, int64, bool) {
	h := sha256.New()
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

// warnPaths is the index of the files Warn could name: those failed
// runs touched, and those the runs cited by playbooks touched.
func (s Store) warnPaths(req WarnRequest) (warnIndex, error) {
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
	paths, tails := map[string]bool{}, map[string]bool{}
	add := func(p string) {
		if p = filepath.ToSlash(p); p == "" {
			return
		}
		paths[p] = true
		tails[p] = true
		for i := 0; i < len(p); i++ {
			if p[i] == '/' {
				tails[p[i+1:]] = true
			}
		}
	}
	for _, e := range l.Entries {
		r := e.Record
		if !r.Failed() && !cited[r.RunID] {
			continue
		}
		for _, f := range r.FilesChanged {
			add(f)
		}
		for _, x := range r.Errors {
			add(x.File)
		}
	}
	sorted := func(m map[string]bool) []string {
		out := make([]string, 0, len(m))
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	return warnIndex{Paths: sorted(paths), Tails: sorted(tails)}, nil
}
