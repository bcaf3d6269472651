// Package signature turns the text of an error into a signature that stays
// the same when the same failure happens again, on another machine or on
// another day, and differs when the failure differs.
//
// Normalize removes what varies between two occurrences of one failure:
// absolute paths (a file outside the repository keeps the part that names it,
// under site-packages, node_modules, the Go module cache or a Python or Rust
// library; any other keeps its base name), line and column numbers, hex
// addresses, UUIDs, timestamps, durations, other numbers, terminal colours,
// carriage returns, the progress lines of test runners, and all but the top
// frames of a stack. It keeps the error's type, the words of its message and
// the names of the functions and files it came from. Of hashes the result.
//
// Both are pure functions of the text: deterministic, without I/O or state,
// and linear in the length of the text.
//
// What Normalize does is part of memctl's files: run records store
// signatures and playbooks are named by them, so a change to it changes
// the signatures of errors already recorded and belongs in the changelog.
// testdata/*.txtar pins the normalised text of real outputs.
package signature

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// HashLen is the number of hex digits of a signature's hash.
const HashLen = 12

// Signature identifies an error text.
type Signature struct {
	// Hash is the first HashLen hex digits of the SHA-256 of Text: the name
	// run records, playbooks (.ledger/playbooks/<Hash>.md) and evidence use.
	Hash string
	// Text is the normalised error text the hash was computed from.
	Text string
}

// Of returns the signature of an error text.
func Of(text string) Signature {
	n := Normalize(text)
	sum := sha256.Sum256([]byte(n))
	return Signature{Hash: hex.EncodeToString(sum[:HashLen/2]), Text: n}
}

// Normalize returns text without what varies between occurrences of the
// same failure (see the package comment), one line per line kept, without
// blank lines or a final newline. It is "" when nothing is left.
func Normalize(text string) string {
	lines := strings.Split(clean(text), "\n")
	b := make([]byte, 0, len(text))
	prev := -1 // where the last line kept starts in b
	for _, l := range keepLines(lines) {
		start := len(b)
		if start > 0 {
			b = append(b, '\n')
		}
		b = l.appendNormal(b)
		n := b[start:]
		if start > 0 {
			n = n[1:]
		}
		if len(n) == 0 || prev >= 0 && bytes.Equal(n, b[prev:start]) {
			// A blank line says nothing about the failure, and a line
			// repeated (a progress bar redrawn, a retry) no more than once.
			b = b[:start]
			continue
		}
		prev = len(b) - len(n)
	}
	return string(b)
}
