package runs

import (
	"encoding/binary"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"
	"unsafe"

	"github.com/memctl/memctl/internal/fsx"
)

// The derived cache lets List skip reading and parsing thousands of small
// files: it holds, for each record file of exactly this name, size,
// modification and change time and inode, the record's known fields. An
// entry is trusted only when the cache was written at least
// fsx.RacyWindow after the file's newest time: a file written again in
// the same tick as the read that cached it could keep its stamp. It is never a second
// source of truth: an entry whose file changed is read from the file
// again, and a cache that cannot be read is ignored and rebuilt. Unknown
// keys are not cached (listed records are never written back), nor are
// files that cannot be read (they are read, and reported, every time).
//
// Format (little endian): "MCRC", uint32 version, uvarint entry count,
// then per entry: the file's path below the store (string), varint size,
// varint mtime and ctime in Unix nanoseconds, uvarint inode and the
// record. A string is a uvarint
// length and its bytes, a list a uvarint count and its items, a time
// varint Unix seconds and uvarint nanoseconds (MinInt64 alone: unknown).
const (
	cacheMagic = "MCRC"
	// cacheVersion 1: the first format.
	// cacheVersion 2: the inode in each entry's stamp.
	// cacheVersion 3: the actor.
	// cacheVersion 4: the change time in each entry's stamp.
	cacheVersion = 4
)

// stamp is what a file must still be for its cached record to hold.
type stamp struct {
	size, mtime, ctime int64
	ino                uint64
}

// newest is the later of the file's modification and change times.
func (s stamp) newest() int64 { return max(s.mtime, s.ctime) }

type cached struct {
	stamp
	r *Record
}

// readCache returns the cached records by file path below the store and
// when the cache was written (Unix nanoseconds); an empty map when there
// is no cache or it cannot be read.
func readCache(path string) (map[string]cached, int64) {
	if path == "" {
		return nil, 0
	}
	data, written, err := readString(path)
	if err != nil {
		return nil, 0
	}
	d := cacheDecoder{s: data}
	if d.bytes(len(cacheMagic)) != cacheMagic || d.u32() != cacheVersion {
		return nil, 0
	}
	n := d.count()
	out := make(map[string]cached, n)
	recs := make([]Record, n) // one allocation for all
	for i := range recs {
		name := d.str()
		st := stamp{size: d.varint(), mtime: d.varint(), ctime: d.varint(), ino: d.uvarint()}
		d.record(&recs[i])
		if d.err {
			return nil, 0
		}
		out[name] = cached{st, &recs[i]}
	}
	return out, written
}

// writeCache replaces the cache with entries; failing costs only speed.
func writeCache(path string, names []string, entries []cached) {
	if path == "" {
		return
	}
	var e cacheEncoder
	e.b = append(e.b, cacheMagic...)
	e.b = binary.LittleEndian.AppendUint32(e.b, cacheVersion)
	e.uvarint(uint64(len(names)))
	for i, name := range names {
		e.str(name)
		e.varint(entries[i].size)
		e.varint(entries[i].mtime)
		e.varint(entries[i].ctime)
		e.uvarint(entries[i].ino)
		e.record(entries[i].r)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
		_ = fsx.WriteDerived(path, e.b)
	}
}

// readString reads the file at path into one string with one read, and
// returns its modification time (Unix nanoseconds). The bytes are never
// written after the read, so the string is made on them without a copy,
// and the decoded strings share them.
func readString(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return "", 0, err
	}
	b := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, b); err != nil {
		return "", 0, err
	}
	return unsafe.String(&b[0], len(b)), fi.ModTime().UnixNano(), nil
}

type cacheEncoder struct{ b []byte }

func (e *cacheEncoder) uvarint(n uint64) { e.b = binary.AppendUvarint(e.b, n) }
func (e *cacheEncoder) varint(n int64)   { e.b = binary.AppendVarint(e.b, n) }

func (e *cacheEncoder) str(s string) {
	e.uvarint(uint64(len(s)))
	e.b = append(e.b, s...)
}

func (e *cacheEncoder) strs(l []string) {
	e.uvarint(uint64(len(l)))
	for _, s := range l {
		e.str(s)
	}
}

func (e *cacheEncoder) time(t time.Time) {
	if t.IsZero() {
		e.varint(math.MinInt64)
		return
	}
	e.varint(t.Unix())
	e.uvarint(uint64(t.Nanosecond()))
}

