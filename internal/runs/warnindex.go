package runs

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

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
// directory, the playbooks directory and each playbook (through a link),
// which every record written (atomically: a rename), added or removed, and
// every playbook changed, changes.
//
// Only a holder of the workspace lock writes the index. A record Put
// writes (under the lock, as Put's callers hold it) is carried into the
// index in the same breath when the index was current before the write
// and nothing but that record changed meanwhile: every other stamp as it
// was, the record's month holding the names it held and the record's.
// Put removes the index file before writing the record and writes it
// back after, so a Put cut short leaves none. So an agent's shell command
// and its next edit do not pay for a rebuild between them. An index built
// by listing the runs is written only when its key was taken after the
// racy window (fsx.SettledFine: 100 ms, 2 s where the file system keeps
// whole seconds) from the newest of its stamps: a change by another
// program (git) in the same tick of a coarse clock could leave the stamps
// as they were. For the same reason Put does not carry the index on a
// file system that keeps whole seconds.
//
// What is left: a change another program makes in the record's month in
// the same tick of the file system's clock as memctl's write (one tick of
// a fine clock; none on Linux 6.13 and later, whose file systems take a
// fine time for a change that follows a look), and a record edited in
// place (its directory's stamp stays). An index carried from write to
// write is built again once it is ten minutes older than the newest
// change or the clock (carryLimit), which bounds how long such a miss
// lasts. memctl import and gc remove the index.

// carryLimit is how far the runs may move on (their newest stamp), or the
// clock (Store.Now), from the index's last full build before a hook builds
// it again.
const carryLimit = 10 * time.Minute

// warnIndexVersion is part of the index's key: raised whenever its
// layout or what it holds changes, so that an index another memctl wrote
// is built again, not misread.
const warnIndexVersion = 4

type warnIndex struct {
	Key string
	// Built is when the index was last built from a listing (the file
	// system's time, Unix nanoseconds); writes carry it on.
	Built int64
	// Runs maps each recorded path to the runs that name it (failed, or
	// cited by a playbook).
	Runs map[string][]string
	// Cited are the runs a playbook cites, sorted.
	Cited []string
	// Sessions is a sorted set of sessionHash of every session id a
	// record carries, little-endian, base64: a compact set a hook reads
	// in microseconds at thousands of runs.
	Sessions string
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
	slices.SortFunc(l.Entries, NewestFirst)
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
	st, ok := s.indexStamps()
	if !ok {
		return warnIndex{}, false
	}
	key := st.key()
	if idx, ok := s.readIndex(key, st.newest); ok {
		return idx, true
	}
	if !locked && s.TryLock != nil {
		if release, ok := s.TryLock(); ok {
			defer release()
			locked = true
			// Taken under the lock: no memctl writes the runs while the
			// index is built.
			if st, ok = s.indexStamps(); !ok {
				return warnIndex{}, false
			}
			key = st.key()
			if idx, ok := s.readIndex(key, st.newest); ok {
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
			if idx, err = s.buildIndex(key); err != nil {
				return err
			}
			built = true
			idx.Built = fi.ModTime().UnixNano()
			if !fsx.SettledFine(idx.Built, st.newest) {
				return errUnsettled
			}
			_, err = w.Write(idx.encode())
			return err
		})
	}
	if !built {
		var err error
		if idx, err = s.buildIndex(key); err != nil {
			return warnIndex{}, false
		}
	}
	return idx, true
}

// ForgetIndex removes the hook index, for a writer that changes the runs
// or playbooks other than through Put (import): the next hook builds it
// again. The caller holds the workspace lock.
func (s Store) ForgetIndex() {
	if s.Index != "" {
		_ = os.Remove(s.Index)
	}
}

// errUnsettled stops the write of an index whose key may have been taken
// in the tick of a change it does not hold.
var errUnsettled = errors.New("the index's key is within the racy window")

// readIndex is the index file when its key is key and it was built from
// a listing less than carryLimit before newest, the newest stamp.
func (s Store) readIndex(key string, newest int64) (warnIndex, bool) {
	data, err := os.ReadFile(s.Index)
	if err != nil {
		return warnIndex{}, false
	}
	idx, ok := decodeIndex(data)
	if !ok || idx.Key != key {
		return warnIndex{}, false
	}
	if s.Now != nil {
		newest = max(newest, s.Now().UnixNano()) // a miss carried on lasts ten minutes, writes or none
	}
	if newest-idx.Built > int64(carryLimit) {
		return warnIndex{}, false
	}
	return idx, true
}

