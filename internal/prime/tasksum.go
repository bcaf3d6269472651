package prime

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/tasks"
)

// Loading the whole task graph costs tens of milliseconds at 10,000
// tasks, most of prime's budget, even from the task cache (which is
// checked against the file's CRC, a read of every byte). prime needs
// little of it: the tasks in progress, the first ready tasks, and the
// title and status of a pinned task. So it keeps that summary in a
// derived file of its own next to the task cache, for a file of exactly
// this stamp (fsx.Stamp: size, modification and change times, inode, of
// the file a link names, as the loader reads it), written at least
// fsx.RacyWindow after that file's newest time, and, since which tasks
// are ready depends on the time only through defer_until, for the
// interval between the deferral times around the moment it was built.
// Anything that does not match is rebuilt from the graph; a file that
// cannot be read or written only costs that time.
//
// The summary is two files: the head (in-progress and ready tasks, read
// on every prime) and the index of every live task's status and title
// (read only for pinned tasks). Each carries the stamp it was built for,
// so that a head and an index written by two rebuilds at once are never
// taken for one summary.
const (
	summaryMagic = "MCPS"
	// summaryVersion 1: the first format.
	// summaryVersion 2: the change time in the stamp.
	summaryVersion = 2
	// ReadyLimit is how many ready tasks prime lists at most.
	ReadyLimit = 10
	// maxNote is the longest latest note prime shows, in characters.
	maxNote = 200
)

// taskLine is a task as prime shows it.
type taskLine struct {
	ID, Title, Status, Assignee, Note string
	Priority                          int
}

// taskSummary is what prime needs of the task graph.
type taskSummary struct {
	// Broken is the refusal of an issues file that cannot be read (a
	// *tasks.LineError's line, field and message), kept so that every
	// prime does not parse the file again to find it.
	Broken                string
	BrokenLine            int
	InProgress, Ready     []taskLine
	ReadyTotal            int
	ValidFrom, ValidUntil int64 // Ready holds for now in [ValidFrom, ValidUntil) (Unix ns)
	// key is the stamp of the issues file the summary is of.
	key fsx.Stamp
	// cached is set when the head was read from its file.
	cached bool
	// indexPath is the index file, index its content once read; issues,
	// tasksCache and now rebuild it when the file is not this summary's.
	indexPath, issues, tasksCache string
	now                           time.Time
	index                         []byte
}

// summaryPaths are the head and index files next to the task cache.
func summaryPaths(tasksCache string) (head, index string) {
	dir := filepath.Dir(tasksCache)
	return filepath.Join(dir, "prime-tasks.cache"), filepath.Join(dir, "prime-tasks.index")
}

// issuesStamp is the stamp of the issues file, or of the file it links
// to (which the loader reads); ok is false when it is missing.
func issuesStamp(issues string) (fsx.Stamp, bool, error) {
	st, err := fsx.StatStamp(issues)
	if errors.Is(err, fs.ErrNotExist) {
		return fsx.Stamp{}, false, nil
	}
	if err != nil {
		return fsx.Stamp{}, false, err
	}
	return st, true, nil
}

// loadSummary returns the summary of the issues file at now, from the
// derived file when it matches, else built from the graph (through the
// task cache) and stored.
func loadSummary(issues, tasksCache string, now time.Time) (*taskSummary, error) {
	st, exists, err := issuesStamp(issues)
	if err != nil {
		return nil, err
	}
	if !exists {
		return &taskSummary{ValidUntil: math.MaxInt64, index: indexHeader(fsx.Stamp{})}, nil
	}
	head, index := summaryPaths(tasksCache)
	if tasksCache != "" {
		if s, ok := readSummary(head, st, now); ok {
			s.indexPath, s.issues, s.tasksCache, s.now = index, issues, tasksCache, now
			return s, nil
		}
	}
	// st was taken before the read: a write during it changes the file's
	// stamp, and the summary stored under st is not used again.
	s, idx, err := buildSummary(issues, tasksCache, st, now)
	if err != nil {
		return nil, err
	}
	s.key, s.indexPath = st, index
	if tasksCache != "" && os.MkdirAll(filepath.Dir(head), 0o755) == nil {
		_ = fsx.WriteDerived(index, idx)
		_ = fsx.WriteDerived(head, s.encode())
	}
	s.index = idx
	return s, nil
}

