package prime

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/runs"
)

// Listing thousands of run records costs tens of milliseconds even from
// the run list's cache (it checks every file's stamp, then decodes every
// record), and prime needs few of them: the newest run of the branch and
// the runs that named the files being changed. So it keeps a summary of
// its own next to that cache: per branch, the file of its newest run;
// per file base name, the files of the runs that changed it or had an
// error in it; and the records that could not be read. The summary
// holds while the run directory and its month directories are as they
// were (their fsx.Stamp: a record written, replaced, added or removed
// through memctl or git changes its directory) and the run list's cache
// is as it was (every memctl runs, warn or status that finds a record
// changed in place rewrites it), and is trusted only when written
// fsx.RacyWindow after the directories' newest time (the cache needs no
// such wait: every write of it is a new inode). A record edited in place
// by hand is seen once one of those has changed. Anything else is rebuilt
// from List, and stored only if the directories are still as they were
// before List read them.
const (
	runSummaryMagic = "MCPR"
	// runSummaryVersion 1: the first format.
	// 2: last is the newest run of a branch that says something.
	// 3: change times and inodes in the key.
	// 4: last is per branch and actor.
	runSummaryVersion = 4
)

// runSummary is what prime keeps of the run records.
type runSummary struct {
	key      []byte
	last     map[string]string   // branch → Rel-based file of its newest run that says something
	byBase   map[string][]string // file base name → Rel-based files of the runs naming it
	problems []string            // records that could not be read
	named    bool                // some run named a file
	// rawBases is byBase as its file holds it, read read only for the
	// names asked about: decoding thousands of paths cost more than the
	// rest of the summary.
	rawBases []byte
}

// runsKey is what the summary of a store holds for: the stamps of its
// directory and its month directories (dirs, whose newest time is
// newest), then of its list cache.
type runsKey struct {
	dirs, cache []byte
	newest      int64
}

// key is the whole key, as the summary's file holds it.
func (k runsKey) key() []byte { return append(slices.Clip(k.dirs), k.cache...) }

// readRunsKey takes the key of store now; ok is false when there is no
// run directory.
func readRunsKey(store runs.Store) (k runsKey, ok bool, err error) {
	ents, err := os.ReadDir(store.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return runsKey{}, false, nil
	}
	if err != nil {
		return runsKey{}, false, err
	}
	add := func(b []byte, name, p string) []byte {
		st, err := fsx.StatStamp(p)
		b = appendString(b, name)
		if err != nil {
			return binary.AppendVarint(b, -1)
		}
		if p != store.Cache {
			k.newest = max(k.newest, st.Newest())
		}
		return appendStamp(b, st)
	}
	k.dirs = add(nil, ".", store.Dir)
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			k.dirs = add(k.dirs, e.Name(), filepath.Join(store.Dir, e.Name()))
		}
	}
	k.cache = add(nil, "cache", store.Cache)
	return k, true, nil
}

// runSummaryPath is the summary's file next to the run list's cache.
func runSummaryPath(store runs.Store) string {
	return filepath.Join(filepath.Dir(store.Cache), "prime-runs.cache")
}

// summarize builds the summary of a full listing.
func summarize(l runs.Listing) *runSummary {
	s := &runSummary{last: map[string]string{}, byBase: map[string][]string{}}
	for _, e := range l.Entries { // newest first
		r := e.Record
		if k := lastKey(r.Branch, r.Actor); r.Branch != "" && r.SaysSomething() {
			if _, ok := s.last[k]; !ok {
				s.last[k] = e.Path
			}
		}
		var bases []string
		for _, f := range r.FilesChanged {
			bases = append(bases, pathBase(f))
		}
		for _, x := range r.Errors {
			if x.File != "" {
				bases = append(bases, pathBase(x.File))
			}
		}
		slices.Sort(bases)
		for _, b := range slices.Compact(bases) {
			s.byBase[b] = append(s.byBase[b], e.Path)
		}
	}
	s.named = len(s.byBase) > 0
	for _, p := range l.Problems {
		s.problems = append(s.problems, p.Error())
	}
	return s
}