func (e *cacheEncoder) record(r *Record) {
	for _, s := range []string{r.RunID, r.SessionID, r.Actor, r.Agent.Runtime, r.Agent.Model, r.Repo, r.Branch, r.CommitSHA,
		r.Status, r.Digest.Intent, r.Digest.Result} {
		e.str(s)
	}
	e.time(r.StartedAt)
	e.time(r.EndedAt)
	for _, l := range [][]string{r.TaskIDs, r.Digest.Changes, r.Digest.Decisions, r.Digest.Gotchas, r.Digest.NextSteps,
		r.FilesChanged, r.ArtifactRefs} {
		e.strs(l)
	}
	e.uvarint(uint64(len(r.Commands)))
	for _, c := range r.Commands {
		e.str(c.Cmd)
		e.varint(int64(c.ExitCode))
	}
	e.uvarint(uint64(len(r.Tests)))
	for _, t := range r.Tests {
		e.str(t.Name)
		e.str(t.Status)
	}
	e.uvarint(uint64(len(r.Errors)))
	for _, x := range r.Errors {
		e.str(x.Signature)
		e.str(x.Excerpt)
		e.str(x.File)
		e.varint(int64(x.Line))
	}
}

// cacheDecoder reads the cache from one string, which every decoded
// string shares; err is set, and every read returns zero, once the data
// runs short or holds an impossible length.
type cacheDecoder struct {
	s     string
	err   bool
	arena []string // backs the records' string lists, a few allocations for all
}

func (d *cacheDecoder) bytes(n int) string {
	if d.err || n < 0 || n > len(d.s) {
		d.err = true
		return ""
	}
	v := d.s[:n]
	d.s = d.s[n:]
	return v
}

func (d *cacheDecoder) u32() uint32 {
	b := d.bytes(4)
	if d.err {
		return 0
	}
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func (d *cacheDecoder) uvarint() uint64 {
	var v uint64
	for shift := 0; !d.err && shift < 64; shift += 7 {
		if len(d.s) == 0 {
			break
		}
		c := d.s[0]
		d.s = d.s[1:]
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	d.err = true
	return 0
}

func (d *cacheDecoder) varint() int64 {
	u := d.uvarint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
}

func (d *cacheDecoder) str() string {
	n := d.uvarint()
	if n > uint64(len(d.s)) {
		d.err = true
		return ""
	}
	return d.bytes(int(n))
}

// count reads a list length, which cannot exceed the bytes left.
func (d *cacheDecoder) count() int {
	n := d.uvarint()
	if n > uint64(len(d.s)) {
		d.err = true
		return 0
	}
	return int(n)
}

func (d *cacheDecoder) strs() []string {
	n := d.count()
	if n == 0 {
		return nil
	}
	if len(d.arena)+n > cap(d.arena) {
		d.arena = make([]string, 0, max(4096, n))
	}
	start := len(d.arena)
	for range n {
		d.arena = append(d.arena, d.str())
	}
	// Capped: an append to one list cannot write into the next.
	return d.arena[start:len(d.arena):len(d.arena)]
}

func (d *cacheDecoder) time() time.Time {
	v := d.varint()
	if v == math.MinInt64 {
		return time.Time{}
	}
	return time.Unix(v, int64(d.uvarint())).UTC()
}

func (d *cacheDecoder) record(r *Record) {
	r.SchemaVersion = SchemaVersion
	for _, p := range []*string{&r.RunID, &r.SessionID, &r.Actor, &r.Agent.Runtime, &r.Agent.Model, &r.Repo, &r.Branch, &r.CommitSHA,
		&r.Status, &r.Digest.Intent, &r.Digest.Result} {
		*p = d.str()
	}
	r.StartedAt = d.time()
	r.EndedAt = d.time()
	for _, p := range []*[]string{&r.TaskIDs, &r.Digest.Changes, &r.Digest.Decisions, &r.Digest.Gotchas, &r.Digest.NextSteps,
		&r.FilesChanged, &r.ArtifactRefs} {
		*p = d.strs()
	}
	if n := d.count(); n > 0 {
		r.Commands = make([]Command, n)
		for i := range r.Commands {
			r.Commands[i] = Command{Cmd: d.str(), ExitCode: int(d.varint())}
		}
	}
	if n := d.count(); n > 0 {
		r.Tests = make([]Test, n)
		for i := range r.Tests {
			r.Tests[i] = Test{Name: d.str(), Status: d.str()}
		}
	}
	if n := d.count(); n > 0 {
		r.Errors = make([]Error, n)
		for i := range r.Errors {
			r.Errors[i] = Error{Signature: d.str(), Excerpt: d.str(), File: d.str(), Line: int(d.varint())}
		}
	}
}
