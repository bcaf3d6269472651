package ledger

import (
	"bytes"
	"slices"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// The edits below work on the bytes of one facts file by line ranges: the
// lines of the fact they touch change, every other byte stays as it was,
// so memctl never reformats text it did not write. A file with CRLF line
// endings gets CRLF in the new lines.

// FormatFact renders a fact as a list item: marker, text (continuation
// lines indented under it) and the explicit id comment.
func FormatFact(marker, text, id string) []string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	pad := strings.Repeat(" ", len(marker))
	out := make([]string, len(lines))
	for i, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		switch {
		case i == 0:
			out[i] = marker + l
		case l == "":
			out[i] = ""
		default:
			out[i] = pad + l
		}
	}
	if id != "" {
		out[len(out)-1] += " <!-- id:" + id + " -->"
	}
	return out
}

// AppendFact returns src with a new fact appended at the end of the file.
// A blank line separates it from text that is not a fact.
//
// A file that ends inside a block CommonMark closes only at the end of the
// document (a code fence or an HTML comment left open) would take the new
// item in as its text: then the block is closed first, with the fence or
// end marker CommonMark reads there anyway, so the file renders as before.
func AppendFact(src []byte, f *File, text, id string) []byte {
	out, line := appendFact(src, f, text, id, nil)
	if landed(out, f, line) {
		return out
	}
	// The file's last line looks blank but is not to CommonMark (a
	// vertical tab, say), and the block before it goes on.
	if blank, line := appendFact(src, f, text, id, []string{""}); landed(blank, f, line) {
		return blank
	}
	if closer := openBlockCloser(src); closer != "" {
		if closed, line := appendFact(src, f, text, id, []string{closer, ""}); landed(closed, f, line) {
			return closed
		}
	}
	return out
}

// appendFact appends the fact's lines, after the lines before when there
// are any (else after a blank line if the file ends in text that is not a
// fact), and returns the text with the line the fact starts on.
func appendFact(src []byte, f *File, text, id string, before []string) ([]byte, int) {
	nl := lineEnding(src)
	out := bytes.Clone(src)
	trailingNL := len(src) == 0 || bytes.HasSuffix(src, []byte("\n"))
	switch {
	case !trailingNL && bytes.HasSuffix(src, []byte("\r")):
		// A last line ended by a lone CR: complete it as CRLF, so the CR
		// stays a line end and not the fact's text.
		out = append(out, '\n')
	case !trailingNL:
		out = append(out, nl...)
	}
	lines := splitLines(src)
	last := len(lines)
	for last > 0 && strings.TrimSpace(lines[last-1]) == "" {
		last--
	}
	endsInFact := len(f.Facts) > 0 && f.Facts[len(f.Facts)-1].EndLine == last
	switch {
	case before != nil:
		for _, l := range before {
			out = append(out, l...)
			out = append(out, nl...)
		}
	case last > 0 && !endsInFact && last == len(lines):
		out = append(out, nl...)
	}
	start := bytes.Count(out, []byte("\n")) + 1
	for _, l := range FormatFact("- ", text, id) {
		out = append(out, l...)
		out = append(out, nl...)
	}
	if !trailingNL {
		out = bytes.TrimSuffix(out, []byte(nl))
	}
	return out, start
}

// landed says the last fact of out starts on line: the appended item was
// read as a fact of its own.
func landed(out []byte, f *File, line int) bool {
	facts := Parse(f.Category, f.Path, out).Facts
	return len(facts) > 0 && facts[len(facts)-1].Line == line
}

// openBlockCloser returns the line that closes the block src ends in when
// CommonMark would run that block to the end of the document: the fence of
// an open fenced code block, or the end marker of an open HTML block. It
// returns "" when src ends in no such block.
func openBlockCloser(src []byte) string {
	doc := mdParser.Parse(text.NewReader(crlfAsLF(src)))
	last := doc.LastChild()
	if last == nil || last.Pos() < 0 || last.Pos() > len(src) {
		return ""
	}
	open := string(src[last.Pos():])
	if i := strings.IndexByte(open, '\n'); i >= 0 {
		open = open[:i]
	}
	open = strings.TrimLeft(strings.TrimRight(open, "\r"), " ")
	switch b := last.(type) {
	case *ast.FencedCodeBlock:
		n := 0
		for n < len(open) && open[n] == open[0] {
			n++
		}
		if n < 3 || (open[0] != '`' && open[0] != '~') {
			return ""
		}
		return strings.Repeat(open[:1], n)
	case *ast.HTMLBlock:
		if b.HasClosure() {
			return ""
		}
		switch b.HTMLBlockType {
		case ast.HTMLBlockType1:
			lower := strings.ToLower(open)
			for _, tag := range []string{"script", "pre", "style", "textarea"} {
				if strings.HasPrefix(lower, "<"+tag) {
					return "</" + tag + ">"
				}
			}
		case ast.HTMLBlockType2:
			return "-->"
		case ast.HTMLBlockType3:
			return "?>"
		case ast.HTMLBlockType4:
			return ">"
		case ast.HTMLBlockType5:
			return "]]>"
		}
	}
	return ""
}

// ReplaceFact returns src with the lines of fact replaced by text with id,
// keeping the fact's list marker.
//
// A line of text right after the item that the old item did not take in
// (after a heading in the item, say) would be taken into the new text as
// its continuation: then a blank line keeps it out.
func ReplaceFact(src []byte, fact Fact, text, id string) []byte {
	formatted := FormatFact(markerOf(strings.TrimRight(string(rawLines(src)[fact.Line-1]), "\r\n")), text, id)
	out := replaceLines(src, fact, formatted, false)
	end := fact.Line + len(formatted) - 1
	if endsAt(out, fact, end) {
		return out
	}
	if blank := replaceLines(src, fact, formatted, true); endsAt(blank, fact, end) {
		return blank
	}
	// The lines after the item sit where the new text's would take them
	// in, blank line or not (goldmark ended the old item before them): an
	// empty comment after the item ends the list there (listEnd).
	if fact.EndLine < len(rawLines(src)) {
		if ended := replaceLines(src, fact, append(slices.Clone(formatted), listEnd), false); endsAt(ended, fact, end) {
			return ended
		}
	}
	return out
}