func (s *runSummary) encode() []byte {
	b := []byte(runSummaryMagic)
	b = binary.LittleEndian.AppendUint32(b, runSummaryVersion)
	b = appendString(b, string(s.key))
	b = appendMap(b, s.last, func(b []byte, v string) []byte { return appendString(b, v) })
	b = binary.AppendUvarint(b, uint64(len(s.problems)))
	for _, p := range s.problems {
		b = appendString(b, p)
	}
	// Last, and as one string per name (its files joined by newlines), so
	// that a read finds a name without decoding the others.
	joined := make(map[string]string, len(s.byBase))
	for k, v := range s.byBase {
		joined[k] = strings.Join(v, "\n")
	}
	return appendMap(b, joined, func(b []byte, v string) []byte { return appendString(b, v) })
}

// names is the test of a base name: did a run name a file of that name.
func (s *runSummary) names() func(string) bool {
	if s.rawBases == nil {
		return func(b string) bool { _, ok := s.byBase[b]; return ok }
	}
	set := map[string]bool{}
	d := decoder{b: s.rawBases}
	for n := d.count(); n > 0 && !d.bad; n-- {
		set[string(d.bytes())] = true
		d.bytes() // the files, not needed here
	}
	return func(b string) bool { return set[b] }
}

// bases returns the files of the runs that named base.
func (s *runSummary) bases(base string) []string {
	if s.rawBases == nil {
		return s.byBase[base]
	}
	d := decoder{b: s.rawBases}
	for n := d.count(); n > 0 && !d.bad; n-- {
		k, v := d.bytes(), d.bytes()
		if string(k) == base {
			return strings.Split(string(v), "\n")
		}
	}
	return nil
}

// appendMap writes m sorted by key: the same summary, the same bytes.
func appendMap[V any](b []byte, m map[string]V, val func([]byte, V) []byte) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		b = appendString(b, k)
		b = val(b, m[k])
	}
	return b
}

// readRunSummary reads the summary at p if it holds for key, whose
// directories' newest time is newest.
func readRunSummary(p string, key []byte, newest int64) (*runSummary, bool) {
	data, ok := fsx.ReadSettled(p, newest)
	if !ok || len(data) < 8 || !bytes.HasPrefix(data, []byte(runSummaryMagic)) ||
		binary.LittleEndian.Uint32(data[4:]) != runSummaryVersion {
		return nil, false
	}
	d := decoder{b: data[8:]}
	if d.str() != string(key) || d.bad {
		return nil, false
	}
	s := &runSummary{key: key, last: map[string]string{}, byBase: map[string][]string{}}
	for n := d.count(); n > 0; n-- {
		k := d.str()
		s.last[k] = d.str()
	}
	for n := d.count(); n > 0; n-- {
		s.problems = append(s.problems, d.str())
	}
	s.rawBases = d.b
	for n := d.count(); n > 0 && !d.bad; n-- { // check the rest is whole
		d.bytes()
		d.bytes()
	}
	if d.bad || len(d.b) != 0 {
		return nil, false
	}
	s.named = len(s.rawBases) > 1 // more than an empty map's count
	return s, true
}

// bytes reads a string without copying it.
func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

// count reads a list's length, bounded by what is left.
func (d *decoder) count() int {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return 0
	}
	return int(n)
}

// runsView is what prime reads of the runs: the full listing when it had
// to list them, else the summary and the store to read single records.
type runsView struct {
	store   runs.Store
	listing *runs.Listing
	sum     *runSummary
}

// loadRuns returns the runs view, from the summary when it holds, else by
// listing every record (and storing the summary).
func loadRuns(store runs.Store) (*runsView, error) { return loadRunsWith(store, store.List) }

