package tasks

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"time"

	"github.com/memctl/memctl/internal/fsx"
)

// The derived cache lets read commands skip parsing issues.jsonl: it holds
// the fields the graph and the tables need, for a file of exactly this
// size and CRC-32C, with each record's byte range in the file. It is never
// a second source of truth: a cache that does not match the file, or that
// cannot be read, is ignored and rebuilt from the file.
//
// Format (little endian): "MCTC", uint32 version, uint64 file size, uint32
// CRC-32C of the file, uvarint record count, uvarint total labels,
// uvarint total dependency edges (so that decoding allocates each backing
// array once), then per record: uvarint line, uvarint start, uvarint end,
// byte kind and, for issues and tombstones, the cached fields.
const (
	cacheMagic = "MCTC"
	// cacheVersion 1: the first format.
	// cacheVersion 2: total label and edge counts after the record count.
	cacheVersion = 2
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// LoadCached reads path like Load, using and refreshing the cache file at
// cachePath. Save on the returned store refreshes the cache too.
func LoadCached(path, cachePath string) (*Store, error) {
	data, err := fsx.ReadMapped(path)
	if errors.Is(err, os.ErrNotExist) {
		s := &Store{byID: map[string]*Issue{}, lf: true, cachePath: cachePath}
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	sum := crc32.Checksum(data, castagnoli)
	if c, err := fsx.ReadMapped(cachePath); err == nil {
		if s, ok := decodeCache(c, data, sum); ok {
			s.cachePath = cachePath
			return s, nil
		}
	}
	s, err := Parse(data)
	if err != nil {
		return nil, err
	}
	s.cachePath = cachePath
	s.writeCache(len(data), sum)
	return s, nil
}

// writeCache stores the cache for the store's file, of size bytes with
// CRC-32C sum; each record's start and end are its place in that file.
// Failure only costs speed, so it is ignored.
func (s *Store) writeCache(size int, sum uint32) {
	if s.cachePath == "" {
		return
	}
	buf := make([]byte, 0, size/4)
	buf = append(buf, cacheMagic...)
	buf = binary.LittleEndian.AppendUint32(buf, cacheVersion)
	buf = binary.LittleEndian.AppendUint64(buf, uint64(size))
	buf = binary.LittleEndian.AppendUint32(buf, sum)
	buf = binary.AppendUvarint(buf, uint64(len(s.Records)))
	var nLabels, nDeps int
	for _, r := range s.Records {
		if r.Issue != nil {
			nLabels += len(r.Issue.Labels)
			nDeps += len(r.Issue.Deps)
		}
	}
	buf = binary.AppendUvarint(buf, uint64(nLabels))
	buf = binary.AppendUvarint(buf, uint64(nDeps))
	for _, r := range s.Records {
		buf = binary.AppendUvarint(buf, uint64(r.Line))
		buf = binary.AppendUvarint(buf, uint64(r.start))
		buf = binary.AppendUvarint(buf, uint64(r.end))
		buf = append(buf, byte(r.Kind))
		if r.Issue != nil {
			buf = appendIssue(buf, r.Issue)
		}
	}
	if err := os.MkdirAll(filepath.Dir(s.cachePath), 0o755); err == nil {
		_ = fsx.WriteDerived(s.cachePath, buf)
	}
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return binary.AppendVarint(b, 0)
	}
	return binary.AppendVarint(b, t.UnixNano())
}

func appendIssue(b []byte, i *Issue) []byte {
	for _, s := range []string{i.ID, i.Title, i.Status, i.IssueType, i.Assignee} {
		b = appendStr(b, s)
	}
	b = binary.AppendVarint(b, int64(i.Priority))
	for _, t := range []time.Time{i.CreatedAt, i.UpdatedAt, i.StartedAt, i.ClosedAt, i.DeferUntil} {
		b = appendTime(b, t)
	}
	var flags byte
	if i.Pinned {
		flags |= 1
	}
	if i.Ephemeral {
		flags |= 2
	}
	b = append(b, flags)
	b = binary.AppendUvarint(b, uint64(i.Comments))
	b = binary.AppendUvarint(b, uint64(len(i.Labels)))
	for _, l := range i.Labels {
		b = appendStr(b, l)
	}
	b = binary.AppendUvarint(b, uint64(len(i.Deps)))
	for _, d := range i.Deps {
		b = appendStr(b, d.IssueID)
		b = appendStr(b, d.DependsOnID)
		b = appendStr(b, d.Type)
		b = appendStr(b, d.Metadata)
	}
	return b
}

// cacheReader decodes the cache; any inconsistency sets bad.
type cacheReader struct {
	b   []byte
	bad bool
}

func (r *cacheReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *cacheReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *cacheReader) str() string {
	n := r.uvarint()
	if r.bad || n > uint64(len(r.b)) {
		r.bad = true
		return ""
	}
	s := bytesString(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *cacheReader) time() time.Time {
	if v := r.varint(); v != 0 {
		return time.Unix(0, v).UTC()
	}
	return time.Time{}
}

func (r *cacheReader) byte1() byte {
	if len(r.b) == 0 {
		r.bad = true
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// decodeCache builds a store of lazy records from the cache c of data.
func decodeCache(c, data []byte, sum uint32) (*Store, bool) {
	if len(c) < 20 || string(c[:4]) != cacheMagic ||
		binary.LittleEndian.Uint32(c[4:]) != cacheVersion ||
		binary.LittleEndian.Uint64(c[8:]) != uint64(len(data)) ||
		binary.LittleEndian.Uint32(c[16:]) != sum {
		return nil, false
	}
	r := &cacheReader{b: c[20:]}
	n, nLabels, nDeps := r.uvarint(), r.uvarint(), r.uvarint()
	if r.bad || n > uint64(len(data)) || nLabels > uint64(len(c)) || nDeps > uint64(len(c)) {
		return nil, false
	}
	s := &Store{Records: make([]*Record, 0, n), byID: make(map[string]*Issue, n), lf: true, bom: bytes.HasPrefix(data, utf8BOM)}
	recs := make([]Record, n)
	issues := make([]Issue, n)
	// One backing array each for all labels and all edges; every issue's
	// slices are cut from them once they stop growing.
	labels := make([]string, 0, nLabels)
	deps := make([]Dep, 0, nDeps)
	type span struct{ l0, l1, d0, d1 int }
	spans := make([]span, n)
	for k := range recs {
		line, start, end := int(r.uvarint()), int(r.uvarint()), int(r.uvarint())
		kind := Kind(r.byte1())
		if r.bad || start > end || end > len(data) {
			return nil, false
		}
		rec := &recs[k]
		rec.raw, rec.start, rec.end, rec.Kind, rec.lazy = data[start:end], start, end, kind, true
		rec.Line = line
		if kind != KindOther {
			iss := &issues[k]
			sp := &spans[k]
			sp.l0, sp.d0 = len(labels), len(deps)
			labels, deps = readIssue(r, iss, labels, deps)
			sp.l1, sp.d1 = len(labels), len(deps)
			iss.rec, iss.partial = rec, true
			rec.Issue = iss
			s.byID[iss.ID] = iss
		}
		s.Records = append(s.Records, rec)
	}
	if r.bad || len(r.b) != 0 {
		return nil, false
	}
	for k, sp := range spans {
		if sp.l1 > sp.l0 {
			issues[k].Labels = labels[sp.l0:sp.l1:sp.l1]
		}
		if sp.d1 > sp.d0 {
			issues[k].Deps = deps[sp.d0:sp.d1:sp.d1]
		}
	}
	return s, true
}

func readIssue(r *cacheReader, i *Issue, labels []string, deps []Dep) ([]string, []Dep) {
	i.ID, i.Title, i.Status, i.IssueType, i.Assignee = r.str(), r.str(), r.str(), r.str(), r.str()
	i.Priority = int(r.varint())
	i.CreatedAt, i.UpdatedAt, i.StartedAt, i.ClosedAt, i.DeferUntil = r.time(), r.time(), r.time(), r.time(), r.time()
	flags := r.byte1()
	i.Pinned, i.Ephemeral = flags&1 != 0, flags&2 != 0
	i.Comments = int(r.uvarint())
	n := r.uvarint()
	for k := uint64(0); k < n && !r.bad; k++ {
		labels = append(labels, r.str())
	}
	n = r.uvarint()
	for k := uint64(0); k < n && !r.bad; k++ {
		deps = append(deps, Dep{IssueID: r.str(), DependsOnID: r.str(), Type: r.str(), Metadata: r.str()})
	}
	return labels, deps
}
