package gitx

import (
	"errors"
	"fmt"
)

// errBadDelta is a delta that does not apply to its base.
var errBadDelta = errors.New("invalid delta")

// applyDelta returns base patched by a git delta (the format of pack
// files: the base's and the result's sizes, then copy and insert
// commands), in one allocation of the result's size. go-git's PatchDelta
// grows its buffer from 64 KiB by doubling, which for a file of megabytes
// copies and zeroes it several times over and keeps up to twice its size.
func applyDelta(base, delta []byte) ([]byte, error) {
	baseSize, delta, err := deltaSize(delta)
	if err != nil {
		return nil, err
	}
	if baseSize != uint64(len(base)) {
		return nil, fmt.Errorf("%w: for a base of %d bytes, not %d", errBadDelta, baseSize, len(base))
	}
	size, delta, err := deltaSize(delta)
	if err != nil {
		return nil, err
	}
	if size > 1<<40 || size > uint64(len(base))+uint64(len(delta))*0x10000 {
		return nil, fmt.Errorf("%w: result of %d bytes", errBadDelta, size)
	}
	out := make([]byte, 0, size)
	for len(delta) > 0 {
		cmd := delta[0]
		delta = delta[1:]
		switch {
		case cmd&0x80 != 0: // copy from the base
			var off, n uint64
			for i := range 4 {
				if cmd&(1<<i) != 0 {
					if len(delta) == 0 {
						return nil, errBadDelta
					}
					off |= uint64(delta[0]) << (8 * i)
					delta = delta[1:]
				}
			}
			for i := range 3 {
				if cmd&(0x10<<i) != 0 {
					if len(delta) == 0 {
						return nil, errBadDelta
					}
					n |= uint64(delta[0]) << (8 * i)
					delta = delta[1:]
				}
			}
			if n == 0 {
				n = 0x10000
			}
			if off+n > uint64(len(base)) || uint64(len(out))+n > size {
				return nil, fmt.Errorf("%w: copy of %d bytes at %d", errBadDelta, n, off)
			}
			out = append(out, base[off:off+n]...)
		case cmd != 0: // insert the next cmd bytes of the delta
			n := int(cmd)
			if n > len(delta) || uint64(len(out)+n) > size {
				return nil, fmt.Errorf("%w: insert of %d bytes", errBadDelta, n)
			}
			out = append(out, delta[:n]...)
			delta = delta[n:]
		default:
			return nil, fmt.Errorf("%w: command 0", errBadDelta)
		}
	}
	if uint64(len(out)) != size {
		return nil, fmt.Errorf("%w: %d bytes made of %d", errBadDelta, len(out), size)
	}
	return out, nil
}

// deltaSize reads a size at the start of a delta (7 bits a byte, least
// significant first) and returns the rest.
func deltaSize(b []byte) (uint64, []byte, error) {
	var n uint64
	for i := 0; i < len(b) && i < 10; i++ {
		n |= uint64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return n, b[i+1:], nil
		}
	}
	return 0, nil, fmt.Errorf("%w: truncated size", errBadDelta)
}
