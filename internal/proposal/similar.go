package proposal

import (
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/memctl/memctl/internal/embed"
	"github.com/memctl/memctl/internal/ids"
	"github.com/memctl/memctl/internal/ledger"
)

// Matcher finds existing facts that a proposed text resembles. The
// built-in matcher below judges by words; the recall index provides a
// hybrid one through the same interface.
type Matcher interface {
	Similar(category, text string, facts []ledger.Fact) []Similar
}

// Thresholds of Judge. The word thresholds were chosen on the calibration
// half of testdata/judge/pairs.jsonl and frozen (TestJudgeThresholds
// chooses them again and fails if they moved; docs/recall.md has the
// tables).
var frozen = thresholds{dup: 0.48, contra: 0.62, semDup: 0.85}

// thresholds are where Judge's similarities start to count.
type thresholds struct {
	// dup: a word alignment of at least this is a near-duplicate.
	dup float64
	// contra: at least this, with a negation on one side, another number
	// or an opposite word, is a possible contradiction.
	contra float64
	// semDup: a cosine from recall's embedder of at least this is a
	// near-duplicate whatever the words. It is not fitted to the pairs:
	// the index's embedder may be an HTTP model, whose cosines run higher
	// than the built-in one's, and on the built-in one the best threshold
	// on the calibration half (.34 to .43) is below the cosines of some
	// related pairs of the test half. At .85 the cosine changes nothing on
	// the pairs; it is kept for a strong model's near-certain paraphrases.
	semDup float64
}

// relation is the relation Judge reports for a word alignment, a
// conflict and a cosine (< 0: none), or "".
func (th thresholds) relation(sim float64, kind int, cosine float64) string {
	switch {
	case kind == conflictSwap || kind != conflictNone && sim >= th.contra:
		return "possible-contradiction"
	case kind == conflictNumber:
		// A rewording keeps the numbers: another number in a text less
		// alike than a contradiction is about another thing (the API's
		// port and the metrics port).
		return ""
	case sim >= th.dup || cosine >= 0 && cosine >= th.semDup:
		return "near-duplicate"
	}
	return ""
}

const (
	// cosFloor: a word pair's cosine in the built-in word table counts
	// from here (unrelated words are often .2 to .3 apart).
	cosFloor   = 0.3
	maxSimilar = 5
)

// Lexical is the built-in matcher: Judge over each fact of the category,
// without a semantic similarity.
type Lexical struct{}

// Similar returns up to five facts of the category, most similar first.
func (Lexical) Similar(category, text string, facts []ledger.Fact) []Similar {
	p := Prepare(text)
	var out []Similar
	for _, f := range facts {
		if f.Category != category {
			continue
		}
		if s, ok := p.Judge(f, -1); ok {
			out = append(out, s)
		}
	}
	return Top(out)
}

// Judge decides how an existing fact relates to a proposed text; see
// Proposed.Judge. To judge one text against many facts, Prepare it once.
func Judge(text string, f ledger.Fact, cosine float64) (Similar, bool) {
	return Prepare(text).Judge(f, cosine)
}

// Proposed is a proposed text made ready to be judged against facts.
type Proposed struct {
	t    text
	vecs [][]float32 // the unit word vector of each of t.words, nil if none
}

// Prepare splits a proposed text into the words Judge compares.
func Prepare(s string) *Proposed {
	p := &Proposed{t: parseText(s)}
	p.vecs = make([][]float32, len(p.t.words))
	for i, w := range p.t.words {
		if v, ok := embed.WordVec(w.s); ok {
			p.vecs[i] = v
		}
	}
	return p
}

// Judge decides how an existing fact relates to the proposed text.
//
// The similarity is a word alignment: each content word of one text is
// paired with the word of the other nearest in meaning (1 for the same
// word, else the cosine of their vectors in the built-in word table,
// rescaled from cosFloor), the words are weighted by rarity, and the
// smaller of the two directions' weighted means is kept, so a short fact
// inside a long text on another matter does not count as the same.
//
// A possible contradiction is a similarity of at least frozen.contra
// where one side negates and the other does not, a number or version
// differs, or a word is the other's opposite (tabs and spaces); or one
// name swapped for another in otherwise the same words (PostgreSQL and
// MySQL: words outside the 5,000 most frequent). Why says which. Otherwise a similarity of at least frozen.dup,
// or a cosine of at least frozen.semDup, is a near-duplicate: the same
// fact, reworded or not. Anything else is not similar (ok false). cosine
// < 0 means no semantic similarity is known. The score is the higher of
// the two similarities.
func (p *Proposed) Judge(f ledger.Fact, cosine float64) (Similar, bool) {
	sim, kind, why := p.judge(f.Text)
	rel := frozen.relation(sim, kind, cosine)
	if rel == "" {
		return Similar{}, false
	}
	s := Similar{FactID: f.ID, Category: f.Category, Text: f.Text, Score: round2(max(sim, cosine)), Relation: rel}
	if rel == "possible-contradiction" {
		s.Why = why
	}
	return s, true
}

