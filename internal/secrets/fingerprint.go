package secrets

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"sync"
)

// scanVersion is raised whenever the scanner's own logic changes what it
// finds (which values of a JSON line it reads, how it filters generic
// matches, …): the rules' text is in RulesFingerprint already.
const scanVersion = 1

// RulesFingerprint identifies what Scan and ScanJSONLines find: a hash of
// every rule (gitleaks' and memctl's own, with their allow-lists) and of
// scanVersion. A verdict kept from an earlier scan (check's record of the
// lines it found clean) holds only under the same fingerprint.
var RulesFingerprint = sync.OnceValue(sumRules)

// sumRules hashes the rules written field by field into one buffer, each
// string and list length-prefixed (so that no two rule sets write the same
// bytes): formatting them took as long as hashing a 10,000-issue file, on
// every check that remembers its clean lines.
func sumRules() [32]byte {
	var w fingerprintWriter
	w.uint(scanVersion)
	w.uint(uint64(len(globalAllowlists)))
	for _, a := range globalAllowlists {
		w.allowlist(a)
	}
	for _, set := range [][]rule{rules[:], ownRules[:]} {
		w.uint(uint64(len(set)))
		for _, r := range set {
			w.str(r.id)
			w.str(regexpSource(r.re))
			w.uint(uint64(r.secretGroup))
			w.uint(math.Float64bits(r.entropy))
			w.strs(r.keywords)
			w.bool(r.sameUserPass)
			w.uint(uint64(len(r.allowlists)))
			for _, a := range r.allowlists {
				w.allowlist(a)
			}
		}
	}
	return sha256.Sum256(w.b)
}

type fingerprintWriter struct{ b []byte }

func (w *fingerprintWriter) uint(n uint64) { w.b = binary.AppendUvarint(w.b, n) }

func (w *fingerprintWriter) bool(v bool) {
	if v {
		w.uint(1)
	} else {
		w.uint(0)
	}
}

func (w *fingerprintWriter) str(s string) {
	w.uint(uint64(len(s)))
	w.b = append(w.b, s...)
}

func (w *fingerprintWriter) strs(ss []string) {
	w.uint(uint64(len(ss)))
	for _, s := range ss {
		w.str(s)
	}
}

func (w *fingerprintWriter) allowlist(a allowlist) {
	w.uint(uint64(a.target))
	w.bool(a.and)
	w.str(regexpSource(a.re))
	w.strs(a.stopwords)
}

func regexpSource(l *lazyRegexp) string {
	if l == nil {
		return ""
	}
	return l.src
}
