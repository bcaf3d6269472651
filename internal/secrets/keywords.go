package secrets

import (
	"errors"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// keywordIndex finds, in one pass over a text, the rules whose keywords
// occur in it: a bitmap of the keywords' first two bytes lets most
// positions be skipped with one lookup, where checking each rule's
// keywords in turn reads the text once per keyword (some 240 times).
type keywordIndex struct {
	pairs [1 << 16 / 64]uint64 // the first two bytes of some keyword
	at    [1 << 16]uint16      // for such a pair, 1 + its index in lists
	lists [][]keywordRules     // the keywords that start with a pair
}

type keywordRules struct {
	word  string
	rules []int // indexes into rules, ascending
}

var keywords = sync.OnceValue(func() *keywordIndex {
	x := &keywordIndex{}
	for i := range rules {
		for _, w := range rules[i].keywords {
			p := uint16(w[0])<<8 | uint16(w[1]) // every keyword has two bytes or more (TestKeywordIndex)
			if x.at[p] == 0 {
				x.pairs[p/64] |= 1 << (p % 64)
				x.lists = append(x.lists, nil)
				x.at[p] = uint16(len(x.lists))
			}
			list := x.lists[x.at[p]-1]
			j := slices.IndexFunc(list, func(k keywordRules) bool { return k.word == w })
			if j < 0 {
				list = append(list, keywordRules{word: w})
				j = len(list) - 1
			}
			if rs := list[j].rules; len(rs) == 0 || rs[len(rs)-1] != i {
				list[j].rules = append(rs, i)
			}
			x.lists[x.at[p]-1] = list
		}
	}
	return x
})

// ruleSet collects rule indexes without repeats.
type ruleSet struct {
	seen []uint32 // the generation in which each rule was added
	gen  uint32
	list []int
}

func newRuleSet() *ruleSet { return &ruleSet{seen: make([]uint32, len(rules)), gen: 1} }

func (s *ruleSet) reset() {
	s.gen++
	s.list = s.list[:0]
}

func (s *ruleSet) add(i int) {
	if s.seen[i] != s.gen {
		s.seen[i] = s.gen
		s.list = append(s.list, i)
	}
}

// match adds to s the rules with a keyword in text, compared as
// gitleaks does: in text lower-cased with strings.ToLower. Keywords are
// lower-case ASCII, so for ASCII text comparing byte by byte with ASCII
// upper case folded is the same, without making a lower-case copy.
func (x *keywordIndex) match(text string, s *ruleSet) {
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 {
			x.matchLower(strings.ToLower(text), s)
			return
		}
	}
	x.matchLower(text, s)
}

