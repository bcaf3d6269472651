package tasks

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/memctl/memctl/internal/fsx"
)

// The derived cache lets read commands skip parsing issues.jsonl: it holds
// the fields the graph and the tables need and the graph itself (blocked
// sets, dependent counts, parents and children), for a file of exactly
// this size, modification time and CRC-32C, with each record's byte range
// in the file. It is never a second source of truth: a cache that does not
// match the file, or that cannot be read, is ignored and rebuilt from the
// file.
//
// The cache is laid out to be used where it is mapped: fixed-size entries
// that refer to strings by offset, so that opening it decodes nothing.
// Writes that keep its shape patch it (writePatch): changed entries are
// rewritten, new strings, labels, lists and entries appended, the rest
// copied.
//
// Trust: a cache whose recorded stamp (fsx.Stamp: size, modification and
// change times, inode) is the file's is used without reading the file,
// unless the file changed within the racy window of the cache's own last
// write (fsx.SettledFine: 100 ms, two seconds for whole-second times)
// (a second change in the same clock tick would keep the stamp): then the
// file's CRC-32C decides, and a match is recorded by rewriting the
// header, which moves the cache's modification time past the window. This
// is git's racy-clean rule; like git's index, the change time catches an
// edit in place whose modification time was put back (cp -p, touch -r).
//
// Format (little endian), a header then the sections in this order:
//
//	header   "MCTC", u32 version, u64 file size, i64 file mtime (ns),
//	         u32 file CRC-32C, u32 flags (1: CRLF file, 2: BOM, 4: a
//	         waits-for edge),
//	         u32 records, u32 live issues, u32 label refs, u32 edges,
//	         u32 blocker refs, u32 index-list entries, u32 id-hash slots,
//	         u32 strings size, i64 the highest integer comment id, u32
//	         comment ids (1: integers, 2: strings), 4 bytes zero, i64 file
//	         change time (ns), u64 file inode (0 where the platform has
//	         none; 96 in all)
//	records  one entry of entrySize bytes per line (layout at the e*
//	         offsets below)
//	labels   label refs: u32 offset, u32 length into strings
//	edges    4 refs each: issue_id, depends_on_id, type, metadata
//	blockers refs: the ids that block each blocked issue
//	index    u32 record numbers: parents, children and dependents lists
//	hash     u32 slots: 1 + the record of an id (0: empty), open addressing
//	         on FNV-1a of the id
//	strings  the bytes the refs point into
const (
	cacheMagic = "MCTC"
	// cacheVersion 1: the first format.
	// cacheVersion 2: total label and edge counts after the record count.
	// cacheVersion 3: fixed-size entries used in place; the graph; trust
	// by size and modification time.
	// cacheVersion 4: lists by record; each issue's dependents.
	// cacheVersion 5: the comment ids in use, in the header.
	// cacheVersion 6: the file's change time and inode, in the header.
	//
	// Raise it also when what Parse accepts changes: a cache vouches for
	// its file's validity (Vouched).
	cacheVersion = 6
	headerSize   = 96
	entrySize    = 160
)

// Entry field offsets.
const (
	eLine     = 0
	eStart    = 4
	eEnd      = 8
	eKind     = 12
	eFlags    = 13
	eID       = 16
	eTitle    = 24
	eStatus   = 32
	eType     = 40
	eAssignee = 48
	ePriority = 56
	eComments = 60
	eCreated  = 64
	eUpdated  = 72
	eStarted  = 80
	eClosed   = 88
	eDefer    = 96
	eLabels   = 104 // u32 first, u32 count
	eDeps     = 112
	eAllIn    = 120
	eBlocksIn = 124
	eBlocked  = 128 // u32 first, u32 count into blockers
	eParents  = 136 // u32 first, u32 count into index: record numbers
	eChildren = 144
	eIn       = 152 // the records with an edge to this one, each once
)