// judge returns the word alignment of the proposed text with a fact's,
// and what conflicts between them.
func (p *Proposed) judge(fact string) (sim float64, kind int, why string) {
	b := parseText(fact)
	kind, why = conflict(&p.t, &b)
	return p.align(&b), kind, why
}

// Top orders similar facts most similar first and keeps five.
func Top(out []Similar) []Similar {
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	if len(out) > maxSimilar {
		out = out[:maxSimilar]
	}
	return out
}

// text is what Judge compares of a text: its content words, its numbers,
// and whether it negates.
type text struct {
	words []word
	nums  []string // as written; compared by numberKey
	neg   bool
	// contrast: the text says "instead" or "rather", which states what a
	// negation would ("use X rather than Y" is "use X, not Y").
	contrast bool
	// ruledOut are the stems of the words a negation or a contrast rules
	// out: the first content word after it ("not require", "instead of
	// zap").
	ruledOut []string
}

type word struct {
	s, stem string
	weight  float64
}

var numberRE = regexp.MustCompile(`[0-9]+(?:[.:][0-9]+)*`)

var numberWords = map[string]string{
	"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
	"seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
}

var negations = map[string]bool{
	"not": true, "never": true, "no": true, "avoid": true, "cannot": true, "without": true, "nor": true,
	"forbidden": true, "disallow": true,
	// n't typed without its apostrophe
	"dont": true, "doesnt": true, "cant": true, "isnt": true, "arent": true, "wont": true, "shouldnt": true,
	"mustnt": true, "neednt": true,
}

var stopwords = map[string]bool{
	"the": true, "a": true, "an": true, "is": true, "are": true, "to": true, "of": true, "in": true,
	"and": true, "or": true, "it": true, "its": true, "on": true, "for": true, "be": true, "with": true,
	"that": true, "this": true, "as": true, "at": true, "by": true, "we": true, "our": true, "use": true,
	"must": true, "should": true, "do": true, "does": true, "can": true, "may": true, "has": true,
	"have": true, "will": true, "so": true, "from": true, "into": true, "their": true, "them": true,
	"they": true, "e": true, "g": true, "s": true, "t": true, "any": true, "every": true, "all": true,
	"each": true, "only": true,
}

// parseText splits s into lower-case words, as the built-in word table
// spells them: numbers (digits, with dots or colons: 1.22, 02:00) and the
// words one to twelve go to nums; a negation sets neg; stop words go.
func parseText(s string) text {
	var t text
	lower := strings.ToLower(s)
	seenNum := map[string]bool{}
	addNum := func(n string) {
		if k := numberKey(n); !seenNum[k] {
			seenNum[k] = true
			t.nums = append(t.nums, n)
		}
	}
	for _, n := range numberRE.FindAllString(lower, -1) {
		addNum(n)
	}
	seen := map[string]bool{}
	ruling := false // the next content word is ruled out
	for _, tok := range strings.FieldsFunc(lower, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’' }) {
		tok = strings.Trim(strings.ReplaceAll(tok, "’", "'"), "'")
		if negations[tok] || strings.HasSuffix(tok, "n't") {
			t.neg, ruling = true, true
			continue
		}
		if tok == "instead" || tok == "rather" {
			t.contrast, ruling = true, true
		}
		if ruling && !stopwords[tok] && tok != "instead" && tok != "rather" && tok != "than" {
			t.ruledOut = append(t.ruledOut, stem(tok))
			ruling = false
		}
		if n, ok := numberWords[tok]; ok {
			addNum(n)
			continue
		}
		tok, _, _ = strings.Cut(tok, "'")
		for _, w := range splitDigits(tok) {
			if w == "" || stopwords[w] || seen[w] || isNumber(w) {
				continue
			}
			seen[w] = true
			t.words = append(t.words, word{s: w, stem: stem(w), weight: rarity(w)})
		}
	}
	return t
}

