// Package ids derives memctl's short identifiers from content. Every
// function is pure: the same input gives the same id on every run and
// machine, which is what lets two clones agree on ids without talking.
package ids

import (
	"crypto/sha256"
	"math/big"
	"strings"
	"unicode"
	"unicode/utf8"
)

// FactIDLen is the number of base36 digits in a derived fact id. Seven
// digits give 36^7 ≈ 7.8e10 values: a ledger of 1,000 facts has a collision
// chance of about 6 in a million, and `memctl check` reports one if it happens.
const FactIDLen = 7

// FactPrefix starts every derived fact id, so fact ids never look like task
// ids (which start with the task prefix) or proposal ids.
const FactPrefix = "f-"

// Fact returns the derived id of a fact: a hash of its category and its text
// with white space normalised, so re-wrapping a fact keeps its id while any
// change of words gives a new one.
func Fact(category, text string) string {
	h := sha256.New()
	h.Write([]byte(category))
	h.Write([]byte{0})
	h.Write([]byte(NormalizeSpace(text)))
	return FactPrefix + Base36(h.Sum(nil), FactIDLen)
}

// Base36 encodes data as a big-endian number in base 36 and keeps the n
// least significant digits, left-padded with zeros. This is the encoding
// Beads uses for its hash ids.
func Base36(data []byte, n int) string {
	if n <= 10 {
		// The n low digits are the number mod 36^n, which fits a uint64
		// together with one more byte for n ≤ 10: no big.Int needed.
		mod := uint64(1)
		for range n {
			mod *= 36
		}
		var r uint64
		for _, b := range data {
			r = (r<<8 | uint64(b)) % mod
		}
		buf := make([]byte, n)
		for i := n - 1; i >= 0; i-- {
			buf[i] = digits[r%36]
			r /= 36
		}
		return string(buf)
	}
	s := new(big.Int).SetBytes(data).Text(36)
	if len(s) < n {
		return strings.Repeat("0", n-len(s)) + s
	}
	return s[len(s)-n:]
}

const digits = "0123456789abcdefghijklmnopqrstuvwxyz"

// NormalizeSpace trims s and folds every run of white space to one space.
func NormalizeSpace(s string) string {
	b := make([]byte, 0, len(s))
	space := false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			if c == ' ' || (c >= '\t' && c <= '\r') {
				space = len(b) > 0
				continue
			}
			if space {
				b = append(b, ' ')
				space = false
			}
			b = append(b, c)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			space = len(b) > 0
		} else {
			if space {
				b = append(b, ' ')
				space = false
			}
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return string(b)
}

// Valid reports whether s can be used as an explicit id: 1 to 64 ASCII
// letters, digits, '.', '_' or '-', starting with a letter or digit.
func Valid(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}
