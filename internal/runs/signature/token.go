package signature

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The placeholders that stand for what Normalize removes.
const (
	numberMark   = "<n>"
	hexMark      = "<hex>"
	uuidMark     = "<uuid>"
	timeMark     = "<time>"
	durationMark = "<dur>"
	tempMark     = "<tmp>"
)

// appendNormal appends the line's normalised text to b.
func (l line) appendNormal(b []byte) []byte {
	s := l.text
	switch l.kind {
	case goFuncLine:
		s = strings.TrimRight(s, " ")
		if strings.HasSuffix(s, ")") {
			// Arguments are register and pointer values: 0xc000012345, 0x3,
			// {0x5a1e40?, 0x6b8a30?} in newer Go, "..." when inlined.
			if k := openParen(s); k > 0 && s[k:] != "()" {
				return append(appendText(b, s[:k]), "(...)"...)
			}
		}
	case goFileLine:
		if k := strings.LastIndex(s, " +0x"); k > 0 {
			s = s[:k]
		}
	case rustFrameLine:
		// "   9: app::main": the number and its alignment depend on how
		// many of the runtime's frames came before; the address of the
		// full format, on where the program was loaded.
		return appendText(append(b, ' ', ' '), rustSymbol(strings.TrimLeft(s, " \t")))
	}
	b = appendText(b, s)
	if k := bytes.Index(b, []byte("' ("+numberMark+") panicked at ")); k >= 0 {
		// Rust 1.91 names the thread by its id too: thread 'main' (6543).
		b = append(b[:k+1], b[k+1+len(" ("+numberMark+")"):]...)
	}
	return b
}

