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
//
// Trust: a cache whose recorded size and modification time are the
// file's is used without reading the file, unless the file changed within
// racyWindow of the cache's own last write (a second change in the same
// clock tick would keep both): then the file's CRC-32C decides, and a
// match is recorded by rewriting the header, which moves the cache's
// modification time past the window. This is git's racy-clean rule.
//
// Format (little endian), a header then the sections in this order:
//
//	header   "MCTC", u32 version, u64 file size, i64 file mtime (ns),
//	         u32 file CRC-32C, u32 flags (1: CRLF file, 2: BOM),
//	         u32 records, u32 live issues, u32 label refs, u32 edges,
//	         u32 blocker refs, u32 index-list entries, u32 id-hash slots,
//	         u32 strings size, 8 bytes zero (64 bytes in all)
//	records  one entry of entrySize bytes per line (layout at the e*
//	         offsets below)
//	labels   label refs: u32 offset, u32 length into strings
//	edges    4 refs each: issue_id, depends_on_id, type, metadata
//	blockers refs: the ids that block each blocked issue
//	index    u32 live-issue positions: parents and children lists
//	hash     u32 slots: 1 + the record of an id (0: empty), open addressing
//	         on FNV-1a of the id
//	strings  the bytes the refs point into
const (
	cacheMagic = "MCTC"
	// cacheVersion 1: the first format.
	// cacheVersion 2: total label and edge counts after the record count.
	// cacheVersion 3: fixed-size entries used in place; the graph; trust
	// by size and modification time.
	cacheVersion = 3
	headerSize   = 64
	entrySize    = 152
	racyWindow   = 2 * time.Second
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
	eParents  = 136 // u32 first, u32 count into index
	eChildren = 144
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// LoadCached reads path like Load, using and refreshing the cache file at
// cachePath. Save on the returned store refreshes the cache too.
func LoadCached(path, cachePath string) (*Store, error) {
	data, fi, err := fsx.ReadMappedStat(path)
	if errors.Is(err, os.ErrNotExist) {
		s := &Store{byID: map[string]*Issue{}, lf: true, cachePath: cachePath}
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	if c, cfi, err := fsx.ReadMappedStat(cachePath); err == nil {
		if s, ok := openCache(c, cfi, data, fi, cachePath); ok {
			s.cachePath = cachePath
			return s, nil
		}
	}
	s, err := Parse(data)
	if err != nil {
		return nil, err
	}
	s.cachePath = cachePath
	s.writeCache(len(data), crc32.Checksum(data, castagnoli), fi)
	return s, nil
}

// openCache checks the cache c against the file data and decodes it.
func openCache(c []byte, cfi fs.FileInfo, data []byte, fi fs.FileInfo, cachePath string) (*Store, bool) {
	if len(c) < headerSize || string(c[:4]) != cacheMagic || le.Uint32(c[4:]) != cacheVersion ||
		le.Uint64(c[8:]) != uint64(len(data)) {
		return nil, false
	}
	mtime := fi.ModTime().UnixNano()
	sameTime := int64(le.Uint64(c[16:])) == mtime
	if !sameTime || cfi.ModTime().Sub(fi.ModTime()) < racyWindow {
		if le.Uint32(c[24:]) != crc32.Checksum(data, castagnoli) {
			return nil, false
		}
		// The content matches: record the file's time as of now, so the
		// next reader trusts it without the checksum.
		trustLater(cachePath, cfi, c[:headerSize], mtime)
	}
	return decodeCache(c, data)
}

// trustLater rewrites the cache's header with the file's modification
// time, which also moves the cache's own modification time to now. It
// writes only to the cache file that was read (another process may have
// replaced it since); failure costs only speed.
func trustLater(cachePath string, cfi fs.FileInfo, header []byte, mtime int64) {
	f, err := os.OpenFile(cachePath, os.O_WRONLY, 0)
	if err != nil {
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !os.SameFile(fi, cfi) {
		return
	}
	h := bytes.Clone(header)
	le.PutUint64(h[16:], uint64(mtime))
	_, _ = f.WriteAt(h, 0)
}

var le = binary.LittleEndian

// cacheWriter builds the cache's sections.
type cacheWriter struct {
	entries, labels, edges, blockers, index, strs []byte
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
	r := [2]uint32{uint32(len(w.strs)), uint32(len(s))}
	w.strs = append(w.strs, s...)
	return r
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
	if !t.IsZero() {
		le.PutUint64(e[at:], uint64(t.UnixNano()))
	}
}

// writeCache stores the cache for the store's file, of size bytes with
// CRC-32C sum and file info fi; each record's start and end are its place
// in that file. Failure only costs speed, so it is ignored.
func (s *Store) writeCache(size int, sum uint32, fi fs.FileInfo) {
	if s.cachePath == "" || fi == nil || size > 1<<32-1 {
		return
	}
	g := s.reuseGraph()
	if g == nil {
		g = NewGraph(s)
	}
	// Each live issue's idx is now its place in g.issues.
	var nLabels, nDeps, nBlocked, nIndex, nStrs int
	for _, r := range s.Records {
		if i := r.Issue; i != nil {
			nLabels += len(i.Labels)
			nDeps += len(i.Deps)
			nStrs += len(i.ID) + len(i.Title) + len(i.Assignee)
			for _, d := range i.Deps {
				nStrs += len(d.DependsOnID)
			}
		}
	}
	for gi := range g.issues {
		nBlocked += len(g.blocked[gi])
		nIndex += len(g.parents[gi]) + len(g.children[gi])
	}
	w := &cacheWriter{
		entries:  make([]byte, len(s.Records)*entrySize),
		labels:   make([]byte, 0, nLabels*8),
		edges:    make([]byte, 0, nDeps*32),
		blockers: make([]byte, 0, nBlocked*8),
		index:    make([]byte, 0, nIndex*4),
		strs:     make([]byte, 0, nStrs+nStrs/8+1024),
		interned: map[string][2]uint32{},
	}
	for k, r := range s.Records {
		e := w.entries[k*entrySize : (k+1)*entrySize]
		le.PutUint32(e[eLine:], uint32(r.Line))
		le.PutUint32(e[eStart:], uint32(r.start))
		le.PutUint32(e[eEnd:], uint32(r.end))
		e[eKind] = byte(r.Kind)
		i := r.Issue
		if i == nil {
			continue
		}
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
		if r.Kind != KindIssue || !g.node(i) {
			continue
		}
		gi := i.idx
		le.PutUint32(e[eAllIn:], uint32(g.allIn[gi]))
		le.PutUint32(e[eBlocksIn:], uint32(g.blocksIn[gi]))
		putSpan(e, eBlocked, len(w.blockers)/8, len(g.blocked[gi]))
		for _, id := range g.blocked[gi] {
			w.blockers = appendRef(w.blockers, w.add(id))
		}
		for _, list := range []struct {
			at     int
			issues []*Issue
		}{{eParents, g.parents[gi]}, {eChildren, g.children[gi]}} {
			putSpan(e, list.at, len(w.index)/4, len(list.issues))
			for _, p := range list.issues {
				w.index = le.AppendUint32(w.index, uint32(p.idx))
			}
		}
	}
	slots := hashSlots(len(s.byID))
	hash := make([]byte, slots*4)
	for k, r := range s.Records {
		if r.Issue == nil {
			continue
		}
		for h := fnv32(r.Issue.ID) & uint32(slots-1); ; h = (h + 1) & uint32(slots-1) {
			if le.Uint32(hash[h*4:]) == 0 {
				le.PutUint32(hash[h*4:], uint32(k+1))
				break
			}
		}
	}
	var flags uint32
	if !s.lf {
		flags |= 1
	}
	if s.bom {
		flags |= 2
	}
	buf := make([]byte, 0, headerSize)
	buf = append(buf, cacheMagic...)
	for _, v := range []uint64{cacheVersion} {
		buf = le.AppendUint32(buf, uint32(v))
	}
	buf = le.AppendUint64(buf, uint64(size))
	buf = le.AppendUint64(buf, uint64(fi.ModTime().UnixNano()))
	buf = le.AppendUint32(buf, sum)
	for _, v := range []int{int(flags), len(s.Records), len(g.issues), len(w.labels) / 8, len(w.edges) / 32,
		len(w.blockers) / 8, len(w.index) / 4, slots, len(w.strs)} {
		buf = le.AppendUint32(buf, uint32(v))
	}
	buf = append(buf, make([]byte, headerSize-len(buf))...)
	if err := os.MkdirAll(filepath.Dir(s.cachePath), 0o755); err == nil {
		_ = fsx.WriteDerivedFunc(s.cachePath, func(f io.Writer) error {
			for _, sec := range [][]byte{buf, w.entries, w.labels, w.edges, w.blockers, w.index, hash, w.strs} {
				if _, err := f.Write(sec); err != nil {
					return err
				}
			}
			return nil
		})
	}
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
	sizes := []int{v.nRecs * entrySize, int(le.Uint32(c[40:])) * 8, int(le.Uint32(c[44:])) * 32,
		int(le.Uint32(c[48:])) * 8, int(le.Uint32(c[52:])) * 4, int(le.Uint32(c[56:])) * 4, int(le.Uint32(c[60:]))}
	secs := []*[]byte{&v.entries, &v.labels, &v.edges, &v.blockers, &v.index, &v.hash, &v.strs}
	rest := c[headerSize:]
	for i, n := range sizes {
		if n < 0 || n > len(rest) {
			return nil, false
		}
		*secs[i], rest = rest[:n:n], rest[n:]
	}
	if len(rest) != 0 || v.nLive > v.nRecs {
		return nil, false
	}
	return v, true
}

// str returns the string a ref at b points to; ok is false when it points
// outside the strings.
func (v *cacheView) str(b []byte) (string, bool) {
	off, n := uint64(le.Uint32(b)), uint64(le.Uint32(b[4:]))
	if off+n > uint64(len(v.strs)) {
		return "", false
	}
	return bytesString(v.strs[off : off+n]), true
}

func getTime(e []byte, at int) time.Time {
	if v := int64(le.Uint64(e[at:])); v != 0 {
		return time.Unix(0, v).UTC()
	}
	return time.Time{}
}

// span reads a first/count pair and checks it against a section of n
// items.
func span(e []byte, at, n int) (int, int, bool) {
	first, cnt := int(le.Uint32(e[at:])), int(le.Uint32(e[at+4:]))
	return first, cnt, first >= 0 && cnt >= 0 && first+cnt <= n
}

// decodeCache builds a store of lazy records from the cache c of data,
// with the graph ready for NewGraph.
func decodeCache(c, data []byte) (*Store, bool) {
	v, ok := viewCache(c)
	if !ok {
		return nil, false
	}
	n := v.nRecs
	s := &Store{Records: make([]*Record, n), byID: make(map[string]*Issue, n), lf: v.flags&1 == 0, bom: v.flags&2 != 0}
	recs := make([]Record, n)
	issues := make([]Issue, n)
	nLabels, nEdges := len(v.labels)/8, len(v.edges)/32
	labels := make([]string, nLabels)
	for k := range labels {
		if labels[k], ok = v.str(v.labels[k*8:]); !ok {
			return nil, false
		}
	}
	deps := make([]Dep, nEdges)
	for k := range deps {
		b := v.edges[k*32:]
		a, ok1 := v.str(b)
		d, ok2 := v.str(b[8:])
		t, ok3 := v.str(b[16:])
		m, ok4 := v.str(b[24:])
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return nil, false
		}
		deps[k] = Dep{IssueID: a, DependsOnID: d, Type: t, Metadata: m}
	}
	gd := &graphData{issues: make([]*Issue, 0, v.nLive), allIn: make([]int32, v.nLive), blocksIn: make([]int32, v.nLive),
		blocked: make([][]string, v.nLive), parents: make([][]*Issue, v.nLive), children: make([][]*Issue, v.nLive)}
	type lists struct{ p0, pn, c0, cn int }
	pending := make([]lists, 0, v.nLive)
	nBlockers, nIndex := len(v.blockers)/8, len(v.index)/4
	for k := range recs {
		e := v.entries[k*entrySize : (k+1)*entrySize]
		start, end := int(le.Uint32(e[eStart:])), int(le.Uint32(e[eEnd:]))
		if start > end || end > len(data) {
			return nil, false
		}
		rec := &recs[k]
		rec.raw, rec.start, rec.end, rec.Kind, rec.lazy = data[start:end], start, end, Kind(e[eKind]), true
		rec.Line = int(le.Uint32(e[eLine:]))
		s.Records[k] = rec
		if rec.Kind == KindOther {
			continue
		}
		iss := &issues[k]
		var ok [5]bool
		iss.ID, ok[0] = v.str(e[eID:])
		iss.Title, ok[1] = v.str(e[eTitle:])
		iss.Status, ok[2] = v.str(e[eStatus:])
		iss.IssueType, ok[3] = v.str(e[eType:])
		iss.Assignee, ok[4] = v.str(e[eAssignee:])
		if ok != [5]bool{true, true, true, true, true} {
			return nil, false
		}
		iss.Priority = int(int32(le.Uint32(e[ePriority:])))
		iss.Comments = int(le.Uint32(e[eComments:]))
		iss.CreatedAt, iss.UpdatedAt, iss.StartedAt = getTime(e, eCreated), getTime(e, eUpdated), getTime(e, eStarted)
		iss.ClosedAt, iss.DeferUntil = getTime(e, eClosed), getTime(e, eDefer)
		iss.Pinned, iss.Ephemeral = e[eFlags]&1 != 0, e[eFlags]&2 != 0
		l0, ln, okL := span(e, eLabels, nLabels)
		d0, dn, okD := span(e, eDeps, nEdges)
		if !okL || !okD {
			return nil, false
		}
		if ln > 0 {
			iss.Labels = labels[l0 : l0+ln : l0+ln]
		}
		if dn > 0 {
			iss.Deps = deps[d0 : d0+dn : d0+dn]
			for _, d := range iss.Deps {
				if d.Type == DepWaitsFor {
					gd.waits = true
				}
			}
		}
		iss.rec, iss.partial = rec, true
		rec.Issue = iss
		s.byID[iss.ID] = iss
		if rec.Kind != KindIssue {
			continue
		}
		gi := len(gd.issues)
		if gi >= v.nLive {
			return nil, false
		}
		gd.issues = append(gd.issues, iss)
		gd.allIn[gi], gd.blocksIn[gi] = int32(le.Uint32(e[eAllIn:])), int32(le.Uint32(e[eBlocksIn:]))
		b0, bn, okB := span(e, eBlocked, nBlockers)
		p0, pn, okP := span(e, eParents, nIndex)
		c0, cn, okC := span(e, eChildren, nIndex)
		if !okB || !okP || !okC {
			return nil, false
		}
		if bn > 0 {
			by := make([]string, bn)
			for j := range by {
				if by[j], ok[0] = v.str(v.blockers[(b0+j)*8:]); !ok[0] {
					return nil, false
				}
			}
			gd.blocked[gi] = by
		}
		pending = append(pending, lists{p0, pn, c0, cn})
	}
	if len(gd.issues) != v.nLive {
		return nil, false
	}
	for gi, l := range pending {
		for _, p := range []struct {
			first, n int
			out      *[]*Issue
		}{{l.p0, l.pn, &gd.parents[gi]}, {l.c0, l.cn, &gd.children[gi]}} {
			if p.n == 0 {
				continue
			}
			list := make([]*Issue, p.n)
			for j := range list {
				at := int(le.Uint32(v.index[(p.first+j)*4:]))
				if at >= v.nLive {
					return nil, false
				}
				list[j] = gd.issues[at]
			}
			*p.out = list
		}
	}
	gd.recs = s.Records
	gd.orig = make([]*Issue, n)
	for k, r := range s.Records {
		gd.orig[k] = r.Issue
	}
	s.graph = gd
	return s, true
}
