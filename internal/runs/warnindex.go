package runs

import (
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/fsx"
)

// The tool hooks run on every tool call, and almost always there is
// nothing to say: no run ever failed in the file about to be edited, and
// the session's record is the one under the id its hooks derive. Listing
// every run to learn that costs tens of milliseconds at a few thousand
// runs; the hook index (Store.Index, under the git directory) answers
// both from a small file:
//
//   - runs: each path that failed runs touched, or that the runs a
//     playbook cites touched, with those runs (WarnIndexed);
//   - cited: the runs playbooks cite;
//   - sessions: a set of hashes of the session ids records carry, so that
//     a session with no record is known to have none (SessionRunIndexed).
//
// The index is keyed by the stamps of the runs directory, each month's
// directory and the playbooks directory, which every record written
// (atomically: a rename), added or removed changes.
//
// Only a holder of the workspace lock writes the index. A record Put
// writes (under the lock, as Put's callers hold it) updates the index in
// the same breath when it was current before the write, so the next hook
// finds it current again: an agent's shell command and its next edit do
// not pay for a rebuild between them. An index built by listing the runs
// is written only when its key was taken FineRacyWindow after the newest
// of its stamps: a change by another program (git) in the same tick of a
// coarse clock could leave the stamps as they were. What is left is a
// change by another program in the same tick as a write of memctl's, in
// the same month directory: the index misses it until the next write
// there.

// warnIndexVersion is part of the index's key: raised whenever its
// layout or what it holds changes, so that an index another memctl wrote
// is built again, not misread.
const warnIndexVersion = 3

type warnIndex struct {
	Key string `json:"key"`
	// Runs maps each recorded path to the runs that name it (failed, or
	// cited by a playbook).
	Runs map[string][]string `json:"runs"`
	// Cited are the runs a playbook cites, sorted.
	Cited []string `json:"cited"`
	// Sessions is a sorted set of sessionHash of every session id a
	// record carries, little-endian, base64: a compact set a hook reads
	// in microseconds at thousands of runs.
	Sessions string `json:"sessions"`
}

// sessionHash is a 64-bit hash of a session id: two ids that share one
// only cost a listing (SessionRunIndexed falls back to SessionRun).
func sessionHash(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

func (x *warnIndex) sessions() []uint64 {
	raw, err := base64.StdEncoding.DecodeString(x.Sessions)
	if err != nil || len(raw)%8 != 0 {
		return nil
	}
	out := make([]uint64, len(raw)/8)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(raw[8*i:])
	}
	return out
}

func (x *warnIndex) setSessions(hs []uint64) {
	slices.Sort(hs)
	hs = slices.Compact(hs)
	raw := make([]byte, 0, 8*len(hs))
	for _, h := range hs {
		raw = binary.LittleEndian.AppendUint64(raw, h)
	}
	x.Sessions = base64.StdEncoding.EncodeToString(raw)
}

// hasSession reports whether a record may carry session id sid.
func (x *warnIndex) hasSession(sid string) bool {
	_, ok := slices.BinarySearch(x.sessions(), sessionHash(sid))
	return ok
}

// add puts r, a record as stored, into the index: its session, and its
// paths when it failed or a playbook cites it.
func (x *warnIndex) add(r *Record, hs *[]uint64) {
	if r.SessionID != "" {
		*hs = append(*hs, sessionHash(r.SessionID))
	}
	if !r.Failed() {
		if _, cited := slices.BinarySearch(x.Cited, r.RunID); !cited {
			return
		}
	}
	add := func(p string) {
		if p = filepath.ToSlash(p); p != "" && !slices.Contains(x.Runs[p], r.RunID) {
			x.Runs[p] = append(x.Runs[p], r.RunID)
		}
	}
	for _, f := range r.FilesChanged {
		add(f)
	}
	for _, e := range r.Errors {
		add(e.File)
	}
}

// drop takes run id out of the paths (its session stays: a record that
// carried it may still do).
func (x *warnIndex) drop(id string) {
	for p, ids := range x.Runs {
		if i := slices.Index(ids, id); i >= 0 {
			if ids = slices.Delete(ids, i, i+1); len(ids) == 0 {
				delete(x.Runs, p)
			} else {
				x.Runs[p] = ids
			}
		}
	}
}

