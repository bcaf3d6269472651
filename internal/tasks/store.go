package tasks

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"runtime"
	"sync"

	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/secrets"
)

// Store is the content of an issues.jsonl file: every record in file
// order and an index of the issues by id.
type Store struct {
	// records and byID hold every record once read; a store opened from
	// the cache reads them on demand (lz) until full() reads them all.
	records []*Record
	byID    map[string]*Issue
	lz      *lazyRecords
	base    *cacheBase
	// lf is false when the file had CRLF line endings (rewritten as LF).
	lf bool
	// bom: the file starts with a UTF-8 byte order mark, which is kept.
	bom bool
	// cachePath is where Save refreshes the derived cache ("" for none).
	cachePath string
	// Secrets is the write gate's policy ([secrets] in config.toml); the
	// zero Policy refuses every secret.
	Secrets secrets.Policy
	// Redactions lists the secrets the gate replaced (redact mode) in the
	// writes since the store was loaded, for the front-end to report.
	Redactions []secrets.Redaction
}

// Records returns every record in file order.
func (s *Store) Records() []*Record {
	s.full()
	return s.records
}

// Load reads path. A missing file is an empty store. A line that cannot
// be read fails the whole load with a *LineError: nothing is ever dropped.
func Load(path string) (*Store, error) {
	data, err := fsx.ReadMapped(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Store{byID: map[string]*Issue{}, lf: true}, nil
	}
	if err != nil {
		return nil, err
	}
	return Parse(data)
}

// utf8BOM is the byte order mark some Windows editors put at the start
// of a UTF-8 file. memctl reads past it and writes it back, so an editor
// and memctl do not fight over the file's first line.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// cutBOM returns data without a leading byte order mark, and whether it
// had one.
func cutBOM(data []byte) ([]byte, bool) {
	body, ok := bytes.CutPrefix(data, utf8BOM)
	return body, ok
}

// Parse reads the bytes of an issues.jsonl file. Records' byte ranges are
// places in data, byte order mark included.
func Parse(data []byte) (*Store, error) {
	body, bom := cutBOM(data)
	lines := splitLines(body)
	offsets := make([]int, len(lines))
	for i, off := 0, len(data)-len(body); i < len(lines); i++ {
		offsets[i] = off
		off += len(lines[i]) + 1
	}
	recs := make([]*Record, len(lines))
	errs := make([]error, len(lines))
	eachRecordLine(lines, func(i int, line []byte) {
		recs[i], errs[i] = parseRecord(line, i+1)
		if recs[i] != nil {
			recs[i].start, recs[i].end = offsets[i], offsets[i]+len(line)
		}
	})
	s := &Store{byID: make(map[string]*Issue, len(lines)), lf: !bytes.Contains(data, []byte("\r\n")), bom: bom}
	for i, r := range recs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if r == nil {
			continue
		}
		if r.Issue != nil {
			if prev, ok := s.byID[r.Issue.ID]; ok {
				return nil, &LineError{Line: r.Line, Field: "id", Message: fmt.Sprintf("duplicate id %q (also on line %d); rename or remove one of them", r.Issue.ID, prev.rec.Line)}
			}
			s.byID[r.Issue.ID] = r.Issue
		}
		s.records = append(s.records, r)
	}
	return s, nil
}

// splitLines cuts an issues.jsonl file into its lines, without line
// endings and without the empty piece after a final newline.
func splitLines(data []byte) [][]byte {
	if len(data) == 0 {
		return nil
	}
	return bytes.Split(bytes.TrimSuffix(data, []byte{'\n'}), []byte{'\n'})
}

// eachRecordLine calls fn(i, line) for every line that is not blank, with
// a trailing CR removed, on one goroutine per core for large files. fn
// must write only to slot i of whatever it fills.
func eachRecordLine(lines [][]byte, fn func(i int, line []byte)) {
	workers := min(runtime.GOMAXPROCS(0), max(1, len(lines)/1000))
	per := (len(lines) + workers - 1) / workers
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*per, min((w+1)*per, len(lines))
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				line := bytes.TrimSuffix(lines[i], []byte{'\r'})
				if len(bytes.TrimSpace(line)) > 0 {
					fn(i, line)
				}
			}
		})
	}
	wg.Wait()
}

// Get returns the live issue with id (tombstones are not live), with
// every typed field set.
func (s *Store) Get(id string) (*Issue, error) {
	iss, err := s.peek(id)
	if err != nil {
		return nil, err
	}
	if iss.partial {
		if full, err := decodeIssue(iss.rec); err == nil {
			// The issue keeps its place in the graph built over the store:
			// the graph finds an issue's edges by that index, and a copy
			// without it made a warm show lose parent and dependents.
			idx := iss.idx
			*iss = *full
			iss.idx = idx
		}
	}
	return iss, nil
}

// live returns the live issue with id, or nil.
func (s *Store) live(id string) *Issue {
	if iss := s.lookup(id); iss != nil && iss.Status != StatusTombstone {
		return iss
	}
	return nil
}

// peek returns the live issue with id as loaded, possibly partial: enough
// for the graph, which must not decode every issue.
func (s *Store) peek(id string) (*Issue, error) {
	if iss := s.live(id); iss != nil {
		return iss, nil
	}
	return nil, &NotFoundError{ID: id}
}

