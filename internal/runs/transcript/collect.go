package transcript

import (
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// builder gathers a Session from the events both formats share: tool calls
// that change files or run commands, their results, texts and times.
type builder struct {
	s    Session
	root string

	files    seenList
	claims   seenList
	closes   seenList
	errSeen  map[string]bool
	testIdx  map[string]int
	pendFile map[string][]string // call id → paths it changes once it succeeds
	pendIDs  []string            // the keys of pendFile, in call order
	pendCmd  map[string]int      // call id → index in s.Commands, until its result
	cmdOut   map[int]string      // output so far of a command still running (Codex unified exec)
	lastMsg  string              // id of the assistant message LastAssistantText comes from
}

// seenList is a list without repeats, in first-seen order.
type seenList struct {
	list []string
	seen map[string]bool
}

func (l *seenList) add(v string) {
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	if v != "" && !l.seen[v] {
		l.seen[v] = true
		l.list = append(l.list, v)
	}
}

func (l *seenList) slice() []string {
	if l.list == nil {
		return []string{}
	}
	return l.list
}

func newBuilder(root string) *builder {
	return &builder{
		root:     root,
		errSeen:  map[string]bool{},
		testIdx:  map[string]int{},
		pendFile: map[string][]string{},
		pendCmd:  map[string]int{},
		cmdOut:   map[int]string{},
	}
}

// at widens the session's time span to a transcript timestamp.
func (b *builder) at(ts string) {
	if ts == "" {
		return
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return
	}
	t = t.UTC()
	if b.s.Started.IsZero() || t.Before(b.s.Started) {
		b.s.Started = t
	}
	if t.After(b.s.Ended) {
		b.s.Ended = t
	}
}

func (b *builder) userText(text string) {
	if b.s.FirstUserText == "" {
		b.s.FirstUserText = head(text, maxText)
	}
}

// assistantText records an answer; texts of one message (same id, split
// over several lines by Claude Code) are joined.
func (b *builder) assistantText(msgID, text string) {
	if text == "" {
		return
	}
	if msgID != "" && msgID == b.lastMsg && b.s.LastAssistantText != "" {
		text = b.s.LastAssistantText + "\n\n" + text
	}
	b.lastMsg = msgID
	b.s.LastAssistantText = head(text, maxText)
}

// path makes a changed file's path relative to the root (or the session's
// cwd) when under it; a relative path is first taken from dir.
func (b *builder) path(p, dir string) string {
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) && dir != "" {
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	base := b.root
	if base == "" {
		base = b.s.Cwd
	}
	if base != "" && filepath.IsAbs(p) {
		if rel, err := filepath.Rel(base, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			p = rel
		}
	}
	return filepath.ToSlash(p)
}

// changes notes the paths a call changes once its result says it worked.
func (b *builder) changes(callID string, paths ...string) {
	if len(paths) == 0 {
		return
	}
	if _, ok := b.pendFile[callID]; !ok {
		b.pendIDs = append(b.pendIDs, callID)
	}
	b.pendFile[callID] = append(b.pendFile[callID], paths...)
}

// changed settles a call's file changes: kept if it worked, dropped if not.
func (b *builder) changed(callID string, ok bool) {
	paths, pending := b.pendFile[callID]
	if !pending {
		return
	}
	delete(b.pendFile, callID)
	if ok {
		for _, p := range paths {
			b.files.add(p)
		}
	}
}

// command starts a shell command; its result comes with output and exited.
func (b *builder) command(callID, cmd string) int {
	b.s.Commands = append(b.s.Commands, Command{Cmd: cmd, ExitCode: -1})
	i := len(b.s.Commands) - 1
	if callID != "" {
		b.pendCmd[callID] = i
	}
	return i
}

// output adds a result's text to a command: tests are read from it, and the
// tail is kept. A running command (Codex) may get several.
func (b *builder) output(i int, text string) {
	text = clean(text)
	testResults(text, b.test)
	if prev := b.cmdOut[i]; prev != "" {
		if text != "" && !strings.HasSuffix(prev, "\n") {
			prev += "\n"
		}
		text = prev + text
	}
	b.cmdOut[i] = text
	b.s.Commands[i].Output = strings.TrimSpace(tail(text, maxExcerpt))
}

// exited settles a command's exit status: the output of a failure is an
// error to mine; a command that worked counts its task claims and closes
// (so does one whose result never came, at the end).
func (b *builder) exited(i, exit int, failed bool) {
	c := &b.s.Commands[i]
	c.ExitCode = exit
	out := b.cmdOut[i]
	delete(b.cmdOut, i)
	if failed {
		b.error(out)
	}
	if exit == 0 {
		b.tasks(c.Cmd)
	}
}

func (b *builder) tasks(cmd string) {
	claims, closes := taskOps(cmd)
	for _, id := range claims {
		b.claims.add(id)
	}
	for _, id := range closes {
		b.closes.add(id)
	}
}

func (b *builder) error(text string) {
	x := errorExcerpt(text)
	if x != "" && !b.errSeen[x] {
		b.errSeen[x] = true
		b.s.Errors = append(b.s.Errors, x)
	}
}

func (b *builder) test(name, status string) {
	if i, ok := b.testIdx[name]; ok {
		b.s.Tests[i].Status = status
		return
	}
	b.testIdx[name] = len(b.s.Tests)
	b.s.Tests = append(b.s.Tests, Test{Name: name, Status: status})
}

// finish ends the read: calls still without a result are taken to have
// worked (the transcript is written asynchronously and may lag the hook).
func (b *builder) finish(h lineHandler) *Session {
	if f, ok := h.(interface{ flush() }); ok {
		f.flush()
	}
	for _, id := range b.pendIDs {
		b.changed(id, true)
	}
	b.pendIDs = nil
	open := make([]int, 0, len(b.pendCmd))
	for _, i := range b.pendCmd {
		open = append(open, i)
	}
	slices.Sort(open)
	for _, i := range open {
		b.tasks(b.s.Commands[i].Cmd)
	}
	clear(b.pendCmd)
	s := b.s
	s.FilesChanged = b.files.slice()
	s.TaskClaims = b.claims.slice()
	s.TaskCloses = b.closes.slice()
	if s.Commands == nil {
		s.Commands = []Command{}
	}
	if s.Tests == nil {
		s.Tests = []Test{}
	}
	if s.Errors == nil {
		s.Errors = []string{}
	}
	return &s
}