// writeIndex replaces the index file; failing costs only speed.
func (s Store) writeIndex(idx warnIndex) {
	if err := os.MkdirAll(filepath.Dir(s.Index), 0o755); err == nil {
		_ = fsx.WriteDerived(s.Index, idx.encode())
	}
}

// The index file is text, read in a hook's every call: a first line, then
// key, built, cited (the run ids), sessions (sessionHash set, base64) and
// a line per path: the path (quoted as Go quotes strings when it holds a
// tab, a line break or starts with a quote), a tab, its run ids. Run ids
// hold no space (ValidRunID). JSON took a millisecond to read at 5,000
// runs; this takes a tenth of one.
const indexMagic = "memctl hook index"

func (x warnIndex) encode() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nkey %s\nbuilt %d\ncited %s\nsessions %s\n", indexMagic, x.Key, x.Built, strings.Join(x.Cited, " "), x.Sessions)
	paths := make([]string, 0, len(x.Runs))
	for p := range x.Runs {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		shown := p
		if strings.ContainsAny(p, "\t\n\r") || strings.HasPrefix(p, `"`) {
			shown = strconv.Quote(p)
		}
		b.WriteString(shown)
		b.WriteByte('\t')
		b.WriteString(strings.Join(x.Runs[p], " "))
		b.WriteByte('\n')
	}
	b.WriteString("end\n") // a file cut short is no index
	return []byte(b.String())
}

// decodeIndex reads an index file; ok is false for anything else.
func decodeIndex(data []byte) (warnIndex, bool) {
	text := string(data)
	x := warnIndex{Runs: map[string][]string{}}
	field := func(name string) (string, bool) {
		line, rest, ok := strings.Cut(text, "\n")
		v, okName := strings.CutPrefix(line, name)
		text = rest
		return strings.TrimPrefix(v, " "), ok && okName
	}
	if line, ok := field(indexMagic); !ok || line != "" {
		return x, false
	}
	var ok bool
	var built, cited string
	if x.Key, ok = field("key"); !ok {
		return x, false
	}
	if built, ok = field("built"); !ok {
		return x, false
	}
	n, err := strconv.ParseInt(built, 10, 64)
	if err != nil {
		return x, false
	}
	x.Built = n
	if cited, ok = field("cited"); !ok {
		return x, false
	}
	x.Cited = strings.Fields(cited)
	if x.Sessions, ok = field("sessions"); !ok {
		return x, false
	}
	if raw, err := base64.StdEncoding.DecodeString(x.Sessions); err != nil || len(raw)%8 != 0 {
		return x, false
	}
	body, ok := strings.CutSuffix(text, "end\n")
	if !ok || body != "" && !strings.HasSuffix(body, "\n") {
		return x, false
	}
	for line := range strings.Lines(body) {
		p, ids, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
		if !ok {
			return x, false
		}
		if strings.HasPrefix(p, `"`) {
			if p, err = strconv.Unquote(p); err != nil {
				return x, false
			}
		}
		x.Runs[p] = strings.Fields(ids)
	}
	return x, true
}

// indexStamps are the stamps the index is keyed by, by path: the runs
// directory, each month's directory, the playbooks directory and each
// file in it (a playbook edited in place changes only its own). newest
// is the newest of their times.
type indexStamps struct {
	paths  []string
	stamps map[string]fsx.Stamp
	newest int64
}

func (s Store) indexStamps() (indexStamps, bool) {
	st := indexStamps{stamps: map[string]fsx.Stamp{}}
	add := func(p string, fs fsx.Stamp) {
		st.paths = append(st.paths, p)
		st.stamps[p] = fs
		st.newest = max(st.newest, fs.Newest())
	}
	stat := func(p string) bool {
		fs, err := fsx.StatStamp(p)
		if err != nil && !os.IsNotExist(err) {
			return false
		}
		add(p, fs)
		return true
	}
	months, err := s.months()
	if err != nil || !stat(s.Dir) {
		return st, false
	}
	for _, m := range months {
		if !stat(filepath.Join(s.Dir, m)) {
			return st, false
		}
	}
	if s.Playbooks != "" {
		if !stat(s.Playbooks) {
			return st, false
		}
		books, err := fsx.StampsFollow(s.Playbooks) // a linked playbook is read through its link
		if err != nil && !os.IsNotExist(err) {
			return st, false
		}
		for _, b := range books {
			add(filepath.Join(s.Playbooks, b.Name), b)
		}
	}
	return st, true
}

