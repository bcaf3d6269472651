package runs

import (
	"errors"
	"fmt"
	"github.com/memctl/memctl/internal/secrets"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/runs/signature"

	"github.com/memctl/memctl/internal/fsx"
)

// ErrNotFound is returned for a run id that has no record.
var ErrNotFound = errors.New("run not found")

// Store is the directory of run records, .ledger/runs.
type Store struct {
	// Dir is the directory on disk; Rel is how files are named in
	// results and errors (.ledger/runs, slash-separated).
	Dir, Rel string
	// Cache is the file of List's derived cache ("": none), outside the
	// working tree (under the git directory).
	Cache string
	// Index is the tool hooks' derived index ("": none), under the git
	// directory (warnindex.go); Playbooks the playbooks directory whose
	// citations it holds ("": none).
	Index, Playbooks string
	// TryLock takes the workspace lock if nobody holds it (ok false
	// otherwise, at once): a reader that builds the index writes it only
	// under the lock. nil: readers never write it.
	TryLock func() (release func(), ok bool)
	// Now is the clock the index's carry limit also counts by; nil: the
	// runs' own newest stamp alone.
	Now func() time.Time
}

// Entry is a record and the file it lives in (Rel-based, slash-separated).
type Entry struct {
	Path   string
	Record *Record
	// Redactions lists what the write gate replaced when Put stored the
	// record (redact mode, or flush); nil otherwise.
	Redactions []secrets.Redaction
	file       string // on disk, when known (else fileOf derives it from Path)
}

// Month is the directory name of a run that started at t: its UTC year and
// month.
func Month(t time.Time) string { return t.UTC().Format("2006-01") }

// PathOf is where a new record of run id that started at t is written:
// Dir/<yyyy-mm>/<id>.json. An existing record stays where it is: use Find.
func (s Store) PathOf(id string, t time.Time) string {
	return filepath.Join(s.Dir, Month(t), id+".json")
}

// fileOf is e's file on disk.
func (s Store) fileOf(e Entry) string {
	if e.file != "" {
		return e.file
	}
	return filepath.Join(s.Dir, filepath.FromSlash(strings.TrimPrefix(e.Path, s.Rel+"/")))
}

// rel names the file at p for results and errors.
func (s Store) rel(p string) string {
	r, err := filepath.Rel(s.Dir, p)
	if err != nil {
		return p
	}
	return path.Join(s.Rel, filepath.ToSlash(r))
}