// Header flags.
const (
	flagCRLF  = 1
	flagBOM   = 2
	flagWaits = 4 // some issue has a waits-for edge
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// LoadCached reads path like Load, using and refreshing the cache file at
// cachePath. Save on the returned store refreshes the cache too.
func LoadCached(path, cachePath string) (*Store, error) {
	data, stamp, err := fsx.ReadMappedStamp(path)
	if errors.Is(err, os.ErrNotExist) {
		s := &Store{byID: map[string]*Issue{}, lf: true, cachePath: cachePath}
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	if c, cfi, err := fsx.ReadMappedStat(cachePath); err == nil {
		if s, ok := openCache(c, cfi, data, stamp, cachePath); ok {
			s.cachePath = cachePath
			return s, nil
		}
	}
	s, err := Parse(data)
	if err != nil {
		return nil, err
	}
	s.cachePath = cachePath
	commitCache(s.writeCache(len(data), crc32.Checksum(data, castagnoli), stamp))
	return s, nil
}

// openCache checks the cache c against the file data and decodes it.
func openCache(c []byte, cfi fs.FileInfo, data []byte, stamp fsx.Stamp, cachePath string) (*Store, bool) {
	if !cacheMatches(c, cfi, data, stamp, cachePath) {
		return nil, false
	}
	return decodeCache(c, data)
}

// cacheMatches reports whether the cache c (file info cfi) was built from
// data (the file's stamp: stamp), by the rule in the format comment.
func cacheMatches(c []byte, cfi fs.FileInfo, data []byte, stamp fsx.Stamp, cachePath string) bool {
	if len(c) < headerSize || string(c[:4]) != cacheMagic || le.Uint32(c[4:]) != cacheVersion ||
		le.Uint64(c[8:]) != uint64(len(data)) {
		return false
	}
	sameStamp := bytes.Equal(c[16:24], le.AppendUint64(nil, uint64(stamp.ModTime))) &&
		bytes.Equal(c[80:96], headerStampTail(stamp))
	if !sameStamp || !fsx.SettledFine(cfi.ModTime().UnixNano(), stamp.Newest()) {
		if le.Uint32(c[24:]) != crc32.Checksum(data, castagnoli) {
			return false
		}
		// The content matches: record the file's stamp as of now, so the
		// next reader trusts it without the checksum.
		trustLater(cachePath, cfi, c[:headerSize], stamp)
	}
	return true
}

// headerStampTail is the header's bytes 80 to 96: the file's change time
// and inode.
func headerStampTail(stamp fsx.Stamp) []byte {
	return le.AppendUint64(le.AppendUint64(nil, uint64(stamp.ChangeTime)), stamp.Ino)
}

// Vouched reports whether the cache at cachePath was built from data, the
// content of a file with that stamp, and returns the file's number of
// records. A cache is only ever written for a file that Parse accepted
// (cacheVersion is raised whenever what Parse accepts changes), so a
// match proves that ValidateJSONL would find nothing: check uses it to
// skip validating an unchanged file.
func Vouched(data []byte, stamp fsx.Stamp, cachePath string) (int, bool) {
	c, cfi, err := fsx.ReadMappedStat(cachePath)
	if err != nil || !cacheMatches(c, cfi, data, stamp, cachePath) {
		return 0, false
	}
	v, ok := soundView(c, len(data))
	if !ok {
		return 0, false
	}
	return v.nRecs, true
}

// trustLater rewrites the cache's header with the file's modification
// time, which also moves the cache's own modification time to now. It
// writes only to the cache file that was read (another process may have
// replaced it since); failure costs only speed.
func trustLater(cachePath string, cfi fs.FileInfo, header []byte, stamp fsx.Stamp) {
	f, err := os.OpenFile(cachePath, os.O_WRONLY, 0)
	if err != nil {
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !os.SameFile(fi, cfi) {
		return
	}
	h := bytes.Clone(header)
	le.PutUint64(h[16:], uint64(stamp.ModTime))
	copy(h[80:], headerStampTail(stamp))
	_, _ = f.WriteAt(h, 0)
}

var le = binary.LittleEndian

// cacheWriter builds the cache's sections. A patch starts from the old
// cache's sections (clipped, so that appending copies them) and writes its
// new strings after the old ones, base bytes in.
type cacheWriter struct {
	entries, labels, edges, blockers, index, strs []byte
	base                                          uint32
	interned                                      map[string][2]uint32
}

// ref appends s to the strings once, for the values many issues share
// (statuses, types, assignees, labels, edge types), and returns its
// offset and length.
func (w *cacheWriter) ref(s string) [2]uint32 {
	if s == "" {
		return [2]uint32{}
	}
	if r, ok := w.interned[s]; ok {
		return r
	}
	r := w.add(s)
	w.interned[s] = r
	return r
}

// add appends s to the strings and returns its offset and length.
func (w *cacheWriter) add(s string) [2]uint32 {
	r := [2]uint32{w.base + uint32(len(w.strs)), uint32(len(s))}
	w.strs = append(w.strs, s...)
	return r
}

// putIssue writes the cached fields of i into its entry e, its labels
// after those written so far and, with edges, its edges too (a patch of a
// changed issue keeps the edges it had).
func (w *cacheWriter) putIssue(e []byte, i *Issue, edges bool) {
	e[eFlags] = 0
	if i.Pinned {
		e[eFlags] |= 1
	}
	if i.Ephemeral {
		e[eFlags] |= 2
	}
	id := w.add(i.ID)
	putRef(e, eID, id)
	putRef(e, eTitle, w.add(i.Title))
	putRef(e, eStatus, w.ref(i.Status))
	putRef(e, eType, w.ref(i.IssueType))
	putRef(e, eAssignee, w.ref(i.Assignee))
	le.PutUint32(e[ePriority:], uint32(int32(i.Priority)))
	le.PutUint32(e[eComments:], uint32(i.Comments))
	putTime(e, eCreated, i.CreatedAt)
	putTime(e, eUpdated, i.UpdatedAt)
	putTime(e, eStarted, i.StartedAt)
	putTime(e, eClosed, i.ClosedAt)
	putTime(e, eDefer, i.DeferUntil)
	putSpan(e, eLabels, len(w.labels)/8, len(i.Labels))
	for _, l := range i.Labels {
		w.labels = appendRef(w.labels, w.ref(l))
	}
	if !edges {
		return
	}
	putSpan(e, eDeps, len(w.edges)/32, len(i.Deps))
	for _, d := range i.Deps {
		from := id
		if d.IssueID != i.ID {
			from = w.add(d.IssueID)
		}
		w.edges = appendRef(w.edges, from)
		w.edges = appendRef(w.edges, w.add(d.DependsOnID))
		w.edges = appendRef(w.edges, w.ref(d.Type))
		w.edges = appendRef(w.edges, w.ref(d.Metadata))
	}
}

// putBlocked writes an issue's blocked-by set into its entry e.
func (w *cacheWriter) putBlocked(e []byte, by []string) {
	putSpan(e, eBlocked, len(w.blockers)/8, len(by))
	for _, id := range by {
		w.blockers = appendRef(w.blockers, w.add(id))
	}
}

// putLists writes an issue's parents, children and dependents into its
// entry e.
func (w *cacheWriter) putLists(e []byte, lists [3][]int32) {
	for i, at := range []int{eParents, eChildren, eIn} {
		putSpan(e, at, len(w.index)/4, len(lists[i]))
		for _, x := range lists[i] {
			w.index = le.AppendUint32(w.index, uint32(x))
		}
	}
}

// write writes the cache: the header h (its section sizes filled in
// here), the sections, and before the new strings the old ones a patch
// keeps. Failure only costs speed, so it is ignored.
func (w *cacheWriter) write(path string, h, hash, oldStrs []byte, nLive int) *fsx.Staged {
	le.PutUint32(h[32:], uint32(len(w.entries)/entrySize))
	le.PutUint32(h[36:], uint32(nLive))
	le.PutUint32(h[40:], uint32(len(w.labels)/8))
	le.PutUint32(h[44:], uint32(len(w.edges)/32))
	le.PutUint32(h[48:], uint32(len(w.blockers)/8))
	le.PutUint32(h[52:], uint32(len(w.index)/4))
	le.PutUint32(h[56:], uint32(len(hash)/4))
	le.PutUint32(h[60:], uint32(len(oldStrs)+len(w.strs)))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil
	}
	st, _ := fsx.StageDerivedFunc(path, func(f io.Writer) error {
		for _, sec := range [][]byte{h, w.entries, w.labels, w.edges, w.blockers, w.index, hash, oldStrs, w.strs} {
			if _, err := f.Write(sec); err != nil {
				return err
			}
		}
		return nil
	})
	return st
}

// commitCache puts a staged cache in place. Failure only costs speed.
func commitCache(st *fsx.Staged) {
	if st != nil {
		_ = st.Commit()
	}
}

// cacheHeader is a header for a file of size bytes, modification time
// and CRC-32C sum, with flags and comment ids; write fills in the sizes.
func cacheHeader(size int, stamp fsx.Stamp, sum, flags uint32, ids commentIDs) []byte {
	h := make([]byte, headerSize)
	copy(h, cacheMagic)
	le.PutUint32(h[4:], cacheVersion)
	le.PutUint64(h[8:], uint64(size))
	le.PutUint64(h[16:], uint64(stamp.ModTime))
	le.PutUint32(h[24:], sum)
	le.PutUint32(h[28:], flags)
	appendCommentIDs(h[:64], ids)
	copy(h[80:], headerStampTail(stamp))
	return h
}

// putHashID puts record k, whose issue has id, into the id hash.
func putHashID(hash []byte, k int, id string) {
	mask := uint32(len(hash)/4 - 1)
	for h := fnv32(id) & mask; ; h = (h + 1) & mask {
		if le.Uint32(hash[h*4:]) == 0 {
			le.PutUint32(hash[h*4:], uint32(k+1))
			return
		}
	}
}

func appendRef(b []byte, r [2]uint32) []byte {
	b = le.AppendUint32(b, r[0])
	return le.AppendUint32(b, r[1])
}

func putRef(e []byte, at int, r [2]uint32) {
	le.PutUint32(e[at:], r[0])
	le.PutUint32(e[at+4:], r[1])
}

func putSpan(e []byte, at, first, n int) {
	le.PutUint32(e[at:], uint32(first))
	le.PutUint32(e[at+4:], uint32(n))
}

func putTime(e []byte, at int, t time.Time) {
	var v int64
	if !t.IsZero() {
		v = t.UnixNano()
	}
	le.PutUint64(e[at:], uint64(v))
}

// writeCache stages the cache for the store's file, of size bytes with
// CRC-32C sum and file info fi; each record's start and end are its place
// in that file. The caller commits it once the file is in place (nil: no
// cache, which only costs speed).
func (s *Store) writeCache(size int, sum uint32, stamp fsx.Stamp) *fsx.Staged {
	if s.cachePath == "" || size > 1<<32-1 {
		return nil
	}
	s.full()
	if st, ok := s.patchCache(size, sum, stamp); ok {
		return st
	}
	g := NewGraph(s)
	var flags uint32
	var nLabels, nDeps, nBlocked, nIndex, nStrs int
	for _, r := range s.records {
		if i := r.Issue; i != nil {
			nLabels += len(i.Labels)
			nDeps += len(i.Deps)
			nStrs += len(i.ID) + len(i.Title) + len(i.Assignee)
			for _, d := range i.Deps {
				nStrs += len(d.DependsOnID)
				if d.Type == DepWaitsFor {
					flags |= flagWaits
				}
			}
		}
	}
	for k := range g.issues {
		nBlocked += len(g.blocked[k])
		nIndex += len(g.parents[k]) + len(g.children[k]) + len(g.in[k])
	}
	w := &cacheWriter{
		entries:  make([]byte, len(s.records)*entrySize),
		labels:   make([]byte, 0, nLabels*8),
		edges:    make([]byte, 0, nDeps*32),
		blockers: make([]byte, 0, nBlocked*8),
		index:    make([]byte, 0, nIndex*4),
		strs:     make([]byte, 0, nStrs+nStrs/8+1024),
		interned: map[string][2]uint32{},
	}
	for k, r := range s.records {
		e := w.entries[k*entrySize : (k+1)*entrySize]
		le.PutUint32(e[eLine:], uint32(r.Line))
		le.PutUint32(e[eStart:], uint32(r.start))
		le.PutUint32(e[eEnd:], uint32(r.end))
		e[eKind] = byte(r.Kind)
		if r.Issue == nil {
			continue
		}
		w.putIssue(e, r.Issue, true)
		if g.issues[k] == nil {
			continue
		}
		le.PutUint32(e[eAllIn:], uint32(g.allIn[k]))
		le.PutUint32(e[eBlocksIn:], uint32(g.blocksIn[k]))
		w.putBlocked(e, g.blocked[k])
		w.putLists(e, [3][]int32{g.parents[k], g.children[k], g.in[k]})
	}
	hash := make([]byte, hashSlots(len(s.byID))*4)
	live := 0
	for k, r := range s.records {
		if r.Issue != nil {
			putHashID(hash, k, r.Issue.ID)
		}
		if g.issues[k] != nil {
			live++
		}
	}
	if !s.lf {
		flags |= flagCRLF
	}
	if s.bom {
		flags |= flagBOM
	}
	return w.write(s.cachePath, cacheHeader(size, stamp, sum, flags, s.commentIDs()), hash, nil, live)
}

// patchCache writes the cache by patching the one the store was opened
// from, when the changes keep every record and its graph: records only
// moved in the file, and the issues that changed kept their id, edges and
// status class. The changed issues' entries are rewritten, with their new
// strings and labels appended to those sections; the graph, the edges
// and the id hash are copied. It reports false when a full write is
// needed.
func (s *Store) patchCache(size int, sum uint32, stamp fsx.Stamp) (*fsx.Staged, bool) {
	b := s.base
	if b == nil || len(s.records) < len(b.recs) {
		return nil, false
	}
	var changed []int
	for k, r := range s.records[:len(b.recs)] {
		if r != b.recs[k] {
			return nil, false
		}
		if r.Issue != b.issues[k] {
			if !sameShape(b.issues[k], r.Issue) {
				return nil, false
			}
			changed = append(changed, k)
		}
	}
	added := s.records[len(b.recs):]
	if len(added) > 0 && !s.canAppend(b.v, added) {
		return nil, false
	}
	return s.writePatch(b.v, func(k int) (int, [2]uint32) {
		r := s.records[k]
		return r.Line, [2]uint32{uint32(r.start), uint32(r.end)}
	}, changed, nil, func(k int) *Issue { return s.records[k].Issue }, added, s.commentIDs(), size, sum, stamp), true
}

// canAppend reports whether issues added after the cache old can be
// patched in: live issues whose edges lead only to issues the cache
// holds, in a graph without waits-for gates (a new child could change
// one), with room in the 32-bit sections.
func (s *Store) canAppend(old *cacheView, added []*Record) bool {
	if old.waits() {
		return false
	}
	isNew := map[*Issue]bool{}
	for _, r := range added {
		if r.Kind != KindIssue || r.Issue == nil {
			return false
		}
		isNew[r.Issue] = true
	}
	for _, r := range added {
		for _, d := range r.Issue.Deps {
			if d.Type == DepWaitsFor {
				return false
			}
			if t := s.live(d.DependsOnID); t != nil && (isNew[t] || t.idx >= old.nRecs || s.recordAt(t.idx) != t.rec) {
				return false
			}
		}
	}
	return true
}

// writePatch writes the cache old with each record's line and place from
// pos and the entries of the changed records rewritten from their issues.
//
// Records added after the cache's (added, records old.nRecs on) get
// entries, a place in the id hash, and their edges: their targets' counts
// and lists grow (new lists go to the end of the index section) and their
// blocked sets are computed from their edges and their parents' cached
// state (canAppend has checked that this is all that can change).
func (s *Store) writePatch(old *cacheView, pos func(k int) (int, [2]uint32), changed []int, blocked map[int][]string,
	issue func(k int) *Issue, added []*Record, ids commentIDs, size int, sum uint32, stamp fsx.Stamp) *fsx.Staged {
	if len(old.strs) > 1<<31 {
		return nil
	}
	nb := old.nRecs
	n := nb + len(added)
	w := &cacheWriter{entries: make([]byte, n*entrySize), labels: slices.Clip(old.labels), edges: slices.Clip(old.edges),
		blockers: slices.Clip(old.blockers), index: slices.Clip(old.index), base: uint32(len(old.strs)),
		interned: map[string][2]uint32{}}
	entries := w.entries
	copy(entries, old.entries)
	for k := range n {
		e := entries[k*entrySize:]
		line, p := pos(k)
		le.PutUint32(e[eLine:], uint32(line))
		le.PutUint32(e[eStart:], p[0])
		le.PutUint32(e[eEnd:], p[1])
	}
	for _, k := range changed {
		w.putIssue(entries[k*entrySize:(k+1)*entrySize], issue(k), false)
	}
	hash := old.hash
	live := old.nLive
	if len(added) > 0 {
		grown := map[int][3][]int32{} // target: its parents, children and dependents lists
		list := func(k, at int) []int32 {
			if l, ok := grown[k]; ok {
				return l[(at-eParents)/8]
			}
			if k >= nb {
				return nil
			}
			return old.list(k, at)
		}
		setList := func(k, at int, l []int32) {
			cur, ok := grown[k]
			if !ok && k < nb {
				cur = [3][]int32{old.list(k, eParents), old.list(k, eChildren), old.list(k, eIn)}
			}
			cur[(at-eParents)/8] = l
			grown[k] = cur
		}
		g := &Graph{Store: s, issues: make([]*Issue, nb), view: old}
		for j, r := range added {
			k, iss := nb+j, r.Issue
			e := entries[k*entrySize : (k+1)*entrySize]
			e[eKind] = byte(r.Kind)
			w.putIssue(e, iss, true)
			var parents []int32
			for _, d := range iss.Deps {
				t := s.live(d.DependsOnID)
				if t == nil {
					continue
				}
				te := entries[t.idx*entrySize:]
				le.PutUint32(te[eAllIn:], le.Uint32(te[eAllIn:])+1)
				if in := list(t.idx, eIn); len(in) == 0 || in[len(in)-1] != int32(k) {
					setList(t.idx, eIn, append(slices.Clip(in), int32(k)))
				}
				switch d.Type {
				case DepBlocks:
					le.PutUint32(te[eBlocksIn:], le.Uint32(te[eBlocksIn:])+1)
				case DepParentChild:
					parents = append(parents, int32(t.idx))
					setList(t.idx, eChildren, append(slices.Clip(list(t.idx, eChildren)), int32(k)))
				}
			}
			if len(parents) > 0 {
				setList(k, eParents, parents)
			}
			// Its blocked set: direct blockers, else blocked parents.
			var by []string
			if canBeBlocked(iss) {
				by = g.directBlockers(iss)
				if len(by) == 0 {
					for _, p := range parents {
						if le.Uint32(old.entry(int(p))[eBlocked+4:]) > 0 {
							by = append(by, s.recordAt(int(p)).Issue.ID)
						}
					}
				}
			}
			if len(by) > 0 {
				if blocked == nil {
					blocked = map[int][]string{}
				}
				blocked[k] = by
			}
			live++
		}
		for k, l := range grown {
			w.putLists(entries[k*entrySize:], l)
		}
		hash = growHash(old, w, n)
	}
	for k, by := range blocked {
		w.putBlocked(entries[k*entrySize:(k+1)*entrySize], by)
	}
	return w.write(s.cachePath, cacheHeader(size, stamp, sum, le.Uint32(old.c[28:]), ids), hash, old.strs, live)
}

// growHash returns the id hash for a patch writing w's entries after the
// cache old's: the old hash with the new ids put in, or one built anew
// when it would be over half full.
func growHash(old *cacheView, w *cacheWriter, n int) []byte {
	str := func(b []byte) string { // a ref into the old strings or the patch's
		off, l := le.Uint32(b), le.Uint32(b[4:])
		if off < w.base {
			return bytesString(old.strs[off : off+l])
		}
		return string(w.strs[off-w.base : off-w.base+l])
	}
	ids := 0
	for k := range n {
		if Kind(w.entries[k*entrySize+eKind]) != KindOther {
			ids++
		}
	}
	hash, from := bytes.Clone(old.hash), old.nRecs
	if 2*ids > len(old.hash)/4 {
		hash, from = make([]byte, hashSlots(ids)*4), 0
	}
	for k := from; k < n; k++ {
		if e := w.entries[k*entrySize:]; Kind(e[eKind]) != KindOther {
			putHashID(hash, k, str(e[eID:]))
		}
	}
	return hash
}

// commentIDs is what the file's comment ids are: the highest integer, and
// whether there are integers and strings (UUIDs).
type commentIDs struct {
	max            int64
	numeric, uuids bool
}

func appendCommentIDs(b []byte, c commentIDs) []byte {
	b = le.AppendUint64(b, uint64(c.max))
	var f uint32
	if c.numeric {
		f |= 1
	}
	if c.uuids {
		f |= 2
	}
	b = le.AppendUint32(b, f)
	return le.AppendUint32(b, 0)
}

func readCommentIDs(h []byte) commentIDs {
	f := le.Uint32(h[72:])
	return commentIDs{max: int64(le.Uint64(h[64:])), numeric: f&1 != 0, uuids: f&2 != 0}
}

// commentIDs returns the comment ids of the store's records: from the
// cache's header and the records changed or added since, when the store
// was opened from the cache and kept its records; else by reading every
// comment.
func (s *Store) commentIDs() commentIDs {
	b := s.base
	if s.lz != nil {
		return readCommentIDs(s.lz.v.c)
	}
	if b != nil && len(s.records) >= len(b.recs) {
		c := readCommentIDs(b.v.c)
		for k, r := range s.records {
			switch {
			case k < len(b.recs) && r != b.recs[k]:
				return scanCommentIDs(s.records)
			case k >= len(b.recs) || r.Issue != b.issues[k] || r.dirty:
				c = c.plus(scanCommentIDs(s.records[k : k+1]))
			}
		}
		return c
	}
	return scanCommentIDs(s.records)
}

func (c commentIDs) plus(d commentIDs) commentIDs {
	return commentIDs{max: max(c.max, d.max), numeric: c.numeric || d.numeric, uuids: c.uuids || d.uuids}
}

// hashSlots is the id hash's size for n ids: a power of two at least 2n.
func hashSlots(n int) int {
	slots := 8
	for slots < 2*n {
		slots <<= 1
	}
	return slots
}

func fnv32(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// cacheView is a decoded header: the sections of a cache in place.
type cacheView struct {
	c                                             []byte
	nRecs, nLive                                  int
	entries, labels, edges, blockers, index, hash []byte
	strs                                          []byte
	flags                                         uint32
}

func viewCache(c []byte) (*cacheView, bool) {
	v := &cacheView{c: c, flags: le.Uint32(c[28:]), nRecs: int(le.Uint32(c[32:])), nLive: int(le.Uint32(c[36:]))}
	sizes := []uint64{uint64(v.nRecs) * entrySize, uint64(le.Uint32(c[40:])) * 8, uint64(le.Uint32(c[44:])) * 32,
		uint64(le.Uint32(c[48:])) * 8, uint64(le.Uint32(c[52:])) * 4, uint64(le.Uint32(c[56:])) * 4, uint64(le.Uint32(c[60:]))}
	secs := []*[]byte{&v.entries, &v.labels, &v.edges, &v.blockers, &v.index, &v.hash, &v.strs}
	rest := c[headerSize:]
	for i, n := range sizes {
		if n > uint64(len(rest)) {
			return nil, false
		}
		*secs[i], rest = rest[:n:n], rest[n:]
	}
	slots := len(v.hash) / 4
	if len(rest) != 0 || v.nLive > v.nRecs || slots < 2*v.nLive || slots&(slots-1) != 0 {
		return nil, false
	}
	return v, true
}

// check verifies that every reference in the cache stays inside its
// section, so that reading any entry later cannot fail.
func (v *cacheView) check(dataLen int) bool {
	// Every run checks every entry before using any, so this is written
	// for speed: plain loads and compares, one verdict at the end.
	nStrs := uint64(len(v.strs))
	nLabels, nEdges, nBlockers, nIndex := uint64(len(v.labels)/8), uint64(len(v.edges)/32), uint64(len(v.blockers)/8), uint64(len(v.index)/4)
	ref := func(e []byte, at int) uint64 { return uint64(le.Uint32(e[at:])) + uint64(le.Uint32(e[at+4:])) }
	bad := false
	live := 0
	for k := range v.nRecs {
		e := v.entry(k)[:entrySize]
		kind := Kind(e[eKind])
		if kind == KindIssue {
			live++
		}
		bad = bad || le.Uint32(e[eStart:]) > le.Uint32(e[eEnd:]) || int(le.Uint32(e[eEnd:])) > dataLen || kind > KindOther ||
			ref(e, eID) > nStrs || ref(e, eTitle) > nStrs || ref(e, eStatus) > nStrs || ref(e, eType) > nStrs || ref(e, eAssignee) > nStrs ||
			ref(e, eLabels) > nLabels || ref(e, eDeps) > nEdges || ref(e, eBlocked) > nBlockers ||
			ref(e, eParents) > nIndex || ref(e, eChildren) > nIndex || ref(e, eIn) > nIndex
		if bad {
			return false
		}
	}
	for _, sec := range [][]byte{v.labels, v.edges, v.blockers} {
		for at := 0; at+8 <= len(sec); at += 8 {
			if ref(sec, at) > nStrs {
				return false
			}
		}
	}
	n := uint32(v.nRecs)
	for at := 0; at+4 <= len(v.index); at += 4 {
		if le.Uint32(v.index[at:]) >= n {
			return false
		}
	}
	for at := 0; at+4 <= len(v.hash); at += 4 {
		if le.Uint32(v.hash[at:]) > n {
			return false
		}
	}
	return live == v.nLive
}

func (v *cacheView) entry(k int) []byte { return v.entries[k*entrySize : (k+1)*entrySize] }

// str returns the string the ref at b points to.
func (v *cacheView) str(b []byte) string {
	off, n := le.Uint32(b), le.Uint32(b[4:])
	return bytesString(v.strs[off : off+n])
}

func (v *cacheView) waits() bool { return v.flags&flagWaits != 0 }

// list returns the record numbers of a list field of entry k.
func (v *cacheView) list(k, at int) []int32 {
	e := v.entry(k)
	first, n := int(le.Uint32(e[at:])), int(le.Uint32(e[at+4:]))
	if n == 0 {
		return nil
	}
	out := make([]int32, n)
	for j := range out {
		out[j] = int32(le.Uint32(v.index[(first+j)*4:]))
	}
	return out
}

func (v *cacheView) counts(k int) (blocksIn, allIn int32) {
	e := v.entry(k)
	return int32(le.Uint32(e[eBlocksIn:])), int32(le.Uint32(e[eAllIn:]))
}

func (v *cacheView) blockedBy(k int) []string {
	e := v.entry(k)
	first, n := int(le.Uint32(e[eBlocked:])), int(le.Uint32(e[eBlocked+4:]))
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for j := range out {
		out[j] = v.str(v.blockers[(first+j)*8:])
	}
	return out
}

func (v *cacheView) isBlocked(k int) bool {
	e := v.entry(k)
	return Kind(e[eKind]) == KindIssue && le.Uint32(e[eBlocked+4:]) > 0
}

// maybeReady reports whether entry k may be a ready issue: a live open
// issue, not pinned or ephemeral, not blocked.
func (v *cacheView) maybeReady(k int) bool {
	e := v.entry(k)
	return Kind(e[eKind]) == KindIssue && e[eFlags] == 0 && le.Uint32(e[eBlocked+4:]) == 0 && v.str(e[eStatus:]) == StatusOpen
}

// find returns the record whose issue has id, or -1.
func (v *cacheView) find(id string) int {
	n := len(v.hash) / 4
	mask := uint32(n - 1)
	// At most n probes: a damaged table with no empty slot must not loop.
	h := fnv32(id) & mask
	for range n {
		slot := le.Uint32(v.hash[h*4:])
		if slot == 0 {
			return -1
		}
		if k := int(slot - 1); v.str(v.entry(k)[eID:]) == id {
			return k
		}
		h = (h + 1) & mask
	}
	return -1
}

// record reads record k of the file data from the cache: the record with
// its line (fields not split yet) and, for an issue or tombstone, the
// issue's cached fields.
func (v *cacheView) record(k int, data []byte) *Record {
	var sl slab
	return v.fill(k, data, &sl)
}

// slab is memory for many records read at once: one allocation each for
// the records, the issues, the labels and the edges.
type slab struct {
	recs   []Record
	issues []Issue
	labels []string
	deps   []Dep
	// noDeps: the issues are a scan's transient reads, which no caller
	// asks for their edges (the graph has them): Deps is left nil.
	noDeps bool
}

func (sl *slab) record() *Record {
	if len(sl.recs) == 0 {
		return &Record{}
	}
	r := &sl.recs[0]
	sl.recs = sl.recs[1:]
	return r
}

func (sl *slab) issue() *Issue {
	if len(sl.issues) == 0 {
		return &Issue{}
	}
	i := &sl.issues[0]
	sl.issues = sl.issues[1:]
	return i
}

func (sl *slab) strings(n int) []string {
	if len(sl.labels) < n {
		return make([]string, n)
	}
	out := sl.labels[:n:n]
	sl.labels = sl.labels[n:]
	return out
}

func (sl *slab) edges(n int) []Dep {
	if len(sl.deps) < n {
		return make([]Dep, n)
	}
	out := sl.deps[:n:n]
	sl.deps = sl.deps[n:]
	return out
}

// fill reads record k, taking memory from sl.
func (v *cacheView) fill(k int, data []byte, sl *slab) *Record {
	e := v.entry(k)
	start, end := int(le.Uint32(e[eStart:])), int(le.Uint32(e[eEnd:]))
	rec := sl.record()
	*rec = Record{raw: data[start:end], start: start, end: end, Kind: Kind(e[eKind]), lazy: true, Line: int(le.Uint32(e[eLine:]))}
	if rec.Kind == KindOther {
		return rec
	}
	iss := sl.issue()
	// Zeroed, then set field by field: a composite literal of the large
	// Issue is built on the stack and copied, twice the memory traffic,
	// which was most of a scan of 50,000 entries.
	*iss = Issue{}
	iss.rec, iss.partial, iss.idx = rec, true, k
	iss.ID, iss.Title, iss.Status = v.str(e[eID:]), v.str(e[eTitle:]), v.str(e[eStatus:])
	iss.IssueType, iss.Assignee = v.str(e[eType:]), v.str(e[eAssignee:])
	iss.Priority, iss.Comments = int(int32(le.Uint32(e[ePriority:]))), int(le.Uint32(e[eComments:]))
	iss.CreatedAt, iss.UpdatedAt, iss.StartedAt = getTime(e, eCreated), getTime(e, eUpdated), getTime(e, eStarted)
	iss.ClosedAt, iss.DeferUntil = getTime(e, eClosed), getTime(e, eDefer)
	iss.Pinned, iss.Ephemeral = e[eFlags]&1 != 0, e[eFlags]&2 != 0
	if first, n := int(le.Uint32(e[eLabels:])), int(le.Uint32(e[eLabels+4:])); n > 0 {
		iss.Labels = sl.strings(n)
		for j := range iss.Labels {
			iss.Labels[j] = v.str(v.labels[(first+j)*8:])
		}
	}
	if first, n := int(le.Uint32(e[eDeps:])), int(le.Uint32(e[eDeps+4:])); n > 0 && !sl.noDeps {
		iss.Deps = sl.edges(n)
		for j := range iss.Deps {
			b := v.edges[(first+j)*32:]
			iss.Deps[j] = Dep{IssueID: v.str(b), DependsOnID: v.str(b[8:]), Type: v.str(b[16:]), Metadata: v.str(b[24:])}
		}
	}
	rec.Issue = iss
	return rec
}

func getTime(e []byte, at int) time.Time {
	if v := int64(le.Uint64(e[at:])); v != 0 {
		return time.Unix(0, v).UTC()
	}
	return time.Time{}
}

// lazyRecords is a store's records while they are read from the cache on
// demand; made holds those read so far.
type lazyRecords struct {
	v     *cacheView
	data  []byte
	made  []*Record
	orig  []*Issue  // each made record's issue as read
	added []*Record // records added since, after the cache's
}

// cacheBase is what a store opened from the cache was, kept once its
// records are all read so that a write can reuse the cache's graph.
type cacheBase struct {
	v      *cacheView
	recs   []*Record
	issues []*Issue // each record's issue as read (nil: none)
}

// soundView is the view of the cache c when it is sound for a file of n
// bytes: its sections and every entry within bounds.
func soundView(c []byte, n int) (*cacheView, bool) {
	v, ok := viewCache(c)
	if !ok || !v.check(n) {
		return nil, false
	}
	return v, true
}

// decodeCache opens a store over the cache c of data. Nothing is decoded
// until it is asked for.
func decodeCache(c, data []byte) (*Store, bool) {
	v, ok := soundView(c, len(data))
	if !ok {
		return nil, false
	}
	s := &Store{lf: v.flags&flagCRLF == 0, bom: v.flags&flagBOM != 0,
		lz: &lazyRecords{v: v, data: data, made: make([]*Record, v.nRecs), orig: make([]*Issue, v.nRecs)}}
	return s, true
}

// recordAt returns record k.
func (s *Store) recordAt(k int) *Record {
	if s.lz == nil {
		return s.records[k]
	}
	if k >= s.lz.v.nRecs {
		return s.lz.added[k-s.lz.v.nRecs]
	}
	if r := s.lz.made[k]; r != nil {
		return r
	}
	r := s.lz.v.record(k, s.lz.data)
	s.lz.made[k], s.lz.orig[k] = r, r.Issue
	return r
}

// clean reports whether no record read so far has changed.
func (lz *lazyRecords) clean() bool {
	if len(lz.added) > 0 {
		return false
	}
	for k, r := range lz.made {
		if r != nil && (r.dirty || r.Issue != lz.orig[k]) {
			return false
		}
	}
	return true
}

// madeRecords returns the records read so far (every record once the
// store is read in full): only they can have changed.
func (s *Store) madeRecords() []*Record {
	if s.lz == nil {
		return s.records
	}
	var out []*Record
	for _, r := range s.lz.made {
		if r != nil {
			out = append(out, r)
		}
	}
	return append(out, s.lz.added...)
}

// lazySaveOK reports whether a store still read from the cache can be
// saved without reading every record: each changed issue kept its id,
// edges and status class, so the cache's graph holds (records are only
// added or removed through full()).
func (s *Store) lazySaveOK() bool {
	moved := false
	for k, r := range s.lz.made {
		if r != nil && r.Issue != s.lz.orig[k] {
			if !sameEdges(s.lz.orig[k], r.Issue) {
				return false
			}
			moved = moved || !sameShape(s.lz.orig[k], r.Issue)
		}
	}
	// New issues take their parents' blocked state from the cache, which
	// a status change in the same write could alter.
	return len(s.lz.added) == 0 || !moved && s.canAppend(s.lz.v, s.lz.added)
}

// saveLazy is Save for a store still read from the cache: lines of the
// records not read are copied from the file as it was, and the cache is
// patched.
func (s *Store) saveLazy(path string) error {
	s.refreshCounts()
	lz := s.lz
	nb := lz.v.nRecs
	n := nb + len(lz.added)
	wr, err := writeLines(path, s.bom, n, func(k int) []byte {
		if k >= nb {
			return lz.added[k-nb].encode()
		}
		if r := lz.made[k]; r != nil {
			return r.encode()
		}
		e := lz.v.entry(k)
		return lz.data[le.Uint32(e[eStart:]):le.Uint32(e[eEnd:])]
	})
	if err != nil {
		return err
	}
	lines, size := wr.lines, wr.size
	pos := make([][2]uint32, n)
	for k, p := range wr.pos {
		pos[k] = [2]uint32{uint32(p[0]), uint32(p[1])}
	}
	for j, r := range lz.added {
		k := nb + j
		r.raw, r.dirty, r.Line = lines[k], false, k+1
		r.start, r.end = int(pos[k][0]), int(pos[k][1])
	}
	var changed, moved []int
	for k, r := range lz.made {
		if r == nil {
			continue
		}
		r.raw, r.dirty, r.Line = lines[k], false, k+1
		r.start, r.end = int(pos[k][0]), int(pos[k][1])
		if r.Issue != lz.orig[k] {
			changed = append(changed, k)
			if !sameShape(lz.orig[k], r.Issue) {
				moved = append(moved, k)
			}
		}
	}
	var blocked map[int][]string
	if len(moved) > 0 {
		var ok bool
		if blocked, ok = s.reblock(lz.v, moved); !ok {
			s.full()
			for k, r := range s.records { // their places in the new file
				r.raw, r.Line, r.start, r.end = lines[k], k+1, int(pos[k][0]), int(pos[k][1])
			}
			return wr.commitWith(func(stamp fsx.Stamp) *fsx.Staged { return s.writeCache(size, wr.sum, stamp) })
		}
	}
	return wr.commitWith(func(stamp fsx.Stamp) *fsx.Staged {
		if s.cachePath == "" || size > 1<<32-1 {
			return nil
		}
		ids := readCommentIDs(lz.v.c).plus(scanCommentIDs(lz.added))
		for _, k := range changed {
			ids = ids.plus(scanCommentIDs(lz.made[k : k+1]))
		}
		return s.writePatch(lz.v, func(k int) (int, [2]uint32) { return k + 1, pos[k] }, changed, blocked,
			func(k int) *Issue { return lz.made[k].Issue }, lz.added, ids, size, wr.sum, stamp)
	})
}

// readMany reads the records ks from the cache, those not read yet in one
// allocation each for their records, issues, labels and edges.
func (s *Store) readMany(ks []int) {
	lz := s.lz
	if lz == nil {
		return
	}
	var n, nl, nd int
	for _, k := range ks {
		if k < lz.v.nRecs && lz.made[k] == nil {
			e := lz.v.entry(k)
			n++
			nl += int(le.Uint32(e[eLabels+4:]))
			nd += int(le.Uint32(e[eDeps+4:]))
		}
	}
	if n == 0 {
		return
	}
	sl := &slab{recs: make([]Record, n), issues: make([]Issue, n), labels: make([]string, nl), deps: make([]Dep, nd)}
	for _, k := range ks {
		if k < lz.v.nRecs && lz.made[k] == nil {
			r := lz.v.fill(k, lz.data, sl)
			lz.made[k], lz.orig[k] = r, r.Issue
		}
	}
}

// full reads every record a store opened from the cache has not read yet:
// whatever changes the store, or walks all of it, needs them all.
func (s *Store) full() {
	lz := s.lz
	if lz == nil {
		return
	}
	n := lz.v.nRecs
	s.records = make([]*Record, n)
	s.byID = make(map[string]*Issue, n)
	b := &cacheBase{v: lz.v, issues: make([]*Issue, n)}
	sl := &slab{recs: make([]Record, n), issues: make([]Issue, lz.v.nLive),
		labels: make([]string, len(lz.v.labels)/8), deps: make([]Dep, len(lz.v.edges)/32)}
	for k := range n {
		r := lz.made[k]
		if r == nil {
			r = lz.v.fill(k, lz.data, sl)
			lz.made[k], lz.orig[k] = r, r.Issue
		}
		s.records[k] = r
		b.issues[k] = lz.orig[k]
		if r.Issue != nil {
			s.byID[r.Issue.ID] = r.Issue
		}
	}
	b.recs = slices.Clone(s.records)
	for _, r := range lz.added {
		s.records = append(s.records, r)
		if r.Issue != nil {
			s.byID[r.Issue.ID] = r.Issue
		}
	}
	s.base, s.lz = b, nil
}

// scan calls fn with each live issue in store order. Over the cache, an
// issue not read yet is passed as a transient read that the next call
// reuses: fn must not keep it (its idx names the record, for Graph.at),
// and it has no Deps (the graph answers for its edges). Nothing is
// allocated per issue.
func (s *Store) scan(fn func(iss *Issue)) { s.scanWhere(nil, fn) }

// scanWhere is scan over the entries keep accepts (nil: all); keep must
// accept every entry fn could want.
func (s *Store) scanWhere(keep func(v *cacheView, k int) bool, fn func(iss *Issue)) {
	if s.lz == nil {
		for _, iss := range s.Issues() {
			fn(iss)
		}
		return
	}
	lz := s.lz
	var recBuf [1]Record
	var issBuf [1]Issue
	var labels []string
	for k := range lz.v.nRecs {
		if keep != nil && !keep(lz.v, k) {
			continue
		}
		if r := lz.made[k]; r != nil {
			if r.Kind == KindIssue {
				fn(r.Issue)
			}
			continue
		}
		e := lz.v.entry(k)
		if Kind(e[eKind]) != KindIssue {
			continue
		}
		if nl := int(le.Uint32(e[eLabels+4:])); nl > len(labels) {
			labels = make([]string, nl*2)
		}
		sl := slab{recs: recBuf[:], issues: issBuf[:], labels: labels, noDeps: true}
		r := lz.v.fill(k, lz.data, &sl)
		r.Issue.transient = true
		fn(r.Issue)
	}
	if keep == nil {
		for _, r := range lz.added {
			if r.Kind == KindIssue {
				fn(r.Issue)
			}
		}
	}
}

// eachID calls fn with the id of every issue and tombstone.
func (s *Store) eachID(fn func(id string)) {
	if s.lz == nil {
		for id := range s.byID {
			fn(id)
		}
		return
	}
	v := s.lz.v
	for k := range v.nRecs {
		if e := v.entry(k); Kind(e[eKind]) != KindOther {
			fn(v.str(e[eID:]))
		}
	}
	for _, r := range s.lz.added {
		if r.Issue != nil {
			fn(r.Issue.ID)
		}
	}
}

// lookup returns the issue or tombstone with id, or nil.
func (s *Store) lookup(id string) *Issue {
	if s.lz != nil {
		if k := s.lz.v.find(id); k >= 0 {
			return s.recordAt(k).Issue
		}
		for _, r := range s.lz.added {
			if r.Issue != nil && r.Issue.ID == id {
				return r.Issue
			}
		}
		return nil
	}
	return s.byID[id]
}
