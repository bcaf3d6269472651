package prime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/runs"
	"github.com/memctl/memctl/internal/tasks"
)

// The working set: the ids an actor has pinned, which prime prints right
// after the facts with their current text. Each actor's pins are a file
// under the git directory (<git common dir>/memctl/pins/), shared by the
// worktrees and never committed: they are one agent's choice, not the
// team's memory. So the lock that guards one is its own (<file>.lock,
// beside it), not the workspace lock of one worktree.

// Kinds of pinned item.
const (
	KindFact     = "fact"
	KindTask     = "task"
	KindRun      = "run"
	KindPlaybook = "playbook"
)

// pinsVersion is the version of a pins file.
const pinsVersion = 1

// Pin is one pinned id, what kind of item it named when it was pinned,
// and when.
type Pin struct {
	ID       string    `json:"id"`
	Kind     string    `json:"kind"`
	PinnedAt time.Time `json:"pinned_at"`
}

// pinsFile is a pins file's content.
type pinsFile struct {
	SchemaVersion int    `json:"schema_version"`
	Actor         string `json:"actor"`
	Pins          []Pin  `json:"pins"`
}

// PinsDir is where a workspace's pins are kept.
func PinsDir(ws *config.Workspace) string {
	return filepath.Join(ws.Repo.CommonDir, "memctl", "pins")
}

// PinsPath is actor's pins file in dir: a readable part of the name
// (letters, digits, '-', '_', '.') and a hash of the whole, so that two
// names never share a file and no name escapes the directory.
func PinsPath(dir, actor string) string {
	var b strings.Builder
	for _, r := range actor {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case b.Len() > 0 && b.Len() < 32:
			b.WriteByte('_')
		}
		if b.Len() >= 32 {
			break
		}
	}
	sum := sha256.Sum256([]byte(actor))
	return filepath.Join(dir, strings.Trim(b.String(), "_")+"-"+hex.EncodeToString(sum[:])[:12]+".json")
}

// LoadPins reads actor's pins, oldest first; none when there is no file.
func LoadPins(dir, actor string) ([]Pin, error) {
	path := PinsPath(dir, actor)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read pins: %w", err)
	}
	var f pinsFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("read pins %s: %w (delete the file to start again)", path, err)
	}
	if f.SchemaVersion > pinsVersion {
		return nil, fmt.Errorf("read pins %s: schema_version %d is newer than this memctl reads (%d)", path, f.SchemaVersion, pinsVersion)
	}
	return f.Pins, nil
}

// SavePins replaces actor's pins, atomically. The caller holds the pins'
// lock (UpdatePins takes it).
func SavePins(dir, actor string, pins []Pin) error {
	if _, err := fsx.MkdirAll(dir); err != nil {
		return err
	}
	if pins == nil {
		pins = []Pin{}
	}
	data, err := json.MarshalIndent(pinsFile{SchemaVersion: pinsVersion, Actor: actor, Pins: pins}, "", "  ")
	if err != nil {
		return err
	}
	return fsx.WriteFile(PinsPath(dir, actor), append(data, '\n'), 0o644)
}

// PinsLockPath is the lock guarding actor's pins file in dir.
func PinsLockPath(dir, actor string) string { return PinsPath(dir, actor) + ".lock" }

// UpdatePins replaces actor's pins in dir by update's answer to the
// current ones, under the pins' lock (taken by acquire, which waits as for
// the workspace lock): the pins are shared by every worktree of the
// repository, whose workspace locks are their own, and a change read
// before another's save would undo it. It returns the pins as saved (the
// file is written only when they changed).
func UpdatePins(ctx context.Context, dir, actor string, acquire func(ctx context.Context, path string) (*fsx.Lock, error),
	update func(have []Pin) []Pin) (pins []Pin, err error) {
	lock, err := acquire(ctx, PinsLockPath(dir, actor))
	if err != nil {
		return nil, err
	}
	defer func() {
		if rerr := lock.Release(); err == nil && rerr != nil {
			err = fmt.Errorf("release the pins' lock: %w", rerr)
		}
	}()
	have, err := LoadPins(dir, actor)
	if err != nil {
		return nil, err
	}
	pins = update(slices.Clone(have))
	if slices.Equal(pins, have) {
		return pins, nil
	}
	if err := SavePins(dir, actor, pins); err != nil {
		return nil, err
	}
	return pins, nil
}