// months lists the month directories, oldest first.
func (s Store) months() ([]string, error) {
	ents, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", s.Rel, err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// Find returns the file of run id in whichever month directory holds it,
// or ErrNotFound. When two months hold one (branches that recorded the
// same run in different months), the earlier month's is the record.
func (s Store) Find(id string) (string, error) {
	if !ValidRunID(id) {
		return "", fmt.Errorf("run %q: %w", id, ErrNotFound)
	}
	months, err := s.months()
	if err != nil {
		return "", err
	}
	for _, m := range months {
		p := filepath.Join(s.Dir, m, id+".json")
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", fmt.Errorf("run %q: %w", id, ErrNotFound)
}

// Get reads the record of run id; ErrNotFound when there is none, a
// *FileError when its file cannot be read as a record.
func (s Store) Get(id string) (Entry, error) {
	p, err := s.Find(id)
	if err != nil {
		return Entry{}, err
	}
	return s.read(p)
}

func (s Store) read(p string) (Entry, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return Entry{}, fmt.Errorf("read %s: %w", s.rel(p), err)
	}
	r, err := Decode(data, s.rel(p))
	if err != nil {
		return Entry{}, err
	}
	return Entry{Path: s.rel(p), Record: r, file: p}, nil
}

// fileTime is t as a record file holds it: whole seconds, UTC.
func fileTime(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC().Truncate(time.Second)
}

// maxClockSkew is how far in the future a run's times may be: another
// machine's clock, not a run that has not happened.
const maxClockSkew = 24 * time.Hour

// PutOptions say how Put writes.
type PutOptions struct {
	// Now is the time of the write: the month of a new record that has no
	// started_at.
	Now time.Time
	// Gate is how text passes the secret gate: Refuse (what agents type)
	// or Redact (what hooks mine from transcripts).
	Gate Gate
	// Secrets is the workspace's [secrets] policy: its allow-list holds
	// in both gates, its mode in Refuse.
	Secrets secrets.Policy
	// Merge combines the stored record with the new one; nil is Merge.
	// Flush passes one that first drops what its earlier flushes of the
	// session summed up and the new record sums up again.
	Merge func(old, new *Record) *Record
}

// Put writes r, merged into the existing record of its run id if there is
// one (Merge; the file stays in its month), and returns what was stored,
// its file and whether the file is new. The text r brings passes the
// gate first (a *secrets.RefusedError or *secrets.TextError in Refuse
// mode); excerpts are cut to MaxExcerpt characters. An existing file that
// cannot be read is left as it is (the *FileError is returned). The
// caller holds the workspace lock.
func (s Store) Put(r *Record, opts PutOptions) (Entry, bool, error) {
	if !ValidRunID(r.RunID) {
		return Entry{}, false, &InvalidError{Field: "run_id", Msg: fmt.Sprintf("%q is not a run id: 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", r.RunID)}
	}
	if err := r.validate(opts.Now, opts.Gate == Refuse); err != nil {
		return Entry{}, false, err
	}
	in := r.clone()
	// The file keeps whole seconds in UTC: what Put returns is what it wrote.
	in.StartedAt, in.EndedAt = fileTime(in.StartedAt), fileTime(in.EndedAt)
	// An error recorded without a signature gets the one of its whole
	// text as given: the signature drops colour codes and control
	// characters, which the gate would turn into other characters, and is
	// a hash, which holds no secret.
	for i := range in.Errors {
		if in.Errors[i].Signature == "" {
			in.Errors[i].Signature = signature.Of(in.Errors[i].Excerpt).Hash
		}
	}
	redacted, err := opts.Gate.pass(in, opts.Secrets)
	if err != nil {
		return Entry{}, false, err
	}
	for i := range in.Errors {
		in.Errors[i].Excerpt = Cut(in.Errors[i].Excerpt, MaxExcerpt)
	}
	p, err := s.Find(r.RunID)
	created := errors.Is(err, ErrNotFound)
	var before *putState // the hook index as it was, to keep it current
	switch {
	case created:
		t := in.StartedAt
		if t.IsZero() {
			t = opts.Now
		}
		p = s.PathOf(r.RunID, t)
		before = s.indexBefore(p)
		if _, err := fsx.MkdirAll(filepath.Dir(p)); err != nil {
			return Entry{}, false, err
		}
	case err != nil:
		return Entry{}, false, err
	default:
		old, err := s.read(p)
		if err != nil {
			return Entry{}, false, err
		}
		merge := opts.Merge
		if merge == nil {
			merge = Merge
		}
		in = merge(old.Record, in)
		before = s.indexBefore(p)
	}
	in.SchemaVersion = SchemaVersion
	if before != nil {
		s.ForgetIndex() // indexPut writes it again: a Put cut short leaves none
	}
	if err := fsx.WriteFile(p, Encode(in), 0o644); err != nil {
		return Entry{}, false, err
	}
	s.indexPut(before, p, in)
	return Entry{Path: s.rel(p), Record: in, Redactions: redacted, file: p}, created, nil
}

// InvalidError is a record memctl will not write: a field holds a value
// outside its set.
type InvalidError struct {
	Field string
	Msg   string
}

func (e *InvalidError) Error() string { return fmt.Sprintf("field %q: %s", e.Field, e.Msg) }

func (r *Record) validate(now time.Time, times bool) error {
	if times {
		if err := r.validTimes(now); err != nil {
			return err
		}
	}
	if !validStatus(r.Status) {
		return &InvalidError{Field: "status", Msg: fmt.Sprintf("unknown status %q: use %s", r.Status, statusList(Statuses))}
	}
	for i, t := range r.Tests {
		if !slices.Contains(TestStatuses, t.Status) {
			return &InvalidError{Field: fmt.Sprintf("tests[%d].status", i), Msg: fmt.Sprintf("unknown test status %q: use %s", t.Status, statusList(TestStatuses))}
		}
		if t.Name == "" {
			return &InvalidError{Field: fmt.Sprintf("tests[%d].name", i), Msg: "a test needs a name"}
		}
	}
	for i, e := range r.Errors {
		if e.Line < 0 {
			return &InvalidError{Field: fmt.Sprintf("errors[%d].line", i), Msg: fmt.Sprintf("want a line number (1 or more), not %d", e.Line)}
		}
	}
	return nil
}

// validTimes refuses times that cannot be a run's: a time more than
// maxClockSkew after now, an end before the start. Only what an agent types
// is held to it: a transcript's times are the session's, whatever they say.
func (r *Record) validTimes(now time.Time) error {
	for _, t := range []struct {
		field string
		at    time.Time
	}{{"started_at", r.StartedAt}, {"ended_at", r.EndedAt}} {
		if !now.IsZero() && t.at.After(now.Add(maxClockSkew)) {
			return &InvalidError{Field: t.field, Msg: fmt.Sprintf("%s is in the future (now is %s)", t.at.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))}
		}
	}
	if !r.StartedAt.IsZero() && !r.EndedAt.IsZero() && r.EndedAt.Before(r.StartedAt) {
		return &InvalidError{Field: "ended_at", Msg: fmt.Sprintf("%s is before started_at %s", r.EndedAt.UTC().Format(time.RFC3339), r.StartedAt.UTC().Format(time.RFC3339))}
	}
	return nil
}

// clone is a copy of r that shares no list with it.
func (r *Record) clone() *Record {
	c := *r
	c.TaskIDs = slices.Clone(r.TaskIDs)
	c.Agent.extra = slices.Clone(r.Agent.extra)
	c.Digest.Changes = slices.Clone(r.Digest.Changes)
	c.Digest.Decisions = slices.Clone(r.Digest.Decisions)
	c.Digest.Gotchas = slices.Clone(r.Digest.Gotchas)
	c.Digest.NextSteps = slices.Clone(r.Digest.NextSteps)
	c.Digest.extra = slices.Clone(r.Digest.extra)
	c.FilesChanged = slices.Clone(r.FilesChanged)
	c.Commands = slices.Clone(r.Commands)
	c.Tests = slices.Clone(r.Tests)
	c.Errors = slices.Clone(r.Errors)
	c.ArtifactRefs = slices.Clone(r.ArtifactRefs)
	c.extra = slices.Clone(r.extra)
	for i := range c.Commands {
		c.Commands[i].extra = slices.Clone(c.Commands[i].extra)
	}
	for i := range c.Tests {
		c.Tests[i].extra = slices.Clone(c.Tests[i].extra)
	}
	for i := range c.Errors {
		c.Errors[i].extra = slices.Clone(c.Errors[i].extra)
	}
	return &c
}
