// Package ledger reads the facts ledger: Markdown files in .ledger/facts/,
// one per category, in which every top-level list item is one fact.
//
// Files are parsed with goldmark to find the facts, but every position is
// kept as a line range of the original bytes, so that edits (in the review
// layer) splice lines and never reformat text memctl did not change.
package ledger

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/memctl/memctl/internal/gitx"
	"github.com/memctl/memctl/internal/ids"
)

// Fact is one top-level list item of a facts file.
type Fact struct {
	// ID is the explicit id written in the fact (<!-- id:… -->) or, without
	// one, the id derived from category and text.
	ID string
	// ExplicitID says the id was written in the file.
	ExplicitID bool
	Category   string
	// Text is the item without its list marker, continuation indentation
	// and id comment.
	Text string
	// File is the path of the facts file relative to the workspace root.
	File string
	// Line and EndLine are the item's first and last lines, 1-based and
	// inclusive, trailing blank lines excluded.
	Line, EndLine int
}

// Problem is something in a facts file that memctl cannot read as facts.
type Problem struct {
	Line    int
	Message string
	// Conflict marks the problem of git conflict markers, which memctl
	// check reports under a rule of its own.
	Conflict bool
}

// File is one parsed facts file.
type File struct {
	Category string
	// Path is relative to the workspace root, slash-separated.
	Path string
	// Lines counts lines as wc -l does, plus a last line without newline.
	Lines int
	// Bytes is the file's size.
	Bytes    int
	Facts    []Fact
	Problems []Problem
	// ConflictLines are the lines that are git conflict markers, left by a
	// merge that is not finished; memctl writes nothing into such a file.
	ConflictLines []int

	src []byte
}

// ConflictError refuses a write into a facts file that holds git conflict
// markers: the merge of that file is not finished.
type ConflictError struct {
	Path string // relative to the workspace root
	Line int    // the first marker line
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s:%d: conflict markers: the merge of this file is not finished, so memctl does not write into it", e.Path, e.Line)
}

// Conflicted returns a *ConflictError when the file holds conflict
// markers, else nil. Every writer of a facts file asks it first.
func (f *File) Conflicted() error {
	if len(f.ConflictLines) == 0 {
		return nil
	}
	return &ConflictError{Path: f.Path, Line: f.ConflictLines[0]}
}

// Source is the file's content as read. It must not be modified.
func (f *File) Source() []byte { return f.src }

// LineAtByte is the 1-based line that holds byte offset off of the file
// (the last line for an offset past the end): where a byte budget is
// crossed.
func (f *File) LineAtByte(off int) int {
	if off >= len(f.src) {
		return max(f.Lines, 1)
	}
	return lineAt(f.src, off)
}