// AddPins adds pins not already pinned (by id) at the end; it returns the
// new list and which of add were new.
func AddPins(have, add []Pin) (all []Pin, added []Pin) {
	all = slices.Clone(have)
	for _, p := range add {
		if !slices.ContainsFunc(all, func(q Pin) bool { return q.ID == p.ID }) {
			all = append(all, p)
			added = append(added, p)
		}
	}
	return all, added
}

// RemovePins drops the pins with the given ids; it returns the new list
// and the ids that were not pinned.
func RemovePins(have []Pin, ids []string) (kept []Pin, missing []string) {
	for _, id := range ids {
		if !slices.ContainsFunc(have, func(p Pin) bool { return p.ID == id }) {
			missing = append(missing, id)
		}
	}
	kept = slices.DeleteFunc(slices.Clone(have), func(p Pin) bool { return slices.Contains(ids, p.ID) })
	return kept, missing
}

// ErrUnknownID is returned for an id that names no fact, task, run or
// playbook.
var ErrUnknownID = errors.New("no fact, task, run or playbook has this id")

// Item is what an id names now: its kind and a one-line text (a fact's
// text, a task's status and title, a run's intent and result, a
// playbook's title). Gone is set when the id names nothing any more;
// Unreadable when it may name something in a file that cannot be read now
// (a facts file with conflict markers).
type Item struct {
	ID, Kind, Text string
	Gone           bool
	Unreadable     bool
}

// Finder finds what ids name in a workspace. A nil field is a layer that
// is off (or could not be read): its ids are not found.
type Finder struct {
	Facts *ledger.Ledger
	// FactsUnread are the facts files left out of Facts because they
	// cannot be read (Unreadable): a fact not found may be in one.
	FactsUnread []string
	// TasksUnread says why the task graph cannot be read now ("" when it
	// can): a task pin then says so instead of being looked up.
	TasksUnread string
	// Task returns a task's status and title.
	Task func(id string) (status, title string, ok bool, err error)
	// Run returns a run's record (runs.ErrNotFound when there is none).
	Run func(id string) (*runs.Record, error)
	// PlaybooksDir and PlaybooksRel are the playbooks directory ("" for none).
	PlaybooksDir, PlaybooksRel string
}

// LoadFinder finds ids in the enabled layers of ws, reading the whole of
// each: the facts, the task graph (through its cache), the run store and
// the playbooks. A task graph that cannot be read does not take the other
// pins down: TasksUnread says why, and task pins say so.
func LoadFinder(ws *config.Workspace, tasksCache string, store runs.Store) (*Finder, error) {
	f := &Finder{}
	if ws.Config.Facts.Enabled {
		l, err := ledger.Load(ws.Path(config.FactsDir), config.FactsDir)
		if err != nil {
			return nil, err
		}
		var unread []*ledger.File
		f.Facts, unread = Readable(l)
		for _, u := range unread {
			f.FactsUnread = append(f.FactsUnread, u.Path)
		}
	}
	if ws.Config.Tasks.Enabled {
		st, err := tasks.LoadCached(ws.Path(config.IssuesFile), tasksCache)
		if err != nil {
			f.TasksUnread = fmt.Sprintf("%s cannot be read: %v", config.IssuesFile, err)
		} else {
			f.Task = StoreTasks(st)
		}
	}
	if ws.Config.Runs.Enabled {
		f.Run = StoreRuns(store)
		f.PlaybooksDir, f.PlaybooksRel = ws.Path(config.PlaybooksDir), config.PlaybooksDir
	}
	return f, nil
}

// StoreTasks is a Finder.Task over a loaded task graph.
func StoreTasks(st *tasks.Store) func(string) (string, string, bool, error) {
	return func(id string) (string, string, bool, error) {
		iss, err := st.Get(id)
		if errors.Is(err, tasks.ErrNotFound) {
			return "", "", false, nil
		}
		if err != nil {
			return "", "", false, err
		}
		return iss.Status, iss.Title, true, nil
	}
}

// PlaybookID is the signature a playbook is pinned by: a signature as
// given, or the signature of a path to its file
// (.ledger/playbooks/<signature>.md).
func PlaybookID(id string) string {
	if strings.HasSuffix(id, ".md") {
		if sig := strings.TrimSuffix(filepath.Base(filepath.FromSlash(id)), ".md"); ledger.ValidSignature(sig) {
			return sig
		}
	}
	return id
}

