package runs

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"path"
	"slices"
	"strings"
	"unicode"
)

// Kinds of pattern that recur across runs.
const (
	PatternGotcha = "gotcha" // the same gotcha in the digests of several runs
	PatternError  = "error"  // the same error signature in several runs
	PatternFile   = "file"   // the same file failing in several runs
)

// MinRecurrence is how many runs a pattern must appear in before it is
// worth a proposal: twice may be chance, three times is a habit.
const MinRecurrence = 3

// Pattern is something that recurs across runs.
type Pattern struct {
	Kind string
	// Key names the pattern for good, whatever runs are added later:
	// gotcha:<12 hex digits of the normalised text's SHA-256>,
	// error:<signature>, file:<path>.
	Key string
	// Text is the gotcha as the earliest run wrote it, the error's excerpt
	// (the newest run's) or the file's path.
	Text string
	// Signature is an error pattern's signature.
	Signature string
	// Runs are the run ids the pattern appears in, oldest first.
	Runs []string
	// Fix is, for an error pattern, a later successful run that touched
	// the files of a failed run with the signature; nil when none did.
	Fix *Fix
}

// Fix is an error that a run failed with and a later successful run,
// touching the same files, fixed: the makings of a candidate playbook.
type Fix struct {
	Signature string
	// Excerpt is the newest failed run's excerpt of the error.
	Excerpt string
	// Failed are the failed runs with the signature that share a file
	// with Fixed, oldest first.
	Failed []string
	Fixed  *Record
}

// Key names the candidate playbook of f: fix:<signature>:<fixed run id>,
// filed once whatever runs are added later.
func (f *Fix) Key() string { return "fix:" + f.Signature + ":" + f.Fixed.RunID }

// NormalizeGotcha is the form in which two gotchas count as the same:
// lower case, every run of characters other than letters and digits one
// space, trimmed. "Fixture needs TZ=UTC!" and "fixture needs tz utc" are
// the same gotcha; reworded ones are not.
func NormalizeGotcha(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}

// GotchaKey is the pattern key of a gotcha ("" for one with no letters
// or digits).
func GotchaKey(s string) string {
	n := NormalizeGotcha(s)
	if n == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(n))
	return PatternGotcha + ":" + hex.EncodeToString(sum[:])[:12]
}

// Patterns finds what recurs in at least min runs of entries: the same
// gotcha (NormalizeGotcha), the same error signature, the same file
// failing (named by an error of the run, or changed by a run that
// failed). They come gotchas first, then errors, then files, each by key.
func Patterns(entries []Entry, min int) []Pattern {
	recs := oldestFirst(entries)
	type seen struct {
		p     Pattern
		runs  map[string]bool
		order int
	}
	found := map[string]*seen{}
	add := func(key string, r *Record, fill func(p *Pattern, first bool)) {
		s := found[key]
		if s == nil {
			s = &seen{runs: map[string]bool{}, order: len(found)}
			found[key] = s
			fill(&s.p, true)
		} else {
			fill(&s.p, false)
		}
		if !s.runs[r.RunID] {
			s.runs[r.RunID] = true
			s.p.Runs = append(s.p.Runs, r.RunID)
		}
	}
	for _, r := range recs {
		for _, g := range r.Digest.Gotchas {
			if key := GotchaKey(g); key != "" {
				add(key, r, func(p *Pattern, first bool) {
					if first {
						*p = Pattern{Kind: PatternGotcha, Key: key, Text: strings.TrimSpace(g)}
					}
				})
			}
		}
		for _, e := range r.Errors {
			if e.Signature == "" {
				continue
			}
			add(PatternError+":"+e.Signature, r, func(p *Pattern, first bool) {
				if first {
					*p = Pattern{Kind: PatternError, Key: PatternError + ":" + e.Signature, Signature: e.Signature}
				}
				p.Text = cmp.Or(strings.TrimSpace(e.Excerpt), p.Text) // the newest run's
			})
		}
		for _, f := range failingFiles(r) {
			add(PatternFile+":"+f, r, func(p *Pattern, first bool) {
				if first {
					*p = Pattern{Kind: PatternFile, Key: PatternFile + ":" + f, Text: f}
				}
			})
		}
	}
	var out []Pattern
	for _, s := range found {
		if len(s.p.Runs) < min {
			continue
		}
		p := s.p
		if p.Kind == PatternError {
			p.Fix = firstFix(p.Signature, recs)
		}
		out = append(out, p)
	}
	rank := map[string]int{PatternGotcha: 0, PatternError: 1, PatternFile: 2}
	slices.SortFunc(out, func(a, b Pattern) int {
		return cmp.Or(cmp.Compare(rank[a.Kind], rank[b.Kind]), strings.Compare(a.Key, b.Key))
	})
	return out
}