// WarnIndexed is Warn answered from the hook index: only the runs it
// names for req's files are read (the same answer as Warn, which lists
// every run). Without a usable index it is Warn.
func (s Store) WarnIndexed(req WarnRequest) (WarnResult, error) {
	ids, ok := s.warnCandidates(req)
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
// once; ok is false when there is no usable index.
func (s Store) warnCandidates(req WarnRequest) ([]string, bool) {
	files := cleanFiles(req.Files)
	if len(files) == 0 {
		return nil, true
	}
	idx, ok := s.hookIndex(false)
	if !ok {
		return nil, false
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

// SessionRunIndexed is SessionRun answered from the hook index when it
// can be: a session no record carries (a session's first tool call) gets
// the id a flush of runtime would give it without a listing. The caller
// holds the workspace lock.
func (s Store) SessionRunIndexed(runtime, sessionID string) (id string, found bool, err error) {
	derived := SessionRunID(runtime, sessionID)
	if _, err := s.Find(derived); err == nil {
		return derived, true, nil
	}
	if idx, ok := s.hookIndex(true); ok && !idx.hasSession(sessionID) {
		return derived, false, nil
	}
	return s.SessionRun(runtime, sessionID)
}

// hookIndex is the index as the runs are now: read, else built (and
// written when locked says the caller holds the workspace lock, or the
// lock can be taken at once, and the key is settled). ok is false when
// there is no index to use (Store.Index is "", or the runs cannot be
// listed).
func (s Store) hookIndex(locked bool) (warnIndex, bool) {
	if s.Index == "" {
		return warnIndex{}, false
	}
	key, _, ok := s.indexKey()
	if !ok {
		return warnIndex{}, false
	}
	if idx, ok := s.readIndex(key); ok {
		return idx, true
	}
	if !locked && s.TryLock != nil {
		if release, ok := s.TryLock(); ok {
			defer release()
			locked = true
			// Taken under the lock: no memctl writes the runs while the
			// index is built.
			if key, _, ok = s.indexKey(); !ok {
				return warnIndex{}, false
			}
			if idx, ok := s.readIndex(key); ok {
				return idx, true
			}
		}
	}
	var idx warnIndex
	built := false
	if locked && os.MkdirAll(filepath.Dir(s.Index), 0o755) == nil {
		// Built inside the write of the index, so that the file system's
		// clock says when it started: the temporary file's time, taken
		// before the runs are listed. Too near the newest stamp, nothing
		// is written (errUnsettled).
		_ = fsx.WriteDerivedFunc(s.Index, func(w io.Writer) error {
			f, ok := w.(interface{ Stat() (os.FileInfo, error) })
			if !ok {
				return errUnsettled
			}
			fi, err := f.Stat()
			if err != nil {
				return err
			}
			var newest int64
			if idx, newest, err = s.buildIndex(key); err != nil {
				return err
			}
			built = true
			if !fsx.SettledFine(fi.ModTime().UnixNano(), newest) {
				return errUnsettled
			}
			data, err := json.Marshal(idx)
			if err != nil {
				return err
			}
			_, err = w.Write(data)
			return err
		})
	}
	if !built {
		var err error
		if idx, _, err = s.buildIndex(key); err != nil {
			return warnIndex{}, false
		}
	}
	return idx, true
}

// errUnsettled stops the write of an index whose key may have been taken
// in the tick of a change it does not hold.
var errUnsettled = errors.New("the index's key is within the racy window")

// readIndex is the index file when its key is key.
func (s Store) readIndex(key string) (warnIndex, bool) {
	var idx warnIndex
	data, err := os.ReadFile(s.Index)
	if err != nil || json.Unmarshal(data, &idx) != nil || idx.Key != key || idx.Runs == nil {
		return warnIndex{}, false
	}
	return idx, true
}

// writeIndex replaces the index file; failing costs only speed.
func (s Store) writeIndex(idx warnIndex) {
	data, err := json.Marshal(idx)
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(s.Index), 0o755); err == nil {
		_ = fsx.WriteDerived(s.Index, data)
	}
}

// indexKey is the stamps of the runs directory, its months and the
// playbooks directory, hashed, and the newest of their times.
func (s Store) indexKey() (string, int64, bool) {
	h := sha256.New()
	fmt.Fprintf(h, "hook index %d\n", warnIndexVersion)
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
	if s.Playbooks != "" && !add(s.Playbooks) {
		return "", 0, false
	}
	return hex.EncodeToString(h.Sum(nil)), newest, true
}

// buildIndex lists the runs and the playbooks into the index of key, and
// says the newest time among the stamps of key's sources as taken now.
func (s Store) buildIndex(key string) (warnIndex, int64, error) {
	_, newest, _ := s.indexKey()
	l, err := s.List(Filter{})
	if err != nil {
		return warnIndex{}, 0, err
	}
	books, err := readPlaybooks(s.Playbooks, "")
	if err != nil {
		return warnIndex{}, 0, err
	}
	idx := warnIndex{Key: key, Runs: map[string][]string{}}
	for _, b := range books {
		for _, ev := range b.Evidence {
			if id, ok := strings.CutPrefix(ev, "run:"); ok {
				idx.Cited = append(idx.Cited, id)
			}
		}
	}
	slices.Sort(idx.Cited)
	idx.Cited = slices.Compact(idx.Cited)
	var hs []uint64
	for _, e := range l.Entries {
		idx.add(e.Record, &hs)
	}
	idx.setSessions(hs)
	return idx, newest, nil
}

// indexPut carries a record Put wrote (stored, as it now is) into the
// index, when the index held the runs as they were before the write
// (before: the key then; "" for no index): the index stays current
// without a rebuild. The caller holds the workspace lock.
func (s Store) indexPut(before string, stored *Record) {
	if before == "" {
		return
	}
	idx, ok := s.readIndex(before)
	if !ok {
		return
	}
	after, _, ok := s.indexKey()
	if !ok {
		return
	}
	idx.drop(stored.RunID)
	hs := idx.sessions()
	idx.add(stored, &hs)
	idx.setSessions(hs)
	idx.Key = after
	s.writeIndex(idx)
}

// indexBefore is the index's key before a write of Put: "" when there is
// no index to keep current.
func (s Store) indexBefore() string {
	if s.Index == "" {
		return ""
	}
	key, _, ok := s.indexKey()
	if !ok {
		return ""
	}
	return key
}
