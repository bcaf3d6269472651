package runs

import (
	"cmp"
	"encoding/json"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memctl/memctl/internal/fsx"
)

// Filter selects runs for List. Zero fields select everything.
type Filter struct {
	TaskID string    // runs that worked on this task
	Status string    // runs with this status (unknown: none recorded)
	Since  time.Time // runs that did something at or after this time (ended_at, else started_at)
	// Signature selects runs one of whose errors has this signature.
	Signature string
	Limit     int // at most this many, newest first (0: all)
}

// Listing is what List found: the records that match, newest first, and
// the files it could not read (each a *FileError or an I/O error), which
// List leaves out rather than failing for one broken file among many.
type Listing struct {
	Entries  []Entry
	Problems []error
}

// List reads every run record and returns those f selects, newest first
// (by started_at, else ended_at; then by run id). Files are read in
// parallel through a decoder for well-formed records; a file it rejects is
// read again by Decode for an error naming the line and field.
func (s Store) List(f Filter) (Listing, error) {
	listings.Add(1)
	months, err := s.months()
	if err != nil {
		return Listing{}, err
	}
	// Reading the cache is work for the processor, checking the files
	// for the file system: they overlap.
	type cacheRead struct {
		entries map[string]cached
		written int64
	}
	cacheCh := make(chan cacheRead, 1)
	go func() {
		entries, written := readCache(s.Cache)
		cacheCh <- cacheRead{entries, written}
	}()
	names, stamps, err := s.scan(months)
	got := <-cacheCh
	cache := got.entries
	if err != nil {
		return Listing{}, err
	}
	entries := make([]Entry, len(names))
	problems := make([]error, len(names))
	var todo []int
	for i, name := range names {
		if c, ok := cache[name]; ok && c.stamp == stamps[i] && fsx.Settled(got.written, c.newest()) {
			entries[i] = Entry{Path: s.Rel + "/" + name, Record: c.r} // file: see fileOf
			continue
		}
		todo = append(todo, i)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0)*2, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			scratch := make([]byte, 16<<10)
			for i := range next {
				entries[i], problems[i] = s.readFast(filepath.Join(s.Dir, filepath.FromSlash(names[i])), scratch)
			}
		}()
	}
	for _, i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	fresh, good := false, 0
	for i := range names {
		if problems[i] == nil {
			good++
		}
	}
	for _, i := range todo {
		fresh = fresh || problems[i] == nil
	}
	if fresh || len(cache) != good {
		var keep []string
		var recs []cached
		for i, name := range names {
			if problems[i] == nil {
				keep = append(keep, name)
				recs = append(recs, cached{stamps[i], entries[i].Record})
			}
		}
		writeCache(s.Cache, keep, recs)
	}
	var out Listing
	for i, e := range entries {
		if problems[i] != nil {
			out.Problems = append(out.Problems, problems[i])
			continue
		}
		if f.selects(e.Record) {
			out.Entries = append(out.Entries, e)
		}
	}
	slices.SortFunc(out.Entries, NewestFirst)
	if f.Limit > 0 && len(out.Entries) > f.Limit {
		out.Entries = out.Entries[:f.Limit]
	}
	return out, nil
}

// Files lists the record files, Rel-based and slash-separated
// (.ledger/runs/2026-11/r-x.json), months oldest first: what recall
// indexes.
func (s Store) Files() ([]string, error) {
	months, err := s.months()
	if err != nil {
		return nil, err
	}
	names, _, err := s.scan(months)
	if err != nil {
		return nil, err
	}
	for i, n := range names {
		names[i] = s.Rel + "/" + n
	}
	return names, nil
}

// scan lists the record files of the months (month/name.json) with what
// each is on disk now, the months read in parallel: checking thousands of
// files against the cache is one lstat each.
func (s Store) scan(months []string) ([]string, []stamp, error) {
	type month struct {
		names  []string
		stamps []stamp
		err    error
	}
	got := make([]month, len(months))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, m := range months {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			files, err := fsx.Stamps(filepath.Join(s.Dir, m))
			if err != nil {
				got[i].err = err
				return
			}
			for _, f := range files {
				if strings.HasSuffix(f.Name, ".json") && !strings.HasPrefix(f.Name, ".") {
					got[i].names = append(got[i].names, m+"/"+f.Name)
					got[i].stamps = append(got[i].stamps, stamp{size: f.Size, mtime: f.ModTime, ctime: f.ChangeTime, ino: f.Ino})
				}
			}
		}()
	}
	wg.Wait()
	var names []string
	var stamps []stamp
	for _, g := range got {
		if g.err != nil {
			return nil, nil, g.err
		}
		names = append(names, g.names...)
		stamps = append(stamps, g.stamps...)
	}
	return names, stamps, nil
}

// NewestFirst orders entries as listings are: newest first (SortTime),
// then by run id.
func NewestFirst(a, b Entry) int {
	if c := b.Record.SortTime().Compare(a.Record.SortTime()); c != 0 {
		return c
	}
	return cmp.Compare(a.Record.RunID, b.Record.RunID)
}

