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

	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/tasks"
)

// Loading the whole task graph costs tens of milliseconds at 10,000
// tasks, most of prime's budget, even from the task cache (which is
// checked against the file's CRC, a read of every byte). prime needs
// little of it: the tasks in progress, the first ready tasks, and the
// title and status of a pinned task. So it keeps that summary in a
// derived file of its own next to the task cache, for a file of exactly
// this size, modification time and inode (what every write of the file
// changes, as for the run list's cache), and, since which tasks are ready
// depends on the time only through defer_until, for the interval between
// the deferral times around the moment it was built. Anything that does
// not match is rebuilt from the graph; a file that cannot be read or
// written only costs that time.
//
// The summary is two files: the head (in-progress and ready tasks, read
// on every prime) and the index of every live task's status and title
// (read only for pinned tasks).
const (
	summaryMagic = "MCPS"
	// summaryVersion 1: the first format.
	summaryVersion = 1
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
	size, mtime           int64
	ino                   uint64
	// indexPath is the index file, index its content once read.
	indexPath string
	index     []byte
}

// summaryPaths are the head and index files next to the task cache.
func summaryPaths(tasksCache string) (head, index string) {
	dir := filepath.Dir(tasksCache)
	return filepath.Join(dir, "prime-tasks.cache"), filepath.Join(dir, "prime-tasks.index")
}

// issuesStamp is the issues file's stamp; ok is false when it is missing.
func issuesStamp(issues string) (fsx.Stamp, bool, error) {
	stamps, err := fsx.Stamps(filepath.Dir(issues))
	if errors.Is(err, fs.ErrNotExist) {
		return fsx.Stamp{}, false, nil
	}
	if err != nil {
		return fsx.Stamp{}, false, err
	}
	for _, s := range stamps {
		if s.Name == filepath.Base(issues) {
			return s, true, nil
		}
	}
	return fsx.Stamp{}, false, nil
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
		return &taskSummary{ValidUntil: math.MaxInt64, index: indexHeader()}, nil
	}
	head, index := summaryPaths(tasksCache)
	if tasksCache != "" {
		if s, ok := readSummary(head, st, now); ok {
			s.indexPath = index
			return s, nil
		}
	}
	s, idx, err := buildSummary(issues, tasksCache, now)
	if err != nil {
		return nil, err
	}
	s.size, s.mtime, s.ino, s.indexPath = st.Size, st.ModTime, st.Ino, index
	if tasksCache != "" {
		// The index first: a head that matches promises an index that does.
		if os.MkdirAll(filepath.Dir(head), 0o755) == nil && fsx.WriteDerived(index, idx) == nil {
			_ = fsx.WriteDerived(head, s.encode())
		}
	}
	s.index = idx
	return s, nil
}

// buildSummary reads the graph and sums it up at now, with the index.
func buildSummary(issues, tasksCache string, now time.Time) (*taskSummary, []byte, error) {
	st, err := tasks.LoadCached(issues, tasksCache)
	var le *tasks.LineError
	switch {
	case errors.As(err, &le):
		msg := le.Message
		if le.Field != "" {
			msg = fmt.Sprintf("field %q: %s", le.Field, msg)
		}
		return &taskSummary{Broken: msg, BrokenLine: le.Line, ValidUntil: math.MaxInt64}, indexHeader(), nil
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
	idx := indexHeader()
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

func indexHeader() []byte { return []byte("memctl prime task index v1") }

// lookup finds task id in the index: its status and title.
func (s *taskSummary) lookup(id string) (status, title string, ok bool, err error) {
	if s.index == nil {
		data, err := os.ReadFile(s.indexPath)
		if err != nil {
			return "", "", false, err
		}
		if !bytes.HasPrefix(data, indexHeader()) {
			return "", "", false, fmt.Errorf("%s: not a task index", s.indexPath)
		}
		s.index = data
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

// encode writes the head: magic, version, the file's stamp, the validity
// interval, then the summary.
func (s *taskSummary) encode() []byte {
	b := []byte(summaryMagic)
	b = binary.LittleEndian.AppendUint32(b, summaryVersion)
	b = binary.AppendVarint(b, s.size)
	b = binary.AppendVarint(b, s.mtime)
	b = binary.AppendUvarint(b, s.ino)
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
// stamp st and holds at now.
func readSummary(path string, st fsx.Stamp, now time.Time) (*taskSummary, bool) {
	data, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(data, []byte(summaryMagic)) || len(data) < 8 ||
		binary.LittleEndian.Uint32(data[4:]) != summaryVersion {
		return nil, false
	}
	d := decoder{b: data[8:]}
	s := &taskSummary{size: d.varint(), mtime: d.varint(), ino: d.uvarint()}
	s.ValidFrom, s.ValidUntil = d.varint(), d.varint()
	if d.bad || s.size != st.Size || s.mtime != st.ModTime || s.ino != st.Ino {
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