// buildSummary reads the graph and sums it up at now, with the index of
// the file of stamp key.
func buildSummary(issues, tasksCache string, key fsx.Stamp, now time.Time) (*taskSummary, []byte, error) {
	st, err := tasks.LoadCached(issues, tasksCache)
	var le *tasks.LineError
	switch {
	case errors.As(err, &le):
		return &taskSummary{Broken: le.Detail(), BrokenLine: le.Line, ValidUntil: math.MaxInt64}, indexHeader(key), nil
	case err != nil:
		return nil, nil, err
	}
	s := &taskSummary{ValidFrom: math.MinInt64, ValidUntil: math.MaxInt64}
	g := tasks.NewGraph(st)
	ready, total := g.Ready(tasks.ReadyFilter{Limit: ReadyLimit, Sort: tasks.SortPriority}, now)
	s.ReadyTotal = total
	for _, iss := range ready {
		s.Ready = append(s.Ready, taskLine{ID: iss.ID, Title: iss.Title, Status: iss.Status, Assignee: iss.Assignee, Priority: iss.Priority})
	}
	idx := indexHeader(key)
	for _, iss := range st.Issues() {
		if d := iss.DeferUntil; !d.IsZero() {
			if n := d.UnixNano(); n > now.UnixNano() {
				s.ValidUntil = min(s.ValidUntil, n)
			} else {
				s.ValidFrom = max(s.ValidFrom, n)
			}
		}
		idx = append(idx, '\n')
		idx = append(idx, oneLine(iss.ID)...)
		idx = append(idx, '\t')
		idx = append(idx, oneLine(iss.Status)...)
		idx = append(idx, '\t')
		idx = append(idx, oneLine(iss.Title)...)
		if iss.Status != tasks.StatusInProgress {
			continue
		}
		full, err := st.Get(iss.ID)
		if err != nil {
			continue
		}
		s.InProgress = append(s.InProgress, taskLine{ID: full.ID, Title: full.Title, Status: full.Status, Assignee: full.Assignee,
			Priority: full.Priority, Note: latestNote(st, full)})
	}
	idx = append(idx, '\n')
	slices.SortFunc(s.InProgress, func(a, b taskLine) int {
		if a.Priority != b.Priority {
			return a.Priority - b.Priority
		}
		return strings.Compare(a.ID, b.ID)
	})
	return s, idx, nil
}

// latestNote is a task's latest note: the last non-empty line of its
// notes (where memctl flush leaves its progress notes), else its newest
// comment; cut to maxNote characters.
func latestNote(st *tasks.Store, iss *tasks.Issue) string {
	note := ""
	lines := strings.Split(strings.TrimSpace(iss.Notes), "\n")
	if last := strings.TrimSpace(lines[len(lines)-1]); last != "" {
		note = last
	} else if iss.Comments > 0 {
		var newest tasks.Comment
		for _, c := range st.Comments(iss) {
			if newest.ID == "" && newest.Text == "" || !c.CreatedAt.Before(newest.CreatedAt) {
				newest = c
			}
		}
		note = newest.Text
	}
	return clip(oneLine(note), maxNote)
}