// key is the stamps hashed, with the index's format version.
func (st indexStamps) key() string {
	h := sha256.New()
	fmt.Fprintf(h, "hook index %d\n", warnIndexVersion)
	for _, p := range st.paths {
		fs := st.stamps[p]
		fmt.Fprintf(h, "%s %d %d %d %d\n", p, fs.Size, fs.ModTime, fs.ChangeTime, fs.Ino)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// buildIndex lists the runs and the playbooks into the index of key.
func (s Store) buildIndex(key string) (warnIndex, error) {
	l, err := s.List(Filter{})
	if err != nil {
		return warnIndex{}, err
	}
	books, err := readPlaybooks(s.Playbooks, "")
	if err != nil {
		return warnIndex{}, err
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
	return idx, nil
}

// putState is what Put saw of the index before writing a record: the
// stamps, and the names the record's month directory held.
type putState struct {
	idx      warnIndex
	stamps   indexStamps
	month    string   // the record's month directory
	names    []string // its names before the write, sorted
	newMonth bool     // Put makes the month
}

// indexBefore is the index's state before Put writes the record at file:
// nil when there is no current index to keep current. The month's names
// are read first: a change after them shows in the stamps read next, or
// in the names indexPut reads.
func (s Store) indexBefore(file string) *putState {
	if s.Index == "" {
		return nil
	}
	ps := &putState{month: filepath.Dir(file)}
	names, err := readNames(ps.month)
	switch {
	case err == nil:
		slices.Sort(names)
		ps.names = names
	case os.IsNotExist(err):
		ps.newMonth = true
	default:
		return nil
	}
	st, ok := s.indexStamps()
	if !ok {
		return nil
	}
	idx, ok := s.readIndex(st.key(), st.newest)
	if !ok {
		return nil
	}
	ps.idx, ps.stamps = idx, st
	return ps
}

// indexPut carries a record Put wrote (stored, as it now is, in file)
// into the index, which held the runs as they were before the write
// (before; Put removed the index file before writing, so that a Put cut
// short leaves none), when nothing else changed meanwhile: every stamp but
// the record's month's (and the runs directory's, for a month the write
// made) as it was, and the month's names those it had and the record's.
// Otherwise something else wrote too (git, at the same moment), and the
// index stays removed: the next hook builds it again. Nor is it written
// back when the file system keeps whole seconds: a change another program
// makes later in the same second would leave every stamp as it is. The
// caller holds the workspace lock.
func (s Store) indexPut(before *putState, file string, stored *Record) {
	if before == nil {
		return
	}
	idx := before.idx
	after, ok := s.indexStamps()
	if !ok || after.newest%int64(time.Second) == 0 || !before.onlyRecord(after, filepath.Base(file)) {
		return
	}
	idx.drop(stored.RunID)
	hs := idx.sessions()
	idx.add(stored, &hs)
	idx.setSessions(hs)
	idx.Key = after.key()
	s.writeIndex(idx)
}

// onlyRecord reports whether after differs from the stamps before only as
// the write of the record named base explains.
func (ps *putState) onlyRecord(after indexStamps, base string) bool {
	extra := 0
	if ps.newMonth {
		extra = 1
	}
	if len(after.paths) != len(ps.stamps.paths)+extra {
		return false
	}
	for _, p := range after.paths {
		old, had := ps.stamps.stamps[p]
		switch {
		case p == ps.month:
			if had == ps.newMonth {
				return false
			}
		case !had:
			return false
		case ps.newMonth && p == filepath.Dir(ps.month):
			// the runs directory: the month made in it changed its stamp
		case old != after.stamps[p]:
			return false
		}
	}
	want := slices.Clone(ps.names)
	if i, found := slices.BinarySearch(want, base); !found {
		want = slices.Insert(want, i, base)
	}
	names, err := readNames(ps.month)
	slices.Sort(names)
	return err == nil && slices.Equal(names, want)
}

// readNames lists a directory's names without a stat each.
func readNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}
