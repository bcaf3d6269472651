package secrets

import (
	"slices"
	"strings"
	"sync"
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

// ScanLines is Scan for text whose lines are records of their own, such
// as JSON Lines, where no secret can span two lines: each line is scanned
// alone, which is the same as scanning the whole text but skips at once
// the lines that hold no rule's keyword. Findings are in order of
// position, with lines and columns in text.
func ScanLines(text string) ([]Finding, error) {
	var out []Finding
	set := newRuleSet()
	x := keywords()
	for n := 1; text != ""; n++ {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		set.reset()
		x.match(line, set)
		if len(set.list) == 0 {
			continue
		}
		found, err := Scan(line)
		if err != nil {
			return nil, err
		}
		for _, f := range found {
			f.Line = n
			out = append(out, f)
		}
	}
	return out, nil
}