// exists reports whether any record, tombstones included, has id.
func (s *Store) exists(id string) bool {
	return s.lookup(id) != nil
}

// Issues returns the live issues in file order.
func (s *Store) Issues() []*Issue {
	s.full()
	out := make([]*Issue, 0, len(s.records))
	for _, r := range s.records {
		if r.Kind == KindIssue {
			out = append(out, r.Issue)
		}
	}
	return out
}

// add appends a new record.
func (s *Store) add(r *Record) {
	if s.lz != nil && r.Issue != nil && r.Kind == KindIssue {
		// Read from the cache: the record waits after the cache's.
		r.Issue.idx = s.lz.v.nRecs + len(s.lz.added)
		s.lz.added = append(s.lz.added, r)
		return
	}
	s.full()
	s.records = append(s.records, r)
	if r.Issue != nil {
		s.byID[r.Issue.ID] = r.Issue
	}
}

// refresh re-reads the typed view of a changed record.
func (s *Store) refresh(r *Record) error {
	iss, err := decodeIssue(r)
	if err != nil {
		return err
	}
	if s.lz != nil && r.Issue != nil && r.Issue.ID == iss.ID {
		// Read from the cache: the id hash still finds the record.
		iss.idx = r.Issue.idx
		r.Issue = iss
		return nil
	}
	s.full()
	if r.Issue != nil {
		iss.idx = r.Issue.idx
	}
	r.Issue = iss
	s.byID[iss.ID] = iss
	return nil
}

// Bytes returns the file content: the records in their order (new ones
// were appended), one compact object per line, LF endings and a final
// newline. A record memctl did not change is its line as read, so a
// write changes only the lines of the records it changed: the first
// commit after adopting memctl in a bd repository is not a rewrite.
func (s *Store) Bytes() []byte {
	var b bytes.Buffer
	if s.bom {
		b.Write(utf8BOM)
	}
	for _, r := range s.Records() {
		b.Write(r.encode())
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// written is what writeLines wrote: each line, its byte range in the
// file, the file's size and CRC-32C, and the file staged to replace path.
type written struct {
	lines [][]byte
	pos   [][2]int
	size  int
	sum   uint32
	*fsx.Staged
}

// writeLines stages n lines, line(k) each and a newline, to replace path
// atomically, after a byte order mark when bom; the caller commits
// (commitWith). The file is streamed: lines copied from another file's
// bytes are not copied in memory again. (Writing long runs of unchanged
// lines straight from the mapped file instead of through the buffer was
// measured: no difference at 10,000 issues.)
func writeLines(path string, bom bool, n int, line func(k int) []byte) (written, error) {
	w := written{lines: make([][]byte, n), pos: make([][2]int, n)}
	crc := crc32.New(castagnoli)
	st, err := fsx.StageFunc(path, 0o644, func(f io.Writer) error {
		bw := bufio.NewWriterSize(io.MultiWriter(f, crc), 64<<10)
		w.size = 0
		if bom {
			bw.Write(utf8BOM)
			w.size = len(utf8BOM)
		}
		for k := range n {
			l := line(k)
			w.lines[k] = l
			w.pos[k] = [2]int{w.size, w.size + len(l)}
			w.size += len(l) + 1
			bw.Write(l)
			bw.WriteByte('\n')
		}
		return bw.Flush() // bufio keeps the first error: Flush returns it
	})
	w.sum, w.Staged = crc.Sum32(), st
	return w, err
}

// commitWith puts the written file in place, then the cache for it, which
// cache builds from the staged file's size and time while the file is
// being synced to disk. On failure the file is left as it was and no
// cache is written.
func (w written) commitWith(cache func(stamp fsx.Stamp) *fsx.Staged) error {
	defer w.Abort() // after a panic in cache: the temporary removed (a no-op after Commit)
	var cst *fsx.Staged
	if stamp, err := w.Stamp(); err == nil {
		cst = cache(stamp)
	}
	if err := w.Commit(); err != nil {
		if cst != nil {
			cst.Abort()
		}
		return err
	}
	commitCache(cst)
	return nil
}

// Save writes the store to path atomically, then refreshes the cache for
// the new content. The file is streamed: unchanged records are copied from
// the bytes they were read from, so saving a large file builds no second
// copy of it in memory. Afterwards each record holds its written line.
// When Save fails the file is as it was, but the records already describe
// the file that was not written: drop the store (every caller does).
func (s *Store) Save(path string) error {
	if s.lz != nil && s.lazySaveOK() {
		return s.saveLazy(path)
	}
	s.full()
	s.refreshCounts()
	recs := s.records
	w, err := writeLines(path, s.bom, len(recs), func(k int) []byte { return recs[k].encode() })
	if err != nil {
		return err
	}
	for i, r := range recs {
		r.raw, r.dirty, r.Line = w.lines[i], false, i+1
		r.start, r.end = w.pos[i][0], w.pos[i][1]
	}
	s.records = recs
	return w.commitWith(func(stamp fsx.Stamp) *fsx.Staged { return s.writeCache(w.size, w.sum, stamp) })
}