// splitDigits splits a token that starts with digits from the letters
// after them (4gb, 2x): the number is counted apart.
func splitDigits(tok string) []string {
	i := strings.IndexFunc(tok, func(r rune) bool { return !unicode.IsDigit(r) })
	if i <= 0 {
		return []string{tok}
	}
	return []string{tok[:i], tok[i:]}
}

func isNumber(w string) bool {
	return strings.IndexFunc(w, func(r rune) bool { return !unicode.IsDigit(r) }) < 0
}

// stem strips a plural or tense ending, enough to pair "tests" with "test"
// and "deployed" with "deploy".
func stem(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

// rarity weighs a word by its frequency rank in the built-in word table,
// standing in for a corpus's inverse document frequency: "run" weighs
// about 1.6, "postgresql" about 6; a word the table lacks (an identifier)
// weighs as the rarest.
func rarity(w string) float64 {
	r, ok := embed.WordRank(w)
	if !ok || r > 40000 {
		r = 40000
	}
	return math.Log(float64(r)+50) - math.Log(50)
}

// align is the word alignment of the proposed text with b (see Judge).
func (p *Proposed) align(b *text) float64 {
	a := &p.t
	if len(a.words) == 0 || len(b.words) == 0 {
		return 0
	}
	rowBest := make([]float64, len(a.words))
	colBest := make([]float64, len(b.words))
	for i, x := range a.words {
		for j, y := range b.words {
			sim := 0.0
			if x.stem == y.stem {
				sim = 1
			} else if p.vecs[i] != nil {
				if c, ok := embed.WordCos(p.vecs[i], y.s); ok {
					sim = max(0, (c-cosFloor)/(1-cosFloor))
				}
			}
			rowBest[i] = max(rowBest[i], sim)
			colBest[j] = max(colBest[j], sim)
		}
	}
	return min(weightedMean(a.words, rowBest), weightedMean(b.words, colBest))
}

func weightedMean(ws []word, best []float64) float64 {
	var sum, total float64
	for i, w := range ws {
		sum += w.weight * best[i]
		total += w.weight
	}
	if total == 0 {
		return 0
	}
	return sum / total
}

// Kinds of conflict between a proposed text and a fact.
const (
	conflictNone = iota
	conflictNegation
	conflictNumber
	conflictOpposite
	conflictSwap
)

// conflict says what may make a proposed text a contradict a fact b: one
// side negates and the other neither negates nor contrasts ("instead",
// "rather"), a number differs, a word is the other's opposite, or one name
// is swapped for another in otherwise the same words (isName).
func conflict(a, b *text) (kind int, why string) {
	// Both rule something out, each what the other keeps: "use
	// require, not assert" and "use assert, not require".
	if x, y := reversed(a, b), reversed(b, a); x != "" && y != "" && x != y {
		return conflictSwap, "the proposal rules out " + x + ", the fact " + y
	}
	if a.neg && !b.neg && !b.contrast {
		return conflictNegation, "the proposal negates, the fact does not"
	}
	if b.neg && !a.neg && !a.contrast {
		return conflictNegation, "the fact negates, the proposal does not"
	}
	if x, y := firstMissing(a.nums, b.nums), firstMissing(b.nums, a.nums); x != "" && y != "" {
		return conflictNumber, "the proposal says " + x + ", the fact " + y
	}
	as, bs := stems(a), stems(b)
	for _, w := range a.words {
		for _, o := range opposites[w.stem] {
			if bs[o] && !as[o] && !bs[w.stem] {
				return conflictOpposite, "the proposal says " + w.s + ", the fact " + wordWithStem(b, o)
			}
		}
	}
	var onlyA, onlyB []string
	for _, w := range a.words {
		if !bs[w.stem] {
			onlyA = append(onlyA, w.s)
		}
	}
	for _, w := range b.words {
		if !as[w.stem] {
			onlyB = append(onlyB, w.s)
		}
	}
	if len(onlyA) == 1 && len(onlyB) == 1 && len(a.words) >= 3 && isName(onlyA[0]) && isName(onlyB[0]) {
		return conflictSwap, "the proposal says " + onlyA[0] + ", the fact " + onlyB[0]
	}
	return conflictNone, ""
}

// reversed is the word a rules out that b keeps (has, and does not rule
// out), or "".
func reversed(a, b *text) string {
	bs := stems(b)
	for _, r := range a.ruledOut {
		if bs[r] && !slices.Contains(b.ruledOut, r) {
			return wordWithStem(a, r)
		}
	}
	return ""
}

// numberKey is a number without leading zeros: 02:00 is 2:00.
func numberKey(n string) string {
	k := strings.TrimLeft(n, "0")
	if k == "" || k[0] == '.' || k[0] == ':' {
		k = "0" + k
	}
	return k
}

// firstMissing is the first number of xs that ys does not have, or "".
// isName reports whether a word is rare enough to name a tool, a product
// or a setting (PostgreSQL, yarn, Sentry) rather than to be a word of
// ordinary English that a paraphrase swaps for another (builds, uses):
// the built-in word table does not have it, or ranks it past the 5,000
// most frequent words.
func isName(w string) bool {
	r, ok := embed.WordRank(w)
	return !ok || r >= 5000
}

func firstMissing(xs, ys []string) string {
	for _, x := range xs {
		found := false
		for _, y := range ys {
			if numberKey(x) == numberKey(y) {
				found = true
				break
			}
		}
		if !found {
			return x
		}
	}
	return ""
}

func stems(t *text) map[string]bool {
	m := make(map[string]bool, len(t.words))
	for _, w := range t.words {
		m[w.stem] = true
	}
	return m
}

func wordWithStem(t *text, st string) string {
	for _, w := range t.words {
		if w.stem == st {
			return w.s
		}
	}
	return st
}

// opposites pairs words (by stem) whose swap turns a fact into its
// opposite: a short list of the opposites of software work, written by
// hand with the labelled pairs in view (it has every opposite they use).
// A pair of opposites it lacks is a contradiction only when it also
// changes a number or a negation.
var opposites = func() map[string][]string {
	pairs := [][2]string{
		{"tab", "space"}, {"enable", "disable"}, {"enabled", "disabled"}, {"before", "after"},
		{"sync", "async"}, {"synchronous", "asynchronous"}, {"synchronously", "asynchronously"},
		{"increase", "decrease"}, {"allow", "deny"}, {"allow", "forbid"}, {"true", "false"}, {"small", "large"}, {"small", "big"},
		{"include", "exclude"}, {"public", "private"}, {"internal", "external"}, {"min", "max"},
		{"minimum", "maximum"}, {"first", "last"}, {"always", "never"}, {"required", "optional"},
		{"mandatory", "optional"}, {"strict", "lax"}, {"strict", "permissive"}, {"strict", "loose"},
		{"delete", "keep"}, {"deleted", "kept"}, {"add", "remove"}, {"pointer", "value"},
		{"local", "remote"}, {"local", "utc"}, {"static", "dynamic"}, {"mutable", "immutable"},
		{"blocking", "nonblocking"}, {"ascending", "descending"}, {"asc", "desc"}, {"lowest", "highest"},
		{"more", "fewer"}, {"more", "less"}, {"above", "below"}, {"over", "under"}, {"upper", "lower"},
		{"uppercase", "lowercase"}, {"open", "closed"}, {"accept", "reject"}, {"lock", "unlock"},
		{"success", "failure"}, {"pass", "fail"}, {"allowlist", "denylist"},
		{"whitelist", "blacklist"}, {"early", "late"}, {"earlier", "later"}, {"light", "dark"},
		{"horizontal", "vertical"}, {"inside", "outside"},
		{"encrypted", "unencrypted"}, {"signed", "unsigned"}, {"stateful", "stateless"},
		{"sequential", "parallel"}, {"serial", "parallel"}, {"serially", "parallel"},
		{"manual", "automatic"}, {"manually", "automatically"},
		{"inclusive", "exclusive"}, {"lazy", "eager"}, {"lazily", "eagerly"},
		{"ipv4", "ipv6"}, {"http", "https"},
	}
	m := map[string][]string{}
	for _, p := range pairs {
		a, b := stem(p[0]), stem(p[1])
		m[a] = append(m[a], b)
		m[b] = append(m[b], a)
	}
	return m
}()

func round2(f float64) float64 { return float64(int(f*100+0.5)) / 100 }

// sameText reports whether two facts say exactly the same thing, white
// space aside.
func sameText(a, b string) bool { return ids.NormalizeSpace(a) == ids.NormalizeSpace(b) }