// Find says what id names, looking for a fact, a task, a run, then a
// playbook (the first that has the id). kind, when not "", looks only for
// that kind (a pin's kind: an id pinned as a task stays a task). An id
// that names nothing is an Item with Gone set when kind is given, else an
// ErrUnknownID.
func (f *Finder) Find(id, kind string) (Item, error) {
	want := func(k string) bool { return kind == "" || kind == k }
	if want(KindFact) && f.Facts != nil {
		if fact, ok := f.Facts.Fact(id); ok {
			return Item{ID: id, Kind: KindFact, Text: fmt.Sprintf("[%s] %s", fact.Category, oneLine(fact.Text))}, nil
		}
	}
	if want(KindTask) && f.Task != nil {
		status, title, ok, err := f.Task(id)
		if err != nil {
			return Item{}, err
		}
		if ok {
			return Item{ID: id, Kind: KindTask, Text: fmt.Sprintf("[%s] %s", status, oneLine(title))}, nil
		}
	}
	if want(KindRun) && f.Run != nil && runs.ValidRunID(id) {
		r, err := f.Run(id)
		if err != nil && !errors.Is(err, runs.ErrNotFound) {
			return Item{}, err
		}
		if err == nil {
			return Item{ID: id, Kind: KindRun, Text: runText(r)}, nil
		}
	}
	if sig := PlaybookID(id); want(KindPlaybook) && f.PlaybooksDir != "" && ledger.ValidSignature(sig) {
		rel := f.PlaybooksRel + "/" + ledger.PlaybookFileName(sig)
		b, err := ledger.ReadPlaybook(filepath.Join(f.PlaybooksDir, ledger.PlaybookFileName(sig)), rel)
		if err != nil {
			return Item{}, err
		}
		if b != nil {
			return Item{ID: sig, Kind: KindPlaybook, Text: fmt.Sprintf("%s (%s)", oneLine(b.Title()), rel)}, nil
		}
	}
	if kind == KindTask && f.TasksUnread != "" {
		return Item{ID: id, Kind: kind, Unreadable: true,
			Text: fmt.Sprintf("cannot be read now (%s: memctl check)", f.TasksUnread)}, nil
	}
	if kind != "" && !f.reads(kind) {
		return Item{ID: id, Kind: kind, Text: "not shown: its layer is off"}, nil
	}
	if kind == KindFact && len(f.FactsUnread) > 0 {
		return Item{ID: id, Kind: kind, Unreadable: true,
			Text: fmt.Sprintf("cannot be read now (%s cannot be read: memctl check)", strings.Join(f.FactsUnread, ", "))}, nil
	}
	if kind != "" {
		return Item{ID: id, Kind: kind, Gone: true, Text: "no longer exists"}, nil
	}
	if f.TasksUnread != "" {
		return Item{}, fmt.Errorf("not found, and it may be a task: %s; fix it (memctl check) and pin it again", f.TasksUnread)
	}
	return Item{}, ErrUnknownID // the caller names the id, as it names every id's error
}

// Readable splits l into the facts files that can be used and the paths
// of those that cannot be read: a file with conflict markers (it holds
// both sides' facts), or with content but no fact read from it. A file
// with other problems (an empty item, say) keeps the facts that could be
// read.
func Readable(l *ledger.Ledger) (kept *ledger.Ledger, unread []*ledger.File) {
	kept = &ledger.Ledger{}
	for _, f := range l.Files {
		if len(f.Problems) > 0 && (len(f.ConflictLines) > 0 || (len(f.Facts) == 0 && f.Bytes > 0)) {
			unread = append(unread, f)
			continue
		}
		kept.Files = append(kept.Files, f)
	}
	return kept, unread
}

// reads reports whether f looks for items of kind.
func (f *Finder) reads(kind string) bool {
	switch kind {
	case KindFact:
		return f.Facts != nil
	case KindTask:
		return f.Task != nil
	case KindRun:
		return f.Run != nil
	case KindPlaybook:
		return f.PlaybooksDir != ""
	}
	return false
}

// StoreRuns is a Finder.Run over a run store.
func StoreRuns(store runs.Store) func(string) (*runs.Record, error) {
	return func(id string) (*runs.Record, error) {
		e, err := store.Get(id)
		if err != nil {
			return nil, err
		}
		return e.Record, nil
	}
}

// runText is a run as one line: its status, intent and result.
func runText(r *runs.Record) string {
	text := fmt.Sprintf("[%s]", r.StatusOrUnknown())
	if r.Digest.Intent != "" {
		text += " " + oneLine(r.Digest.Intent)
	}
	if r.Digest.Result != "" {
		text += " -> " + oneLine(r.Digest.Result)
	}
	return clip(text, 2*maxNote)
}
