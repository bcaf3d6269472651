package proposal

import (
	"sort"
	"strings"
	"unicode"

	"github.com/memctl/memctl/internal/ids"
	"github.com/memctl/memctl/internal/ledger"
)

// Matcher finds existing facts that a proposed text resembles. The
// lexical matcher below is the built-in; the recall index provides a
// hybrid one through the same interface.
type Matcher interface {
	Similar(category, text string, facts []ledger.Fact) []Similar
}

// Thresholds of the lexical matcher.
const (
	nearDuplicate = 0.6 // word-set Jaccard similarity
	contradiction = 0.4 // with a negation on one side only
	maxSimilar    = 5
)

// Lexical compares word sets: a high overlap is a near-duplicate, a
// moderate overlap where one side negates (not, never, avoid, …) and the
// other does not is a possible contradiction.
type Lexical struct{}

var negations = map[string]bool{
	"not": true, "never": true, "no": true, "don't": true, "dont": true, "avoid": true, "cannot": true,
	"can't": true, "mustn't": true, "shouldn't": true, "without": true, "nor": true, "forbidden": true,
	"disallow": true, "stop": true,
}

var stopwords = map[string]bool{
	"the": true, "a": true, "an": true, "is": true, "are": true, "to": true, "of": true, "in": true,
	"and": true, "or": true, "it": true, "on": true, "for": true, "be": true, "with": true, "that": true,
	"this": true, "as": true, "at": true, "by": true, "we": true, "use": true, "must": true, "should": true,
}

// Similar returns up to five facts of the category, most similar first.
func (Lexical) Similar(category, text string, facts []ledger.Fact) []Similar {
	var out []Similar
	for _, f := range facts {
		if f.Category != category {
			continue
		}
		if s, ok := Judge(text, f, -1); ok {
			out = append(out, s)
		}
	}
	return Top(out)
}

// Thresholds on a semantic similarity (a cosine from recall's embedder),
// used beside the lexical ones when a matcher has it.
const (
	semanticDuplicate     = 0.85
	semanticContradiction = 0.7
)

// Judge decides how an existing fact relates to a proposed text: a
// near-duplicate (high word overlap, or a cosine of at least .85), a
// possible contradiction (one side negates and the overlap is moderate, or
// the cosine at least .7), or neither (ok false). cosine < 0 means no
// semantic similarity is known. The score is the higher of the two
// similarities.
func Judge(text string, f ledger.Fact, cosine float64) (Similar, bool) {
	a, negA := words(text)
	b, negB := words(f.Text)
	score := jaccard(a, b)
	sem := cosine >= 0
	best := max(score, cosine)
	s := Similar{FactID: f.ID, Category: f.Category, Text: f.Text, Score: round2(best)}
	switch {
	case negA != negB && (score >= contradiction || sem && cosine >= semanticContradiction):
		s.Relation = "possible-contradiction"
	case score >= nearDuplicate || sem && cosine >= semanticDuplicate:
		s.Relation = "near-duplicate"
	default:
		return Similar{}, false
	}
	return s, true
}

// Top orders similar facts most similar first and keeps five.
func Top(out []Similar) []Similar {
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	if len(out) > maxSimilar {
		out = out[:maxSimilar]
	}
	return out
}

// words returns the content words of s and whether it negates.
func words(s string) (map[string]bool, bool) {
	set := map[string]bool{}
	neg := false
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '_' && r != '.'
	}) {
		w = strings.Trim(w, "'.")
		if negations[w] || strings.HasSuffix(w, "n't") {
			neg = true
			continue
		}
		if w != "" && !stopwords[w] {
			set[w] = true
		}
	}
	return set, neg
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

func round2(f float64) float64 { return float64(int(f*100+0.5)) / 100 }

// sameText reports whether two facts say exactly the same thing, white
// space aside.
func sameText(a, b string) bool { return ids.NormalizeSpace(a) == ids.NormalizeSpace(b) }