// endsAt says the fact that starts where fact did in src ends on line end.
func endsAt(src []byte, fact Fact, end int) bool {
	for _, f := range Parse(fact.Category, fact.File, src).Facts {
		if f.Line == fact.Line {
			return f.EndLine == end
		}
	}
	return false
}

// replaceLines puts the lines formatted in place of fact's, with a blank
// line after them when blank is set and more lines follow.
func replaceLines(src []byte, fact Fact, formatted []string, blank bool) []byte {
	lines := rawLines(src)
	nl := lineEnding(src)
	var repl []byte
	for _, l := range formatted {
		repl = append(repl, l...)
		repl = append(repl, nl...)
	}
	// Keep the last line's own ending (or its absence at the end of file).
	lastRaw := lines[fact.EndLine-1]
	if !bytes.HasSuffix(lastRaw, []byte("\n")) {
		repl = bytes.TrimSuffix(repl, []byte(nl))
	} else if blank && fact.EndLine < len(lines) {
		repl = append(repl, nl...)
	}
	return splice(lines, fact.Line, fact.EndLine, repl)
}

// RemoveFact returns src without the lines of fact.
//
// Without the item, the lines around it may read differently: the next
// item may start its list right after a paragraph, where only some lists
// may begin (an ordered list that does not start at 1 cannot), or a
// paragraph after the list may become the previous item's lazy
// continuation. A fact would then be lost or changed. In that case a blank
// line takes the item's place, or where that is not enough an empty
// comment (listEnd).
func RemoveFact(src []byte, fact Fact) []byte {
	var want []Fact
	for _, f := range Parse(fact.Category, fact.File, src).Facts {
		if f.Line != fact.Line {
			want = append(want, f)
		}
	}
	out := removeLines(src, fact, nil)
	if sameFacts(Parse(fact.Category, fact.File, out).Facts, want) {
		return out
	}
	if blank := removeLines(src, fact, []byte(lineEnding(src))); sameFacts(Parse(fact.Category, fact.File, blank).Facts, want) {
		return blank
	}
	// A line after the item indented less than its content but as far as
	// the previous item's would become that item's text, blank line or
	// not. An empty comment in the item's place ends the list there, as
	// the item's own column did.
	if ended := removeLines(src, fact, []byte(listEnd+lineEnding(src))); sameFacts(Parse(fact.Category, fact.File, ended).Facts, want) {
		return ended
	}
	return out
}

// listEnd is the line RemoveFact leaves where only a line at the margin
// keeps the lines after a removed item out of the item before it: an HTML
// comment, which ends a list item and shows nothing.
const listEnd = "<!-- -->"

// sameFacts says a and b hold the same facts, by id and text, in order.
func sameFacts(a, b []Fact) bool {
	return slices.EqualFunc(a, b, func(x, y Fact) bool { return x.ID == y.ID && x.Text == y.Text })
}

// removeLines replaces the lines of fact with repl.
func removeLines(src []byte, fact Fact, repl []byte) []byte {
	lines := rawLines(src)
	out := splice(lines, fact.Line, fact.EndLine, repl)
	// Removing the last line of a file without a final newline leaves the
	// previous line's newline dangling; drop it to keep the file's style.
	if fact.EndLine == len(lines) && !bytes.HasSuffix(src, []byte("\n")) {
		out = bytes.TrimSuffix(bytes.TrimSuffix(out, []byte("\n")), []byte("\r"))
	}
	return out
}

// rawLines splits src after each LF, keeping the line endings.
func rawLines(src []byte) [][]byte {
	var out [][]byte
	for len(src) > 0 {
		i := bytes.IndexByte(src, '\n')
		if i < 0 {
			out = append(out, src)
			break
		}
		out = append(out, src[:i+1])
		src = src[i+1:]
	}
	return out
}

// splice replaces lines first..last (1-based, inclusive) with repl.
func splice(lines [][]byte, first, last int, repl []byte) []byte {
	var out []byte
	for _, l := range lines[:first-1] {
		out = append(out, l...)
	}
	out = append(out, repl...)
	for _, l := range lines[last:] {
		out = append(out, l...)
	}
	return out
}

// markerOf returns a list item's marker with its indentation and the
// spaces after it: "- ", "  * ", "1. ". The item's content keeps its
// column: a tab after the marker becomes the spaces it stood for, and
// more than four columns (content that is indented code) become one
// space, as CommonMark reads them. Lines after the item are read against
// that column, so a new text in another column could take them in.
func markerOf(line string) string {
	_, j, ok := scanMarker(line)
	if !ok {
		return "- "
	}
	col := j // scanMarker skips only spaces before the marker
	k := j
	for ; k < len(line) && (line[k] == ' ' || line[k] == '\t'); k++ {
		if line[k] == '\t' {
			col += 4 - col%4
		} else {
			col++
		}
	}
	width := col - j
	if width == 0 || width > 4 || k == len(line) {
		width = 1
	}
	return line[:j] + strings.Repeat(" ", width)
}

// lineEnding is "\r\n" for a file that uses CRLF, else "\n".
func lineEnding(src []byte) string {
	if bytes.Contains(src, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}
