package runs

import (
	"context"
	"errors"
	"fmt"
	"github.com/memctl/memctl/internal/secrets"
	"path/filepath"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/runs/transcript"
	"github.com/memctl/memctl/internal/tasks"
)

// ErrNoSession is returned by Flush when neither the hook's input nor the
// caller names a session: there is nothing to record.
var ErrNoSession = errors.New("no session to record: no session_id in the hook input on stdin, and MEMCTL_SESSION_ID is not set")

// FlushRequest is what a pre-compaction or session-end hook knows.
type FlushRequest struct {
	// Hook is the hook's input, parsed (the zero value: none).
	Hook transcript.HookInput
	// SessionID is the session when the hook names none (MEMCTL_SESSION_ID).
	SessionID string
	// Runtime is the runtime when neither the transcript nor the hook's
	// input tells it (from the environment the hook runs in).
	Runtime string
	Store   Store
	// Root is the repository's root: the transcript's paths are made
	// relative to it.
	Root string
	// Context is the workspace's repository, branch and commit; its Now is
	// the time of the flush.
	Context Context
	// Lock takes the workspace lock until release is called; nil means the
	// caller holds it. The transcript is read before it is called.
	Lock func(ctx context.Context) (release func(), err error)
	// Tasks says where progress notes go; nil: no notes.
	Tasks *TaskNotes
	// Secrets is the workspace's [secrets] policy: a flush always
	// redacts (whatever its mode), except what its allow-list lets
	// through.
	Secrets secrets.Policy
	// AfterRecord, when set, is called with the stored record once it is
	// written, still under the lock (the front-end files what recording
	// it makes worth a proposal: consolidate.AfterRecord). Its failures
	// are its own to report: the record stays written.
	AfterRecord func(ctx context.Context, r *Record)
	// ReadBudget bounds the reading of the transcript (0: only ctx does),
	// so that a slow read leaves time for the lock and the writes: what
	// was read by then is recorded.
	ReadBudget time.Duration
}

// TaskNotes is the task graph flush appends progress notes to: one line
// per run to each task Actor has in progress.
type TaskNotes struct {
	Workspace *config.Workspace
	Cache     string // the task graph's derived cache ("": none)
	Actor     tasks.Actor
}

// FlushResult is what a flush did.
type FlushResult struct {
	Entry   Entry // the run record as stored
	Created bool  // the record's file is new
	// Noted are the tasks whose progress note was appended or brought up
	// to date; a note already up to date is not counted.
	Noted []string
	// Warnings are what was skipped and why: a transcript that could not
	// be read (the record still notes the session), lines of it skipped,
	// notes not written.
	Warnings []error
}

// Flush records an agent session from a hook: it reads the session's
// transcript (when the hook names one and its runtime's format is known),
// turns it into a run record (FromSession), writes it merged into the
// session's existing record through the gate in Redact mode, and brings
// each task the actor has in progress up to date with one progress note
// for this run. Flushing a session again updates the same record and the
// same note. An error means nothing was written (ErrNoSession, the lock,
// the record's file); what was skipped along the way is in Warnings.
func Flush(ctx context.Context, req FlushRequest) (FlushResult, error) {
	var res FlushResult
	sid := req.Hook.SessionID
	if sid == "" {
		sid = req.SessionID
	}
	if sid == "" {
		return res, ErrNoSession
	}
	s, runtime, warn := readSession(ctx, req)
	if warn != nil {
		res.Warnings = append(res.Warnings, warn)
	}
	if req.Lock != nil {
		release, err := req.Lock(ctx)
		if err != nil {
			return res, err
		}
		defer release()
	}
	id, found, err := req.Store.SessionRunIndexed(runtime, sid)
	if err != nil {
		// Several records carry the session (or the store cannot be
		// listed): the id this flush derives is still this session's.
		id = SessionRunID(runtime, sid)
		res.Warnings = append(res.Warnings, fmt.Errorf("find the session's run record: %w; writing %s", err, id))
	}
	rec := FromSession(s, req.Hook, req.Root, req.Context.Now)
	rec.RunID, rec.SessionID = id, sid
	if runtime != transcript.RuntimeUnknown || !found {
		// Merged, an "unknown" would replace what an earlier flush knew;
		// a new record says it.
		rec.Agent.Runtime = runtime
	}
	rec.Fill(Context{Repo: req.Context.Repo, Branch: req.Context.Branch, CommitSHA: req.Context.CommitSHA, Actor: req.Context.Actor})
	notes, err := openNotes(req.Tasks)
	if err != nil {
		res.Warnings = append(res.Warnings, err)
	}
	if notes != nil {
		rec.TaskIDs = union(rec.TaskIDs, notes.ids, func(a, b string) bool { return a == b })
	}
	res.Entry, res.Created, err = req.Store.Put(rec, PutOptions{Now: req.Context.Now, Gate: Redact, Secrets: req.Secrets, Merge: mergeFlush})
	if err != nil {
		return res, err
	}
	if req.AfterRecord != nil {
		req.AfterRecord(ctx, res.Entry.Record)
	}
	if line := ProgressNote(res.Entry.Record, req.Context.Now); notes != nil && line != "" {
		noted, err := notes.write(id, line, req.Context.Now)
		res.Noted = noted
		if err != nil {
			res.Warnings = append(res.Warnings, err)
		}
	}
	return res, nil
}

// readSession reads the hook's transcript, if there is one flush can
// read, within req.ReadBudget. It returns the session (nil
// when none was read), the runtime the record is of, and a warning.
func readSession(ctx context.Context, req FlushRequest) (*transcript.Session, string, error) {
	runtime := req.Hook.Runtime
	if runtime == "" || runtime == transcript.RuntimeUnknown {
		runtime = req.Runtime
	}
	if runtime == "" {
		runtime = transcript.RuntimeUnknown
	}
	path := req.Hook.TranscriptPath
	if path == "" || runtime == transcript.RuntimeGemini || runtime == transcript.RuntimeCursor {
		return nil, runtime, nil // no transcript, or one of a format memctl does not read
	}
	if !filepath.IsAbs(path) && req.Hook.Cwd != "" {
		path = filepath.Join(req.Hook.Cwd, path)
	}
	if req.ReadBudget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, req.ReadBudget)
		defer cancel()
	}
	s, err := transcript.Read(ctx, path, runtime, transcript.Options{Root: req.Root})
	switch {
	case s == nil:
		return nil, runtime, fmt.Errorf("%w; the run record notes the session without it", err)
	case errors.Is(err, context.DeadlineExceeded):
		err = fmt.Errorf("read transcript %s: out of time; recording what was read", path)
	case errors.Is(err, context.Canceled):
		err = fmt.Errorf("read transcript %s: cancelled; recording what was read", path)
	}
	return s, s.Runtime, err
}