// loadRunsWith is loadRuns listing the records with list.
func loadRunsWith(store runs.Store, list func(runs.Filter) (runs.Listing, error)) (*runsView, error) {
	before, exists, err := readRunsKey(store)
	if err != nil {
		return nil, err
	}
	if !exists {
		return &runsView{store: store, listing: &runs.Listing{}, sum: &runSummary{}}, nil
	}
	if store.Cache != "" {
		if s, ok := readRunSummary(runSummaryPath(store), before.key(), before.newest); ok {
			return &runsView{store: store, sum: s}, nil
		}
	}
	l, err := list(runs.Filter{})
	if err != nil {
		return nil, err
	}
	v := &runsView{store: store, listing: &l, sum: summarize(l)}
	if store.Cache == "" {
		return v, nil
	}
	// Stored only if no record was written, added or removed while List
	// read them (a summary of the older records under the newer stamps
	// would hide the new one until the next write), under the list cache's
	// stamp after List, which may have rewritten it.
	after, _, err := readRunsKey(store)
	if err == nil && bytes.Equal(after.dirs, before.dirs) {
		v.sum.key = after.key()
		if os.MkdirAll(filepath.Dir(store.Cache), 0o755) == nil {
			_ = fsx.WriteDerived(runSummaryPath(store), v.sum.encode())
		}
	}
	return v, nil
}

// problems are the records that could not be read.
func (v *runsView) problems() []string { return v.sum.problems }

// read reads the record in a Rel-based file.
func (v *runsView) read(rel string) (runs.Entry, error) {
	file := filepath.Join(v.store.Dir, filepath.FromSlash(strings.TrimPrefix(rel, v.store.Rel+"/")))
	data, err := os.ReadFile(file)
	if err != nil {
		return runs.Entry{}, err
	}
	r, err := runs.Decode(data, rel)
	if err != nil {
		return runs.Entry{}, err
	}
	return runs.Entry{Path: rel, Record: r}, nil
}

// last is actor's newest run of branch that says something
// (Record.SaysSomething), else the newest such run that names no actor
// (recorded before memctl recorded actors), or nil: a session opened and
// quit without a word does not hide the one before it, and another
// actor's session is not taken for this one's.
func (v *runsView) last(branch, actor string) (*runs.Record, error) {
	if v.listing != nil {
		for _, a := range []string{actor, ""} {
			i := slices.IndexFunc(v.listing.Entries, func(e runs.Entry) bool {
				return e.Record.Branch == branch && e.Record.Actor == a && e.Record.SaysSomething()
			})
			if i >= 0 {
				return v.listing.Entries[i].Record, nil
			}
		}
		return nil, nil
	}
	rel, ok := v.sum.last[lastKey(branch, actor)]
	if !ok {
		rel, ok = v.sum.last[lastKey(branch, "")]
	}
	if !ok {
		return nil, nil
	}
	e, err := v.read(rel)
	if err != nil {
		return nil, err
	}
	return e.Record, nil
}

// lastKey is the key of the newest telling run of branch by actor ("":
// records that name no actor, written before memctl recorded it).
func lastKey(branch, actor string) string { return branch + "\x00" + actor }

// naming are the runs that may name files (by base name), newest first:
// all that runs.WarnListed needs of the listing.
func (v *runsView) naming(files []string) (runs.Listing, error) {
	if v.listing != nil {
		return *v.listing, nil
	}
	var rels []string
	for _, f := range files {
		rels = append(rels, v.sum.bases(pathBase(f))...)
	}
	slices.Sort(rels)
	var l runs.Listing
	for _, rel := range slices.Compact(rels) {
		e, err := v.read(rel)
		if err != nil {
			return runs.Listing{}, err
		}
		l.Entries = append(l.Entries, e)
	}
	slices.SortFunc(l.Entries, runs.NewestFirst)
	return l, nil
}

// record is the record of run id, for a pin.
func (v *runsView) record(id string) (*runs.Record, error) {
	if v.listing != nil {
		for _, e := range v.listing.Entries {
			if e.Record.RunID == id {
				return e.Record, nil
			}
		}
		return nil, runs.ErrNotFound
	}
	e, err := v.store.Get(id)
	if err != nil {
		return nil, err
	}
	return e.Record, nil
}
