package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2"
)

// verifySegments checks every segment of the Bleve index in dir against
// the CRC-32 in its footer (zap's, over all the bytes before it). Bleve
// itself trusts a segment it finds: one damaged in the middle answers
// queries wrongly instead of failing. The segments are read once per
// Open: the word index of 10,000 tasks is 2.3 MB, well under a
// millisecond of CRC (recall took 0.10-0.13 s with and without it).
func verifySegments(dir string) error {
	store := filepath.Join(dir, "store")
	names, err := filepath.Glob(filepath.Join(store, "*.zap"))
	if err != nil {
		return err
	}
	buf := make([]byte, 64<<10)
	for _, name := range names {
		if err := verifySegment(name, buf); err != nil {
			return err
		}
	}
	return nil
}

func verifySegment(path string, buf []byte) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() < 4 {
		return fmt.Errorf("word index segment %s is cut short (%d bytes)", path, fi.Size())
	}
	h := crc32.NewIEEE()
	if _, err := io.CopyBuffer(h, io.LimitReader(f, fi.Size()-4), buf); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	var sum [4]byte
	if _, err := io.ReadFull(f, sum[:]); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if binary.BigEndian.Uint32(sum[:]) != h.Sum32() {
		return fmt.Errorf("word index segment %s is damaged (its checksum does not match)", path)
	}
	return nil
}

// bleveOpenMu serialises openBleve's capture of the standard logger.
var bleveOpenMu sync.Mutex

// bleveLostSnapshot are the starts of the lines Bleve logs, and goes on,
// when it cannot load what its index file lists: it opens an older
// snapshot, or none, as if nothing were wrong.
var bleveLostSnapshot = []string{"unable to load snapshot", "snapshot key, but bucket missing", "unable to parse segment epoch"}

// openBleve opens the Bleve index at path and fails if Bleve had to skip
// part of it. Bleve says so only on the standard logger, as a line of its
// own on stderr beside memctl's notice, so the logger is captured while it
// opens (other lines are passed on).
func openBleve(path string) (bleve.Index, error) {
	bleveOpenMu.Lock()
	defer bleveOpenMu.Unlock()
	var logged bytes.Buffer
	prev, flags, prefix := log.Writer(), log.Flags(), log.Prefix()
	log.SetOutput(&logged)
	log.SetFlags(0)
	log.SetPrefix("")
	bm, err := bleve.Open(path)
	log.SetOutput(prev)
	log.SetFlags(flags)
	log.SetPrefix(prefix)
	var lost error
	for line := range strings.Lines(logged.String()) {
		line = strings.TrimSpace(line)
		skipped := false
		for _, p := range bleveLostSnapshot {
			skipped = skipped || strings.HasPrefix(line, p)
		}
		switch {
		case !skipped:
			log.Print(line)
		case lost == nil:
			lost = errors.New(line)
		}
	}
	if lost != nil {
		// The first cause, not what followed from it (Bleve goes on to
		// complain of its mapping, say).
		if err == nil {
			bm.Close()
		}
		return nil, lost
	}
	if err != nil {
		return nil, err
	}
	return bm, nil
}