// matchLower is match for text that is lower-case or ASCII.
func (x *keywordIndex) matchLower(text string, s *ruleSet) {
	for i := 0; i+1 < len(text); i++ {
		p := uint16(lower(text[i]))<<8 | uint16(lower(text[i+1]))
		if x.pairs[p/64]&(1<<(p%64)) == 0 {
			continue
		}
		for _, k := range x.lists[x.at[p]-1] {
			if hasFoldedPrefix(text[i:], k.word) {
				for _, r := range k.rules {
					s.add(r)
				}
			}
		}
	}
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasFoldedPrefix reports whether s starts with the lower-case word,
// with s's ASCII upper case folded.
func hasFoldedPrefix(s, word string) bool {
	if len(s) < len(word) {
		return false
	}
	for i := 0; i < len(word); i++ {
		if lower(s[i]) != word[i] {
			return false
		}
	}
	return true
}

// semiGenericPrefix starts the regular expressions gitleaks builds with
// its GenerateSemiGenericRegex (about 95 rules): up to 50 identifier
// characters before the keyword, lazily. Go's regexp keeps up to 50
// threads alive at every byte for it, which makes these rules the slowest
// by far on long text.
const semiGenericPrefix = `(?i)[\w.-]{0,50}?`

var semiGenericPre = sync.OnceValue(func() []*lazyRegexp {
	out := make([]*lazyRegexp, len(rules))
	for i := range rules {
		if rest, ok := strings.CutPrefix(rules[i].re.src, semiGenericPrefix); ok {
			out[i] = &lazyRegexp{src: "(?i)" + rest}
		}
	}
	return out
})

// semiGeneric returns, for rule i if it was made by GenerateSemiGenericRegex, its
// expression without the leading identifier characters: every match of
// the rule ends with a match of it, so text it does not match cannot
// match the rule, and it runs many times faster. Nil for other rules.
func semiGeneric(i int) *lazyRegexp { return semiGenericPre()[i] }

// ScanJSONLines scans the string values of each line of text, a JSON
// Lines file such as .beads/issues.jsonl or indented JSON whose strings
// do not span lines (a proposal file), one by one, as the write gate
// scans the fields it stores: the keys are not part of the text. (On the
// raw line, a key such as "author" followed by a value of ten characters
// or more is a match of gitleaks' generic-api-key expression, whose
// entropy test then rejects it: the expression would run on every
// comment, at a cost of a hundred microseconds or more each.) Values are
// scanned as written, escapes included, so columns are the file's; a
// value that spans escaped newlines (\n) is one text, as gitleaks reads
// it. Lines that are not JSON are scanned whole. The lines are split among
// the processors. Findings are in order of position.
func ScanJSONLines(text string) ([]Finding, error) {
	chunks := splitLines(text, min(runtime.GOMAXPROCS(0), 1+len(text)/(256<<10)))
	if len(chunks) == 1 {
		return scanJSONLines(text, 1)
	}
	found := make([][]Finding, len(chunks))
	errs := make([]error, len(chunks))
	var wg sync.WaitGroup
	for i, c := range chunks {
		wg.Go(func() { found[i], errs[i] = scanJSONLines(c.text, c.line) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return slices.Concat(found...), nil
}

type chunk struct {
	text string
	line int // of its first line in the whole text, 1-based
}

// splitLines cuts text into at most n chunks of about the same size, at
// line ends.
func splitLines(text string, n int) []chunk {
	var out []chunk
	line := 1
	for n > 1 && len(text) > 0 {
		end := len(text) / n
		if i := strings.IndexByte(text[end:], '\n'); i >= 0 {
			end += i + 1
		} else {
			end = len(text)
		}
		out = append(out, chunk{text[:end], line})
		line += strings.Count(text[:end], "\n")
		text = text[end:]
		n--
	}
	return append(out, chunk{text, line})
}

func scanJSONLines(text string, first int) ([]Finding, error) {
	var out []Finding
	set := newRuleSet()
	x := keywords()
	// find runs the rules whose keywords occur in s, with one rule set
	// reused for every value of the file.
	find := func(s string) ([]finding, error) {
		set.reset()
		x.match(s, set)
		var found []finding
		if len(set.list) > 0 {
			var err error
			if found, err = scanRules(s, set.list); err != nil {
				return nil, err
			}
		}
		own, err := scanOwn(s)
		return append(found, own...), err
	}
	scan := func(n, at int, s string) error {
		found, err := find(s)
		if err != nil {
			return err
		}
		for _, f := range positions(s, found) {
			f.Line, f.Column = n, at+f.Column
			out = append(out, f)
		}
		return nil
	}
	// scanValue scans the text of a string value: decoded, as the gate
	// saw it when it was written, with positions mapped back to the line.
	scanValue := func(n int, line string, span [2]int) error {
		raw := line[span[0]:span[1]]
		if !strings.Contains(raw, `\`) {
			return scan(n, span[0], raw)
		}
		text, at := unquote(raw)
		found, err := find(text)
		if err != nil {
			return err
		}
		for _, f := range found {
			out = append(out, Finding{RuleID: f.rule.id, Line: n, Column: span[0] + at[f.offset] + 1, Fingerprint: Fingerprint(f.rule.id, f.secret)})
		}
		return nil
	}
	var values [][2]int // reused from line to line
	for n := first; text != ""; n++ {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		var ok bool
		values, ok = jsonValues(line, values[:0])
		if !ok {
			if err := scan(n, 0, line); err != nil {
				return nil, err
			}
			continue
		}
		for _, v := range values {
			if err := scanValue(n, line, v); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// jsonValues appends to spans the spans of the string values in a line
// of JSON (between the quotes, escapes as written), leaving out object
// keys. It reports false when the line does not start as a line of JSON
// Lines or of indented JSON does ({, [ or "), or a string does not end.
func jsonValues(line string, spans [][2]int) ([][2]int, bool) {
	if t := strings.TrimLeft(line, " \t\ufeff"); t == "" || t[0] != '{' && t[0] != '[' && t[0] != '"' {
		return spans[:0], false
	}
	for i := 0; i < len(line); {
		q := strings.IndexByte(line[i:], '"')
		if q < 0 {
			break
		}
		start := i + q + 1
		end := start
		for {
			j := strings.IndexAny(line[end:], `"\\`)
			if j < 0 {
				return spans[:0], false
			}
			end += j
			if line[end] == '"' {
				break
			}
			end += 2 // a backslash and the character it escapes
			if end > len(line) {
				return spans[:0], false
			}
		}
		i = end + 1
		k := i
		for k < len(line) && (line[k] == ' ' || line[k] == '\t' || line[k] == '\r') {
			k++
		}
		if k < len(line) && line[k] == ':' {
			continue // a key
		}
		if end > start {
			spans = append(spans, [2]int{start, end})
		}
	}
	return spans, true
}

// unquote decodes the escapes of a JSON string's content and returns, for
// each byte of the result, its offset in raw. An escape it does not know
// is kept as written.
func unquote(raw string) (string, []int) {
	var b strings.Builder
	at := make([]int, 0, len(raw)+1)
	put := func(s string, from int) {
		b.WriteString(s)
		for range len(s) {
			at = append(at, from)
		}
	}
	for i := 0; i < len(raw); {
		if raw[i] != '\\' || i+1 == len(raw) {
			put(raw[i:i+1], i)
			i++
			continue
		}
		switch c := raw[i+1]; c {
		case '"', '\\', '/':
			put(string(c), i)
		case 'b':
			put("\b", i)
		case 'f':
			put("\f", i)
		case 'n':
			put("\n", i)
		case 'r':
			put("\r", i)
		case 't':
			put("\t", i)
		case 'u':
			r, size := rune(-1), 2
			if v, err := strconv.ParseUint(raw[i+2:min(i+6, len(raw))], 16, 16); err == nil && i+6 <= len(raw) {
				r, size = rune(v), 6
				if utf16.IsSurrogate(r) && i+12 <= len(raw) && raw[i+6:i+8] == `\u` {
					if w, err := strconv.ParseUint(raw[i+8:i+12], 16, 16); err == nil {
						if p := utf16.DecodeRune(r, rune(w)); p != utf8.RuneError {
							r, size = p, 12
						}
					}
				}
			}
			if r < 0 {
				put(raw[i:i+2], i)
			} else {
				put(string(r), i)
			}
			i += size
			continue
		default:
			put(raw[i:i+2], i)
		}
		i += 2
	}
	return b.String(), append(at, len(raw))
}