// openParen returns the index of the "(" that matches the ")" that ends s,
// or -1.
func openParen(s string) int {
	depth := 0
	for k := len(s) - 1; k >= 0; k-- {
		switch s[k] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

// normText normalises one line.
func normText(s string) string { return string(appendText(nil, s)) }

// appendText appends the normalised form of the line s to b: indentation
// becomes two spaces, other runs of spaces and tabs one space (columns are
// aligned to the width of the values that vary), trailing space goes, and
// each word that varies between occurrences is replaced: see the package
// comment.
func appendText(b []byte, s string) []byte {
	start := len(b)
	ind := indentOf(s)
	if ind > 0 {
		// Indented or not is kept; how deep is not: rustc's gutter, for
		// one, widens with the line number.
		b = append(b, ' ', ' ')
	}
	for i := ind; i < len(s); {
		c := s[i]
		prev := byte(' ')
		if i > ind {
			prev = s[i-1]
		}
		switch {
		case c == ' ' || c == '\t':
			j := i + 1
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			if j < len(s) {
				b = append(b, ' ')
			}
			i = j
		case isRuleChar(c) && ruleEnd(s, i)-i > 3:
			// A rule of ====, ____ or ---- is as wide as the terminal.
			b = append(b, c, c, c)
			i = ruleEnd(s, i)
		case isPathBoundary(prev) && pathStart(s, i):
			j := pathEnd(s, i)
			b = append(b, pathTail(s[i:j])...)
			i = j
		case isWordByte(c) || c >= utf8.RuneSelf && wordEnd(s, i) > i:
			var j int
			b, j = appendWord(b, s, i, prev)
			i = j
		case c >= utf8.RuneSelf:
			// A symbol or punctuation of another script: ›, …, ●.
			_, size := utf8.DecodeRuneInString(s[i:])
			b = append(b, s[i:i+size]...)
			i += size
		default:
			b = append(b, c)
			i++
		}
	}
	// A runner's timing in parentheses (go test's --- FAIL: TestX (0.01s),
	// jest's slow file) is shown only sometimes.
	const timing = " (" + durationMark + ")"
	for {
		k := bytes.Index(b[start:], []byte(timing))
		if k < 0 {
			break
		}
		k += start
		b = append(b[:k], b[k+len(timing):]...)
	}
	for len(b) > start && b[len(b)-1] == ' ' {
		b = b[:len(b)-1] // what the timing followed, or an indentation alone
	}
	return b
}

// ruleEnd returns the end of the run of s[i] that starts at i.
func ruleEnd(s string, i int) int {
	j := i + 1
	for j < len(s) && s[j] == s[i] {
		j++
	}
	return j
}

func isRuleChar(c byte) bool {
	return c == '=' || c == '_' || c == '-' || c == '*' || c == '~' || c == '^' || c == '#' || c == '.'
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// appendWord appends the normalised form of the word that starts at s[i]
// (just after a character that is not part of a word) and returns where
// it ends.
func appendWord(b []byte, s string, i int, prev byte) ([]byte, int) {
	c := s[i]
	if isHex(c) {
		if j := uuidEnd(s, i); j > 0 {
			return append(b, uuidMark...), j
		}
	}
	if isDigit(c) {
		if j := dateEnd(s, i); j > 0 {
			return append(b, timeMark...), j
		}
		if prev != ':' {
			// Not after a colon: main.go:12:34:56 is a line, not a time.
			if j := clockEnd(s, i); j > 0 {
				return append(b, timeMark...), zoneEnd(s, j)
			}
		}
		if c == '0' && i+2 < len(s) && (s[i+1] == 'x' || s[i+1] == 'X') && isHex(s[i+2]) {
			j := i + 2
			for j < len(s) && isHex(s[j]) {
				j++
			}
			if j == len(s) || !isWordByte(s[j]) {
				return append(b, hexMark...), j
			}
		}
	} else if c >= 'A' && c <= 'Z' {
		if j := namedDateEnd(s, i); j > 0 {
			return append(b, timeMark...), j
		}
	} else if c == 'f' && strings.HasPrefix(s[i:], "file:///") {
		j := pathEnd(s, i+len("file://"))
		return append(b, pathTail(s[i+len("file://"):j])...), j
	}
	end := wordEnd(s, i)
	if isHashWord(s[i:end]) || c == 'h' && prev == ':' && end-i == 17 && isHashWord("0"+s[i+1:end]) {
		// A hash, or the one Rust appends to a symbol: app::main::h0be520bdeb30de61.
		return append(b, hexMark...), end
	}
	if !isDigit(c) {
		return append(b, s[i:dottedEnd(s, end)]...), dottedEnd(s, end)
	}
	// A number: 12, 3.14, 127.0.0.1, or a duration: 12ms, 1m30.5s, 0.52 seconds.
	j := numberEnd(s, i)
	if k := durationEnd(s, j, strings.IndexByte(s[i:j], '.') >= 0); k > 0 {
		return append(b, durationMark...), k
	}
	if j < len(s) && (isWordByte(s[j]) || s[j] >= utf8.RuneSelf && j < wordEnd(s, j)) {
		// 3rd, 64bit, 2xx: a word, not a quantity.
		return append(b, s[i:dottedEnd(s, wordEnd(s, i))]...), dottedEnd(s, wordEnd(s, i))
	}
	return append(b, numberMark...), j
}

// wordEnd returns the end of the run of word characters (ASCII letters,
// digits, _, and letters, digits and marks of other scripts) from s[i].
func wordEnd(s string, i int) int {
	for i < len(s) {
		c := s[i]
		if isWordByte(c) {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			return i
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) {
			return i
		}
		i += size
	}
	return i
}

// dottedEnd extends a word over ".part" that follows it: main.go,
// go1.22.1, pkg.Func, whose digits are not numbers.
func dottedEnd(s string, end int) int {
	for end+1 < len(s) && s[end] == '.' && isWordByte(s[end+1]) {
		end = wordEnd(s, end+1)
	}
	return end
}

// numberEnd returns the end of the number at s[i]: digits, with .digits
// parts (3.14, 127.0.0.1, 1.22.1).
func numberEnd(s string, i int) int {
	i += digits(s, i)
	for i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		i += 1 + digits(s, i+1)
	}
	return i
}

// isHashWord reports whether w looks like a hash or an address: at least 7
// hex digits, with both a digit and a letter (a git commit, a build id,
// e3b0c44298fc). Words of letters a–f only (deadbeef, facade) stay.
func isHashWord(w string) bool {
	if len(w) < 7 {
		return false
	}
	digit, letter := false, false
	for k := 0; k < len(w); k++ {
		switch c := w[k]; {
		case isDigit(c):
			digit = true
		case isHex(c):
			letter = true
		default:
			return false
		}
	}
	return digit && letter
}

// uuidEnd returns the end of the UUID at s[i] (8-4-4-4-12 hex digits), or 0.
func uuidEnd(s string, i int) int {
	if len(s)-i < 36 {
		return 0
	}
	for k := 0; k < 36; k++ {
		c := s[i+k]
		if k == 8 || k == 13 || k == 18 || k == 23 {
			if c != '-' {
				return 0
			}
		} else if !isHex(c) {
			return 0
		}
	}
	if j := i + 36; j < len(s) && isWordByte(s[j]) {
		return 0
	}
	return i + 36
}

// fixed reports whether s[i:] starts with the pattern, where '9' stands
// for any digit and other bytes for themselves.
func fixed(s string, i int, pattern string) bool {
	if len(s)-i < len(pattern) {
		return false
	}
	for k := 0; k < len(pattern); k++ {
		c := s[i+k]
		if p := pattern[k]; p == '9' && !isDigit(c) || p != '9' && c != p {
			return false
		}
	}
	return true
}

// dateEnd returns the end of the date or timestamp at s[i], or 0:
// 2026-11-23, 2026-11-23T10:00:00.123Z (RFC 3339), 2026-11-23 10:00:00,123
// (Python's logging), 2026/11/23 10:00:00.000000 (Go's log), and
// 23/Nov/2026:10:00:00 +0000 (a web server's log).
func dateEnd(s string, i int) int {
	if fixed(s, i, "99/") && i+11 <= len(s) && month(s[i+3:]) && fixed(s, i+6, "/9999:99:99:99") {
		return zoneEnd(s, i+20)
	}
	if !fixed(s, i, "9999-99-99") && !fixed(s, i, "9999/99/99") {
		return 0
	}
	j := i + 10
	if j+1 < len(s) && (s[j] == 'T' || s[j] == ' ' || s[j] == '_') && isDigit(s[j+1]) {
		if k := clockEnd(s, j+1); k > 0 {
			return zoneEnd(s, k)
		}
	}
	if j < len(s) && isWordByte(s[j]) {
		return 0
	}
	return j
}

// clockEnd returns the end of a time of day at s[i] (10:00:00, 9:05:03.123,
// 10:00:00,123), or 0.
func clockEnd(s string, i int) int {
	j := i
	if fixed(s, j, "99:99:99") {
		j += 8
	} else if fixed(s, j, "9:99:99") {
		j += 7
	} else {
		return 0
	}
	if j+1 < len(s) && (s[j] == '.' || s[j] == ',') && isDigit(s[j+1]) {
		j += 1 + digits(s, j+1)
	}
	if j < len(s) && (isWordByte(s[j]) && s[j] != 'Z' || s[j] == ':') {
		return 0
	}
	return j
}

// zoneEnd extends a time over the zone that follows it: Z, +01:00, -0700,
// " +0000 UTC", " UTC".
func zoneEnd(s string, j int) int {
	switch {
	case j < len(s) && s[j] == 'Z':
		j++
	case fixed(s, j+1, "99:99") && (s[j] == '+' || s[j] == '-'):
		j += 6
	case fixed(s, j+1, "9999") && (s[j] == '+' || s[j] == '-'):
		j += 5
	case fixed(s, j+2, "9999") && s[j] == ' ' && (s[j+1] == '+' || s[j+1] == '-'):
		j += 6
	}
	if j+1 < len(s) && s[j] == ' ' {
		k := j + 1
		for k < len(s) && s[k] >= 'A' && s[k] <= 'Z' {
			k++
		}
		if n := k - j - 1; n >= 3 && n <= 4 && (k == len(s) || !isWordByte(s[k])) {
			j = k
		}
	}
	return j
}

var months = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

func month(s string) bool {
	if len(s) < 3 {
		return false
	}
	for _, m := range months {
		if s[:3] == m {
			return true
		}
	}
	return false
}

func weekday(s string) bool {
	if len(s) < 3 {
		return false
	}
	switch s[:3] {
	case "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun":
		return true
	}
	return false
}

// namedDateEnd returns the end of a date with a month name at s[i], with
// a time of day or a year, or 0: syslog's "Nov 23 10:00:01", date's
// "Mon Nov 23 10:00:01 UTC 2026", RFC 1123's "Mon, 23 Nov 2026 10:00:01 GMT".
func namedDateEnd(s string, i int) int {
	j := i
	if weekday(s[j:]) && j+4 < len(s) && (s[j+3] == ' ' || s[j+3] == ',') {
		j += 3
		if s[j] == ',' {
			j++
		}
		j = skipSpaces(s, j)
	}
	day := func(k int) int {
		n := digits(s, k)
		if n == 0 || n > 2 {
			return 0
		}
		return k + n
	}
	switch {
	case j >= len(s):
		return 0
	case month(s[j:]) && j+3 < len(s) && s[j+3] == ' ':
		k := day(skipSpaces(s, j+3))
		if k == 0 {
			return 0
		}
		j = k
	case isDigit(s[j]):
		k := day(j)
		if k == 0 || k+4 >= len(s) || s[k] != ' ' || !month(s[k+1:]) || s[k+4] != ' ' {
			return 0
		}
		j = k + 4
	default:
		return 0
	}
	if j < len(s) && s[j] == ',' {
		j++
	}
	found := false
	if fixed(s, j, " 9999") && (j+5 == len(s) || !isWordByte(s[j+5])) {
		j += 5
		found = true
	}
	if k := skipSpaces(s, j); k > j {
		if c := clockEnd(s, k); c > 0 {
			j = zoneEnd(s, c)
			found = true
			if fixed(s, j, " 9999") && (j+5 == len(s) || !isWordByte(s[j+5])) {
				j += 5
			}
		}
	}
	if !found {
		return 0
	}
	return j
}

func skipSpaces(s string, j int) int {
	for j < len(s) && s[j] == ' ' {
		j++
	}
	return j
}

// durationEnd returns the end of the duration whose number ends at s[j]
// (12ms, 1m30.5s, 2h0m0s, 0.52 seconds, 1.234 s), or 0. decimal: the
// number has a fraction, which makes "1.5 s" a duration and "1 s" not.
func durationEnd(s string, j int, decimal bool) int {
	for k := j; ; {
		u := unitEnd(s, k)
		if u == 0 {
			break
		}
		if u < len(s) && isDigit(s[u]) {
			k = numberEnd(s, u) // 1m30s: another number and unit
			continue
		}
		if u == len(s) || !isWordByte(s[u]) {
			return u
		}
		break
	}
	if j < len(s) && s[j] == ' ' {
		w := wordEnd(s, j+1)
		switch s[j+1 : w] {
		case "ms", "sec", "secs", "second", "seconds", "min", "mins", "minute", "minutes", "hour", "hours",
			"millisecond", "milliseconds":
			return w
		case "s":
			if decimal {
				return w
			}
		}
	}
	return 0
}

// unitEnd returns the end of a Go duration unit at s[k], or 0.
func unitEnd(s string, k int) int {
	for _, u := range [...]string{"ns", "us", "µs", "ms", "sec", "min", "s", "m", "h"} {
		if strings.HasPrefix(s[k:], u) {
			return k + len(u)
		}
	}
	return 0
}

// isPathBoundary reports whether an absolute path may start after c: at the
// start of the line, after a space, a quote, a bracket, = or a comma.
func isPathBoundary(c byte) bool {
	switch c {
	case ' ', '\t', '\'', '"', '`', '(', '<', '[', '{', '=', ',':
		return true
	}
	return false
}

// pathStart reports whether an absolute path starts at s[i]: /x, ~/x, C:\x.
func pathStart(s string, i int) bool {
	switch c := s[i]; {
	case c == '/':
		return i+1 < len(s) && s[i+1] != '/' && !isPathEnd(s[i+1])
	case c == '~':
		return i+2 < len(s) && s[i+1] == '/' && !isPathEnd(s[i+2])
	case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
		return i+3 < len(s) && s[i+1] == ':' && s[i+2] == '\\' && !isPathEnd(s[i+3])
	}
	return false
}

// pathEnd returns where the path that starts at s[i] ends.
func pathEnd(s string, i int) int {
	j := i
	if j+2 < len(s) && s[j+1] == ':' && s[j+2] == '\\' {
		j += 2 // the drive's colon
	}
	for j < len(s) && !isPathEnd(s[j]) {
		j++
	}
	return j
}

func isPathEnd(c byte) bool {
	switch c {
	case ' ', '\t', '\'', '"', '`', '(', ')', '<', '>', '[', ']', '{', '}', ',', ';', ':', '|':
		return true
	}
	return false
}

// pathTail returns what a signature keeps of an absolute path: the part
// after the directory of a package manager or a language's library, which
// names the package and file the same way on every machine
// (node_modules/x/y.js, site-packages/x/y.py, github.com/x/y@v1.2.3/z.go,
// serde-1.0.190/src/de.rs, json/decoder.py), else its base name. Where the
// repository or a temporary directory sits differs between machines; the
// file's name does not (a random name, a temporary directory's, is
// normalised too).
func pathTail(p string) string {
	parts := strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' })
	if len(parts) == 0 {
		return p // "/" alone
	}
	for k := len(parts) - 2; k >= 0; k-- {
		switch parts[k] {
		case "node_modules":
			return "node_modules/" + strings.Join(parts[k+1:], "/")
		case "site-packages", "dist-packages":
			return "site-packages/" + strings.Join(parts[k+1:], "/")
		}
	}
	for k := 0; k+2 < len(parts); k++ {
		switch {
		case parts[k] == "pkg" && parts[k+1] == "mod":
			return strings.Join(parts[k+2:], "/") // the Go module cache
		case parts[k] == "registry" && parts[k+1] == "src" && k+3 < len(parts):
			return strings.Join(parts[k+3:], "/") // cargo's registry/src/<index>/
		case parts[k] == "rustc" && k == 0:
			return strings.Join(parts[k+2:], "/") // /rustc/<commit>/library/…
		case parts[k] == "lib" && strings.HasPrefix(parts[k+1], "python"):
			return strings.Join(parts[k+2:], "/") // Python's standard library
		}
	}
	return normName(parts[len(parts)-1])
}

// normName normalises a file's base name: a temporary name (tmpk3j_x9a,
// tmp.AbC123xYz0, go-build123456) becomes <tmp>; hashes, UUIDs, times and
// runs of 4 digits or more become their placeholders.
func normName(name string) string {
	if isTempName(name) {
		return tempMark
	}
	n := normText(name)
	if !strings.ContainsAny(n, "0123456789") {
		return n
	}
	b := make([]byte, 0, len(n))
	for k := 0; k < len(n); {
		if d := digits(n, k); d >= 4 {
			b = append(b, numberMark...)
			k += d
			continue
		}
		b = append(b, n[k])
		k++
	}
	return string(b)
}

func isTempName(name string) bool {
	if rest, ok := strings.CutPrefix(name, "go-build"); ok {
		return rest != "" && digits(rest, 0) == len(rest)
	}
	rest, ok := strings.CutPrefix(name, "tmp")
	if !ok {
		return false
	}
	rest = strings.TrimPrefix(rest, ".")
	if len(rest) < 6 {
		return false
	}
	for k := 0; k < len(rest); k++ {
		if !isWordByte(rest[k]) {
			return false
		}
	}
	return true
}
