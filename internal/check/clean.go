package check

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/secrets"
)

// cleanLines is what check remembers between runs of the lines of
// .beads/issues.jsonl it found clean (no secret, no control character), so
// that a check after a change scans only the lines that changed. It lives
// under the git directory, is never committed, and holds only under the
// scanner's fingerprint (secrets.RulesFingerprint): another memctl with
// other rules scans everything again.
//
// A line is known by a 64-bit key: its CRC-32C and its CRC-32 (IEEE),
// mixed with its length. The file is an open-addressing table of keys
// (0: empty), at most half full, looked up where it is read.
//
// Format (little endian): "MCCL", u32 version, the 32-byte fingerprint,
// u32 keys, u32 slots (a power of two), then the slots as u64.
type cleanLines struct {
	slots []byte
	mask  uint64
	keys  int
}

const (
	cleanMagic   = "MCCL"
	cleanVersion = 1
	cleanHeader  = 4 + 4 + 32 + 4 + 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// lineKey is the key of one line (without its newline).
func lineKey(line string) uint64 {
	b := unsafe.Slice(unsafe.StringData(line), len(line)) // only read
	k := uint64(crc32.Checksum(b, castagnoli))<<32 | uint64(crc32.ChecksumIEEE(b))
	k ^= uint64(len(line)) * 0x9E3779B97F4A7C15
	if k == 0 {
		k = 1
	}
	return k
}

// loadCleanLines reads the table at path; nil when there is none, it is
// damaged, or another scanner wrote it.
func loadCleanLines(path string) *cleanLines {
	data, err := fsx.ReadMapped(path)
	if err != nil || len(data) < cleanHeader || string(data[:4]) != cleanMagic ||
		binary.LittleEndian.Uint32(data[4:]) != cleanVersion {
		return nil
	}
	fp := secrets.RulesFingerprint()
	if !bytes.Equal(data[8:40], fp[:]) {
		return nil
	}
	keys, n := binary.LittleEndian.Uint32(data[40:]), binary.LittleEndian.Uint32(data[44:])
	if n == 0 || n&(n-1) != 0 || uint64(keys) >= uint64(n) || uint64(len(data)) != cleanHeader+8*uint64(n) {
		return nil
	}
	return &cleanLines{slots: data[cleanHeader:], mask: uint64(n - 1), keys: int(keys)}
}

// has reports whether the table holds key.
func (c *cleanLines) has(key uint64) bool {
	if c == nil {
		return false
	}
	// At most every slot once: a damaged table with no empty slot must
	// not loop (a line not found is only scanned).
	i := key & c.mask
	for range c.mask + 1 {
		switch binary.LittleEndian.Uint64(c.slots[i*8:]) {
		case key:
			return true
		case 0:
			return false
		}
		i = (i + 1) & c.mask
	}
	return false
}

// saveCleanLines writes a table of keys to path, atomically; failure
// only costs the next check its speed.
func saveCleanLines(path string, keys []uint64) {
	n := uint64(1)
	for n < 2*uint64(len(keys))+2 {
		n <<= 1
	}
	buf := make([]byte, cleanHeader+8*n)
	copy(buf, cleanMagic)
	binary.LittleEndian.PutUint32(buf[4:], cleanVersion)
	fp := secrets.RulesFingerprint()
	copy(buf[8:], fp[:])
	binary.LittleEndian.PutUint32(buf[40:], uint32(len(keys)))
	binary.LittleEndian.PutUint32(buf[44:], uint32(n))
	slots := buf[cleanHeader:]
	for _, k := range keys {
		for i := k & (n - 1); ; i = (i + 1) & (n - 1) {
			cur := binary.LittleEndian.Uint64(slots[i*8:])
			if cur == k {
				break
			}
			if cur == 0 {
				binary.LittleEndian.PutUint64(slots[i*8:], k)
				break
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	_ = fsx.WriteDerived(path, buf)
}