// oneLine turns the line breaks and tabs of s into spaces.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\t\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// clip cuts s to n characters, marking the cut with "…".
func clip(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// indexHeader is the index's first line: its format and the stamp of the
// issues file it is of.
func indexHeader(key fsx.Stamp) []byte {
	return fmt.Appendf(nil, "memctl prime task index v2 %d %d %d %d", key.Size, key.ModTime, key.ChangeTime, key.Ino)
}

// lookup finds task id in the index: its status and title.
func (s *taskSummary) lookup(id string) (status, title string, ok bool, err error) {
	if s.index == nil {
		if err := s.loadIndex(); err != nil {
			return "", "", false, err
		}
	}
	i := bytes.Index(s.index, []byte("\n"+id+"\t"))
	if i < 0 {
		return "", "", false, nil
	}
	rest := s.index[i+1+len(id)+1:]
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	st, t, _ := bytes.Cut(line, []byte("\t"))
	return string(st), string(t), true, nil
}

// loadIndex reads the index file when it is of the head's stamp and was
// written long enough after it (another rebuild may have written the head
// or the index since: each is written whole, but not both at once), else
// builds the index from the graph and stores it.
func (s *taskSummary) loadIndex() error {
	data, ok := fsx.ReadSettled(s.indexPath, s.key.Newest())
	if line, _, _ := bytes.Cut(data, []byte("\n")); ok && bytes.Equal(line, indexHeader(s.key)) {
		s.index = data
		return nil
	}
	st, exists, err := issuesStamp(s.issues)
	if err != nil {
		return err
	}
	if !exists {
		s.index = indexHeader(fsx.Stamp{})
		return nil
	}
	b, idx, err := buildSummary(s.issues, s.tasksCache, st, s.now)
	if err != nil {
		return err
	}
	if b.Broken != "" {
		return fmt.Errorf("%s:%d: %s", config.IssuesFile, b.BrokenLine, b.Broken)
	}
	_ = fsx.WriteDerived(s.indexPath, idx)
	s.index = idx
	return nil
}

// encode writes the head: magic, version, the file's stamp, the validity
// interval, then the summary.
func (s *taskSummary) encode() []byte {
	b := []byte(summaryMagic)
	b = binary.LittleEndian.AppendUint32(b, summaryVersion)
	b = binary.AppendVarint(b, s.key.Size)
	b = binary.AppendVarint(b, s.key.ModTime)
	b = binary.AppendVarint(b, s.key.ChangeTime)
	b = binary.AppendUvarint(b, s.key.Ino)
	b = binary.AppendVarint(b, s.ValidFrom)
	b = binary.AppendVarint(b, s.ValidUntil)
	b = appendString(b, s.Broken)
	b = binary.AppendUvarint(b, uint64(s.BrokenLine))
	b = binary.AppendUvarint(b, uint64(s.ReadyTotal))
	for _, list := range [][]taskLine{s.InProgress, s.Ready} {
		b = binary.AppendUvarint(b, uint64(len(list)))
		for _, t := range list {
			for _, f := range []string{t.ID, t.Title, t.Status, t.Assignee, t.Note} {
				b = appendString(b, f)
			}
			b = binary.AppendVarint(b, int64(t.Priority))
		}
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// readSummary reads the head at path if it is the summary of a file with
// stamp st, written long enough after it (fsx.ReadSettled), and holds at
// now.
func readSummary(path string, st fsx.Stamp, now time.Time) (*taskSummary, bool) {
	data, ok := fsx.ReadSettled(path, st.Newest())
	if !ok || !bytes.HasPrefix(data, []byte(summaryMagic)) || len(data) < 8 ||
		binary.LittleEndian.Uint32(data[4:]) != summaryVersion {
		return nil, false
	}
	d := decoder{b: data[8:]}
	s := &taskSummary{key: fsx.Stamp{Size: d.varint(), ModTime: d.varint(), ChangeTime: d.varint(), Ino: d.uvarint()}, cached: true}
	s.ValidFrom, s.ValidUntil = d.varint(), d.varint()
	if d.bad || s.key != st {
		return nil, false
	}
	if n := now.UnixNano(); n < s.ValidFrom || n >= s.ValidUntil {
		return nil, false
	}
	s.Broken = d.str()
	s.BrokenLine = int(d.uvarint())
	s.ReadyTotal = int(d.uvarint())
	for _, list := range []*[]taskLine{&s.InProgress, &s.Ready} {
		n := d.uvarint()
		if n > uint64(len(d.b)) {
			return nil, false
		}
		*list = make([]taskLine, 0, n)
		for range n {
			t := taskLine{ID: d.str(), Title: d.str(), Status: d.str(), Assignee: d.str(), Note: d.str()}
			t.Priority = int(d.varint())
			*list = append(*list, t)
		}
	}
	if d.bad || len(d.b) != 0 {
		return nil, false
	}
	return s, true
}

// decoder reads the head; a short or malformed file sets bad.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) str() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}
