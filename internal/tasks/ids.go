package tasks

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/ids"
)

// Hash-id parameters, as bd's defaults (BEADS.md §4).
const (
	minHashLen       = 3
	maxHashLen       = 8
	maxCollisionProb = 0.25
	maxChildDepth    = 3 // dots in a child id
)

// ErrIDSpace is returned when no free id could be found.
var ErrIDSpace = errors.New("could not find a free issue id")

// hashLen is the smallest id length whose birthday collision probability
// for n existing top-level ids is at most 25 %.
func hashLen(n int) int {
	for l := minHashLen; l <= maxHashLen; l++ {
		space := math.Pow(36, float64(l))
		if 1-math.Exp(-float64(n)*float64(n)/(2*space)) <= maxCollisionProb {
			return l
		}
	}
	return maxHashLen
}

// hashBytes is how many hash bytes bd encodes for an id length.
func hashBytes(l int) int {
	switch {
	case l <= 3:
		return 2
	case l == 4:
		return 3
	case l <= 6:
		return 4
	default:
		return 5
	}
}

// hashID is bd's id for one nonce: sha256 of
// "title|description|actor|created_unix_nanos|nonce", base36.
func hashID(prefix, title, desc, actor string, created time.Time, nonce, l int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s|%s|%s|%d|%d", title, desc, actor, created.UnixNano(), nonce))
	return prefix + "-" + ids.Base36(sum[:hashBytes(l)], l)
}

// newID mints a top-level id that no record uses: nonces 0–9 at the
// adaptive length, then longer ids up to 8 characters.
func (s *Store) newID(prefix, title, desc, actor string, created time.Time) (string, error) {
	top := 0
	s.eachID(func(id string) {
		if strings.HasPrefix(id, prefix+"-") && !strings.Contains(id[len(prefix)+1:], ".") {
			top++
		}
	})
	for l := hashLen(top); l <= maxHashLen; l++ {
		for nonce := range 10 {
			id := hashID(prefix, title, desc, actor, created, nonce, l)
			if !s.exists(id) {
				return id, nil
			}
		}
	}
	return "", ErrIDSpace
}

// childID returns the next child id of parent: <parent>.<n> with n one
// above the highest child number in use.
func (s *Store) childID(parent string) (string, error) {
	if strings.Count(parent, ".") >= maxChildDepth {
		return "", fmt.Errorf("issue %q is already %d levels deep; bd allows at most %d", parent, maxChildDepth, maxChildDepth)
	}
	next := 1
	s.eachID(func(id string) {
		rest, ok := strings.CutPrefix(id, parent+".")
		if !ok || strings.Contains(rest, ".") {
			return
		}
		if n, err := strconv.Atoi(rest); err == nil && n >= next {
			next = n + 1
		}
	})
	return parent + "." + strconv.Itoa(next), nil
}
