package secrets

import (
	"crypto/sha256"
	"fmt"
	"hash"
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

func sumRules() [32]byte {
	h := sha256.New()
	fmt.Fprintf(h, "scan %d\n", scanVersion)
	for _, a := range globalAllowlists {
		writeAllowlist(h, a)
	}
	for _, set := range [][]rule{rules[:], ownRules[:]} {
		for _, r := range set {
			fmt.Fprintf(h, "rule %q %q %d %v %q %v\n", r.id, regexpSource(r.re), r.secretGroup, r.entropy, r.keywords, r.sameUserPass)
			for _, a := range r.allowlists {
				writeAllowlist(h, a)
			}
		}
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

func writeAllowlist(h hash.Hash, a allowlist) {
	fmt.Fprintf(h, "allow %d %v %q %q\n", a.target, a.and, regexpSource(a.re), a.stopwords)
}

func regexpSource(l *lazyRegexp) string {
	if l == nil {
		return ""
	}
	return l.src
}
