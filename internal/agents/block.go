// Package agents installs memctl into the files and hooks that coding
// agents read. For now that is the managed block in AGENTS.md and the
// CLAUDE.md that points Claude Code at it.
package agents

import (
	"bytes"
	"fmt"
	"regexp"
	"sync"
)

// Markers around the managed block. The version in the begin marker is
// bumped when the block's meaning changes; an older block is "outdated"
// and `memctl init` replaces it.
const (
	BeginMarker = "<!-- memctl:begin v3 -->"
	EndMarker   = "<!-- memctl:end -->"
)

// blockBody is what an agent is told. It stays short, and names only
// commands this memctl has (v1 named memctl prime before it existed; v2
// pointed at facts and ready instead; v3 names prime again, now that it
// is there). The dynamic part is what memctl prime prints.
const blockBody = `## Project memory (memctl)

This repository keeps agent memory in plain files, managed by ` + "`memctl`" + `:
human-verified facts in ` + "`.ledger/facts/`" + `, tasks in ` + "`.beads/issues.jsonl`" + `,
run records in ` + "`.ledger/runs/`" + `.

- Start every session, and again after a compaction, with ` + "`memctl prime`" + `: the verified
  facts (follow them), your tasks in progress, ready tasks and warnings, with ids.
  ` + "`memctl ready --json`" + ` lists the tasks you can start now.
- Claim a task with ` + "`memctl update <id> --claim`" + `; finish it with ` + "`memctl close <id> --reason \"…\"`" + `.
- Search what is known with ` + "`memctl recall \"<query>\" --json`" + `.
- Never edit ` + "`.ledger/facts/`" + ` yourself. To add or change a fact, file a proposal:
  ` + "`memctl propose --category <file> --reason \"why\" --text \"the fact\"`" + `; a human reviews it.
- Where new information goes: will it matter in six months? A fact or lesson: ` + "`memctl propose`" + `.
  Will the next session need it? Task notes (` + "`memctl update <id> --append-notes \"…\"`" + `).
  Otherwise it stays in your context.
- memctl refuses text that looks like a secret; never put credentials in memory.
- The full guide, with JSON examples: ` + "`memctl help agents`" + `.
`

// Block returns the managed block, markers included, with LF endings and
// a final newline.
func Block() string {
	return BeginMarker + "\n" + blockBody + EndMarker + "\n"
}

// State is what Inspect found.
type State int

// The states of the managed block in a file.
const (
	Missing  State = iota // no begin marker
	Current               // the block this memctl writes
	Outdated              // another version or edited text
	Broken                // a begin marker without an end marker, or two blocks
)

func (s State) String() string {
	return [...]string{"missing", "current", "outdated", "broken"}[s]
}

var (
	beginRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^<!-- memctl:begin v[0-9]+ -->\r?$`) })
	endRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^<!-- memctl:end -->\r?\n?`) })
)

// span is the managed block's byte range in a file: [start, end).
type span struct{ start, end int }

// find locates the managed block. ok is false when there is none; err says
// why a block cannot be used.
func find(content []byte) (s span, line int, ok bool, err error) {
	begins := beginRE().FindAllIndex(content, -1)
	if len(begins) == 0 {
		return span{}, 0, false, nil
	}
	line = bytes.Count(content[:begins[0][0]], []byte{'\n'}) + 1
	if len(begins) > 1 {
		return span{}, line, true, fmt.Errorf("line %d: more than one memctl block; delete all but one", line)
	}
	end := endRE().FindIndex(content[begins[0][1]:])
	if end == nil {
		return span{}, line, true, fmt.Errorf("line %d: memctl begin marker without %s; add the end marker after the block or delete the begin marker", line, EndMarker)
	}
	return span{begins[0][0], begins[0][1] + end[1]}, line, true, nil
}

// Inspect reports the state of the managed block in an AGENTS.md file's
// content, and the line of its begin marker (0 when missing).
func Inspect(content []byte) (State, int) {
	s, line, ok, err := find(content)
	switch {
	case !ok:
		return Missing, 0
	case err != nil:
		return Broken, line
	}
	block := bytes.ReplaceAll(content[s.start:s.end], []byte("\r\n"), []byte("\n"))
	if !bytes.HasSuffix(block, []byte("\n")) {
		block = append(block, '\n')
	}
	if string(block) == Block() {
		return Current, line
	}
	return Outdated, line
}

// Upsert returns content with the managed block current: replaced in place
// if present, appended after a blank line if not. Text outside the markers
// is never changed. A file with CRLF line endings gets a CRLF block. changed
// is false when content was already current. A broken block is an error.
func Upsert(content []byte) (out []byte, changed bool, err error) {
	block := []byte(Block())
	if bytes.Contains(content, []byte("\r\n")) {
		block = bytes.ReplaceAll(block, []byte("\n"), []byte("\r\n"))
	}
	s, _, ok, err := find(content)
	if err != nil {
		return nil, false, err
	}
	if ok {
		if st, _ := Inspect(content); st == Current {
			return content, false, nil
		}
		out = make([]byte, 0, len(content)+len(block))
		out = append(out, content[:s.start]...)
		out = append(out, block...)
		out = append(out, content[s.end:]...)
		return out, true, nil
	}
	out = append([]byte{}, content...)
	nl := []byte("\n")
	if bytes.Contains(block, []byte("\r\n")) {
		nl = []byte("\r\n")
	}
	if len(out) > 0 {
		if !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, nl...)
		}
		if !bytes.HasSuffix(out, append(append([]byte{}, nl...), nl...)) {
			out = append(out, nl...)
		}
	}
	return append(out, block...), true, nil
}

// ClaudeFile is the CLAUDE.md memctl creates when there is none: Claude
// Code reads CLAUDE.md, not AGENTS.md, and this import makes it read both.
const ClaudeFile = "@AGENTS.md\n"

var importRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)(^|\s)@(\./)?AGENTS\.md(\s|$)`)
})

// ImportsAgents reports whether a CLAUDE.md imports AGENTS.md (Claude Code's
// "@path" import, anywhere in the text, as Claude Code reads it).
func ImportsAgents(claude []byte) bool {
	return importRE().Match(claude)
}

// AddImport returns a CLAUDE.md's content with the import of AGENTS.md
// appended on a line of its own, in the file's line endings.
func AddImport(claude []byte) []byte {
	nl := "\n"
	if bytes.Contains(claude, []byte("\r\n")) {
		nl = "\r\n"
	}
	out := append([]byte{}, claude...)
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, nl...)
	}
	if len(out) > 0 {
		out = append(out, nl...)
	}
	return append(out, "@AGENTS.md"+nl...)
}