// SortTime is when the run started, else when it ended when its start is
// unknown: the time runs are listed and recalled by.
func (r *Record) SortTime() time.Time {
	if !r.StartedAt.IsZero() {
		return r.StartedAt
	}
	return r.EndedAt
}

func (f Filter) selects(r *Record) bool {
	switch {
	case f.TaskID != "" && !r.HasTask(f.TaskID):
		return false
	case f.Status != "" && r.StatusOrUnknown() != f.Status:
		return false
	case !f.Since.IsZero() && r.Time().Before(f.Since):
		return false
	case f.Signature != "" && !r.HasSignature(f.Signature):
		return false
	}
	return true
}

// readFast reads the record at p with encoding/json into plain structs,
// which is several times faster than Decode's walk; a file it does not
// take as it is goes to read, for Decode's error. Unknown keys are not
// kept: listed records are never written back.
func (s Store) readFast(p string, scratch []byte) (Entry, error) {
	data, err := fsx.ReadSmall(p, scratch)
	if err != nil {
		return Entry{}, err
	}
	var w wireRecord
	if json.Unmarshal(data, &w) != nil {
		return s.read(p)
	}
	r, ok := w.record()
	if !ok {
		return s.read(p)
	}
	return Entry{Path: s.rel(p), Record: r, file: p}, nil
}

// wireRecord is the file format for encoding/json; record checks what
// Decode checks beyond types.
type wireRecord struct {
	SchemaVersion *int     `json:"schema_version"`
	RunID         *string  `json:"run_id"`
	SessionID     string   `json:"session_id"`
	Actor         string   `json:"actor"`
	TaskIDs       []string `json:"task_ids"`
	Agent         struct {
		Runtime string `json:"runtime"`
		Model   string `json:"model"`
	} `json:"agent"`
	Repo      string `json:"repo"`
	Branch    string `json:"branch"`
	CommitSHA string `json:"commit_sha"`
	StartedAt string `json:"started_at"`
	EndedAt   string `json:"ended_at"`
	Status    string `json:"status"`
	Digest    struct {
		Intent    string   `json:"intent"`
		Result    string   `json:"result"`
		Changes   []string `json:"changes"`
		Decisions []string `json:"decisions"`
		Gotchas   []string `json:"gotchas"`
		NextSteps []string `json:"next_steps"`
	} `json:"digest"`
	FilesChanged []string `json:"files_changed"`
	Commands     []struct {
		Cmd      string `json:"cmd"`
		ExitCode int    `json:"exit_code"`
	} `json:"commands"`
	Tests []struct {
		Name   string `json:"name"`
		Status string `json:"status"`
	} `json:"tests"`
	Errors []struct {
		Signature string `json:"signature"`
		Excerpt   string `json:"excerpt"`
		File      string `json:"file"`
		Line      int    `json:"line"`
	} `json:"errors"`
	ArtifactRefs []string `json:"artifact_refs"`
}

func (w *wireRecord) record() (*Record, bool) {
	if w.RunID == nil || !ValidRunID(*w.RunID) || !validStatus(w.Status) ||
		w.SchemaVersion != nil && (*w.SchemaVersion < 1 || *w.SchemaVersion > SchemaVersion) {
		return nil, false
	}
	r := &Record{
		SchemaVersion: SchemaVersion, RunID: *w.RunID, SessionID: w.SessionID, Actor: w.Actor, TaskIDs: w.TaskIDs,
		Agent: Agent{Runtime: w.Agent.Runtime, Model: w.Agent.Model},
		Repo:  w.Repo, Branch: w.Branch, CommitSHA: w.CommitSHA, Status: w.Status,
		Digest: Digest{Intent: w.Digest.Intent, Result: w.Digest.Result, Changes: w.Digest.Changes,
			Decisions: w.Digest.Decisions, Gotchas: w.Digest.Gotchas, NextSteps: w.Digest.NextSteps},
		FilesChanged: w.FilesChanged, ArtifactRefs: w.ArtifactRefs,
	}
	var ok bool
	if r.StartedAt, ok = parseTime(w.StartedAt); !ok {
		return nil, false
	}
	if r.EndedAt, ok = parseTime(w.EndedAt); !ok {
		return nil, false
	}
	for _, c := range w.Commands {
		r.Commands = append(r.Commands, Command{Cmd: c.Cmd, ExitCode: c.ExitCode})
	}
	for _, t := range w.Tests {
		if !slices.Contains(TestStatuses, t.Status) {
			return nil, false
		}
		r.Tests = append(r.Tests, Test{Name: t.Name, Status: t.Status})
	}
	for _, e := range w.Errors {
		if e.Line < 0 {
			return nil, false
		}
		r.Errors = append(r.Errors, Error{Signature: e.Signature, Excerpt: e.Excerpt, File: e.File, Line: e.Line})
	}
	return r, true
}

func parseTime(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, true
	}
	t, err := time.Parse(time.RFC3339, s)
	return t.UTC(), err == nil
}

// listings counts List's calls: the tests of the hook index check with it
// that an answer took no listing.
var listings atomic.Int64