// idComment matches an explicit fact id: <!-- id:f-abc1234 -->.
var idComment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<!--\s*id:(.*?)-->`) })

// mdParser is goldmark's CommonMark block parser without inline parsers:
// facts need only the block structure and its positions (the id comment is
// found in the item's text), and inline parsing was most of the cost.
var mdParser = parser.NewParser(
	parser.WithBlockParsers(parser.DefaultBlockParsers()...),
	parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
)

// CountLines counts lines as wc -l does, plus one for a last line that has
// no newline.
func CountLines(src []byte) int {
	n := bytes.Count(src, []byte{'\n'})
	if len(src) > 0 && src[len(src)-1] != '\n' {
		n++
	}
	return n
}

// ConflictMessage is the problem a facts file with conflict markers has.
const ConflictMessage = "conflict markers: resolve the merge in this file, then git add it"

// Parse reads one facts file. It never fails: what it cannot read becomes a
// Problem, and the facts it could read are still returned.
//
// Conflict-marker lines (gitx.ConflictMarkers) are a Problem and read as
// blank lines, never as fact text: the facts of both sides of the conflict
// are returned as they are written, with the ids they have outside a
// conflict.
func Parse(category, path string, src []byte) *File {
	f := &File{Category: category, Path: path, Lines: CountLines(src), Bytes: len(src), src: src}
	body, ok := readable(src, "facts files", &f.Problems, &f.ConflictLines)
	if !ok {
		return f
	}
	lines := splitLines(body)
	idx := newLineIndex(body)
	doc := mdParser.Parse(text.NewReader(crlfAsLF(body)))
	for top := doc.FirstChild(); top != nil; top = top.NextSibling() {
		list, ok := top.(*ast.List)
		if !ok {
			continue
		}
		limit := len(lines) // last line the list's items may reach (1-based)
		if next := top.NextSibling(); next != nil && next.Pos() >= 0 {
			limit = idx.line(next.Pos()) - 1
		}
		for item := list.FirstChild(); item != nil; item = item.NextSibling() {
			end := limit
			if next := item.NextSibling(); next != nil && next.Pos() >= 0 {
				end = idx.line(next.Pos()) - 1
			}
			f.addItem(item, idx, lines, end)
		}
	}
	return f
}

// crlfAsLF returns src for goldmark with each carriage return before a
// newline turned into a space, keeping every offset. CommonMark reads CRLF
// as a line ending, but goldmark reads the CR as text in places: "0)"
// then CRLF is not an empty list item to it, so the line became the text
// of the item before. A trailing space changes no block.
func crlfAsLF(src []byte) []byte {
	if !bytes.Contains(src, []byte("\r\n")) {
		return src
	}
	out := bytes.Clone(src)
	for i := 0; i+1 < len(out); i++ {
		if out[i] == '\r' && out[i+1] == '\n' {
			out[i] = ' '
		}
	}
	return out
}

// blankLines returns a copy of src with the given lines (1-based, sorted)
// turned into spaces, their line endings kept, so that every other byte
// keeps its offset and every line its number.
func blankLines(src []byte, lines []int) []byte {
	out := bytes.Clone(src)
	n, start := 1, 0
	for _, want := range lines {
		for n < want && start < len(out) {
			i := bytes.IndexByte(out[start:], '\n')
			if i < 0 {
				return out
			}
			start += i + 1
			n++
		}
		end := len(out)
		if i := bytes.IndexByte(out[start:], '\n'); i >= 0 {
			end = start + i
		}
		for k := start; k < end; k++ {
			if out[k] != '\r' {
				out[k] = ' '
			}
		}
	}
	return out
}

// addItem turns one top-level list item into a fact. end is the last line
// the item can reach; trailing blank lines are cut from it.
func (f *File) addItem(item ast.Node, idx lineIndex, lines []string, end int) {
	if item.Pos() < 0 {
		return
	}
	start := idx.line(item.Pos())
	for end > start && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	body := itemText(lines[start-1 : end])
	fact := Fact{Category: f.Category, File: f.Path, Line: start, EndLine: end}
	matches := idComment().FindAllStringSubmatchIndex(body, -1)
	switch {
	case len(matches) > 1:
		f.Problems = append(f.Problems, Problem{Line: start, Message: "fact has more than one <!-- id:… --> comment; keep one"})
		return
	case len(matches) == 1:
		m := matches[0]
		id := strings.TrimSpace(body[m[2]:m[3]])
		if !ids.Valid(id) {
			f.Problems = append(f.Problems, Problem{Line: start, Message: fmt.Sprintf("fact id %q is not valid: use letters, digits, '.', '_' or '-'", id)})
			return
		}
		fact.ID, fact.ExplicitID = id, true
		body = body[:m[0]] + body[m[1]:]
	}
	fact.Text = tidy(body)
	if fact.Text == "" || onlyMarkers(fact.Text) {
		f.Problems = append(f.Problems, Problem{Line: start, Message: "empty list item; write the fact after the marker or delete the line"})
		return
	}
	if !fact.ExplicitID {
		fact.ID = ids.Fact(f.Category, fact.Text)
	}
	f.Facts = append(f.Facts, fact)
}

// onlyMarkers says every line of text is bare list markers ("-", "1. -"):
// the item holds only empty lists, and no fact.
func onlyMarkers(text string) bool {
	for l := range strings.SplitSeq(text, "\n") {
		for l = strings.TrimSpace(l); l != ""; {
			_, end, ok := scanMarker(l)
			if !ok || end < len(l) && l[end] != ' ' && l[end] != '\t' {
				return false
			}
			l = strings.TrimSpace(l[end:])
		}
	}
	return true
}

// scanMarker finds a list item's marker in line: start is where it begins
// (after the indentation), end just past it (- * + or digits followed by
// . or )). Without a marker ok is false and end is start.
func scanMarker(line string) (start, end int, ok bool) {
	for start < len(line) && line[start] == ' ' {
		start++
	}
	end = start
	for end < len(line) && line[end] >= '0' && line[end] <= '9' {
		end++
	}
	switch {
	case end > start && end < len(line) && (line[end] == '.' || line[end] == ')'):
		return start, end + 1, true
	case end == start && end < len(line) && strings.IndexByte("-*+", line[end]) >= 0:
		return start, end + 1, true
	}
	return start, start, false
}

// itemText strips the list marker from the first line and the content
// indentation from the others.
func itemText(lines []string) string {
	first := lines[0]
	_, j, _ := scanMarker(first)
	pad := 0
	for k := j; k < len(first) && first[k] == ' '; k++ {
		pad++
	}
	if pad > 4 { // indented code right after the marker: content starts one space in
		pad = 1
	}
	indent := j + pad
	var b strings.Builder
	b.WriteString(first[min(indent, len(first)):])
	for _, l := range lines[1:] {
		b.WriteByte('\n')
		n := 0
		for n < len(l) && n < indent && l[n] == ' ' {
			n++
		}
		b.WriteString(l[n:])
	}
	return b.String()
}

// tidy trims trailing white space from every line and blank lines from both
// ends.
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}

// splitLines splits src into lines without their line endings.
func splitLines(src []byte) []string {
	s := string(src)
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// lineIndex maps byte offsets to line numbers.
type lineIndex []int // byte offset where each line starts

func newLineIndex(src []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range src {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

// line returns the 1-based line holding byte offset off.
func (idx lineIndex) line(off int) int {
	n, _ := slices.BinarySearch(idx, off+1) // lines starting at or before off
	return n
}

// lineAt returns the 1-based line holding byte offset off.
func lineAt(src []byte, off int) int {
	return bytes.Count(src[:min(off, len(src))], []byte{'\n'}) + 1
}

func firstInvalidUTF8Line(src []byte) int {
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && size == 1 {
			return lineAt(src, i)
		}
		i += size
	}
	return 1
}

// readable is the text of a Markdown file memctl parses (what: "facts
// files", "playbooks"), with its conflict-marker lines (set in *conflicts,
// and a Problem) blanked out; ok is false, with the Problem, for a file
// that is not text: a NUL byte, or bytes that are not UTF-8.
func readable(src []byte, what string, probs *[]Problem, conflicts *[]int) (body []byte, ok bool) {
	if i := bytes.IndexByte(src, 0); i >= 0 {
		*probs = append(*probs, Problem{Line: lineAt(src, i), Message: "contains a NUL byte; " + what + " are text"})
		return nil, false
	}
	if !utf8.Valid(src) {
		*probs = append(*probs, Problem{Line: firstInvalidUTF8Line(src), Message: "is not valid UTF-8; save the file as UTF-8"})
		return nil, false
	}
	if *conflicts = gitx.ConflictMarkers(src); len(*conflicts) > 0 {
		*probs = append(*probs, Problem{Line: (*conflicts)[0], Message: ConflictMessage, Conflict: true})
		return blankLines(src, *conflicts), true
	}
	return src, true
}