// FixesFor finds the candidate playbooks that recording r makes: when r
// succeeded, one per signature of the earlier failed runs that share a
// file with it; when r failed, one per signature of r that a later
// successful run sharing a file with it fixed (the earliest such run).
// entries are the other runs (r itself is skipped); only those sharing a
// file with r are looked at. Fixes come by signature.
func FixesFor(r *Record, entries []Entry) []Fix {
	var out []Fix
	switch r.StatusOrUnknown() {
	case StatusSuccess:
		out = fixedBy(r, oldestFirst(entries), "")
	case StatusFailure:
		for _, s := range oldestFirst(entries) {
			if s.RunID != r.RunID && s.StatusOrUnknown() == StatusSuccess {
				if out = fixedBy(s, []*Record{r}, ""); len(out) > 0 {
					break
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b Fix) int { return strings.Compare(a.Signature, b.Signature) })
	return out
}

// firstFix is the fix of sig by the earliest successful run, among recs
// (oldest first), that follows a failed run with the signature and shares
// a file with it; nil when none does.
func firstFix(sig string, recs []*Record) *Fix {
	for _, s := range recs {
		if s.StatusOrUnknown() == StatusSuccess {
			if fx := fixedBy(s, recs, sig); len(fx) > 0 {
				return &fx[0]
			}
		}
	}
	return nil
}

// fixedBy is what the successful run r fixed: one Fix per signature (only
// sig, when given) of the failed runs among recs (oldest first) that ran
// before r and share a file with what r changed, by signature.
func fixedBy(r *Record, recs []*Record, sig string) []Fix {
	touched := r.filesChanged()
	if len(touched) == 0 {
		return nil
	}
	var out []Fix
	for _, f := range recs {
		if f.RunID == r.RunID || f.StatusOrUnknown() != StatusFailure || !before(f, r) || !shares(f.filesTouched(), touched) {
			continue
		}
		for _, e := range f.Errors {
			if e.Signature == "" || sig != "" && e.Signature != sig {
				continue
			}
			i := slices.IndexFunc(out, func(x Fix) bool { return x.Signature == e.Signature })
			if i < 0 {
				out = append(out, Fix{Signature: e.Signature, Fixed: r})
				i = len(out) - 1
			}
			if !slices.Contains(out[i].Failed, f.RunID) {
				out[i].Failed = append(out[i].Failed, f.RunID)
			}
			out[i].Excerpt = cmp.Or(strings.TrimSpace(e.Excerpt), out[i].Excerpt) // the newest failed run's
		}
	}
	return out
}

// oldestFirst is the records of entries, oldest first (by started_at,
// else ended_at; then run id).
func oldestFirst(entries []Entry) []*Record {
	out := make([]*Record, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Record)
	}
	slices.SortFunc(out, func(a, b *Record) int {
		return cmp.Or(a.SortTime().Compare(b.SortTime()), strings.Compare(a.RunID, b.RunID))
	})
	return out
}

// before reports whether a ran before b; runs with no time are never
// before or after anything.
func before(a, b *Record) bool {
	ta, tb := a.SortTime(), b.SortTime()
	return !ta.IsZero() && !tb.IsZero() && ta.Before(tb)
}

// failingFiles are the files r failed on: those its errors name, and,
// when it failed, those it changed.
func failingFiles(r *Record) []string {
	var out []string
	for _, e := range r.Errors {
		if f := cleanPath(e.File); f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	if r.StatusOrUnknown() == StatusFailure {
		for _, f := range r.filesChanged() {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// filesChanged is r's files_changed, cleaned.
func (r *Record) filesChanged() []string {
	var out []string
	for _, f := range r.FilesChanged {
		if f = cleanPath(f); f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// filesTouched is the files r changed or its errors name.
func (r *Record) filesTouched() []string {
	out := r.filesChanged()
	for _, e := range r.Errors {
		if f := cleanPath(e.File); f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

func shares(a, b []string) bool {
	return slices.ContainsFunc(a, func(f string) bool { return slices.Contains(b, f) })
}

// cleanPath is a recorded path in one spelling: slash-separated, without
// ./ or a trailing slash ("" for none).
func cleanPath(p string) string {
	p = strings.TrimSpace(strings.ReplaceAll(p, "\\", "/"))
	if p == "" {
		return ""
	}
	return path.Clean(p)
}
