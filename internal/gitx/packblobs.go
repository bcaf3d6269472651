package gitx

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// packBlobs reads the blobs of a history walk from the repository's pack
// files, resolving delta chains with go-git's pack index and scanner,
// patching with applyDelta and keeping what it resolved itself. go-git's own path
// (object.GetBlob, then the blob's reader) is slow for a large file with
// many versions: it hashes every object it resolves to put it in its
// cache (SHA-1 with collision detection, about 10 ms for 6.7 MB), copies
// it four times on the way, and keeps up to 96 MB of them, which under
// memctl's 128 MiB memory limit made the garbage collector run nearly
// without pause. Here a version costs one inflate of its delta and one
// patch of its base, which the walk has usually just read: git packs a
// file's older versions as deltas of its newer ones, and the walk goes
// from newer to older.
//
// An object it cannot find in a pack (loose, in an alternate object
// directory, or a delta whose base is elsewhere) is left to go-git.
type packBlobs struct {
	packs  []*pack
	cache  resolvedCache
	opened bool
	dir    string // the common git directory

	patched int // deltas applied, for tests
}

type pack struct {
	idx  *idxfile.MemoryIndex
	file billy.File
	sc   *packfile.Scanner
}

// errNotInPacks is a blob (or the base of one of its deltas) that no pack
// of the repository holds.
var errNotInPacks = errors.New("not in a pack")

// maxChain bounds a delta chain, against a corrupt pack whose REF deltas
// form a cycle; git's own limit on depth is 4095.
const maxChain = 10000

// open reads the index of every pack in the git directory.
func (p *packBlobs) open() error {
	p.opened = true
	dg := dotgit.New(osfs.New(p.dir))
	hashes, err := dg.ObjectPacks()
	if err != nil {
		return fmt.Errorf("list pack files: %w", err)
	}
	for _, h := range hashes {
		pk, err := openPack(dg, h)
		if err != nil {
			return err
		}
		p.packs = append(p.packs, pk)
	}
	return nil
}

func openPack(dg *dotgit.DotGit, h plumbing.Hash) (*pack, error) {
	f, err := dg.ObjectPackIdx(h)
	if err != nil {
		return nil, fmt.Errorf("open the index of pack %s: %w", h, err)
	}
	defer f.Close()
	idx := idxfile.NewMemoryIndex()
	if err := idxfile.NewDecoder(f).Decode(idx); err != nil {
		return nil, fmt.Errorf("read the index of pack %s: %w", h, err)
	}
	pf, err := dg.ObjectPack(h)
	if err != nil {
		return nil, fmt.Errorf("open pack %s: %w", h, err)
	}
	return &pack{idx: idx, file: pf, sc: packfile.NewScanner(pf)}, nil
}

// close closes the pack files.
func (p *packBlobs) close() error {
	var errs []error
	for _, pk := range p.packs {
		errs = append(errs, pk.file.Close())
	}
	p.packs = nil
	return errors.Join(errs...)
}

// read returns the content of blob h from the packs, shared with the
// cache (not to be modified), or errNotInPacks.
func (p *packBlobs) read(h plumbing.Hash) ([]byte, error) {
	if !p.opened {
		if err := p.open(); err != nil {
			return nil, err
		}
	}
	for i, pk := range p.packs {
		off, err := pk.idx.FindOffset(h)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return p.resolve(i, off)
	}
	return nil, errNotInPacks
}

// resolve returns the object at offset off of pack pi: it follows the
// delta chain down to an object it resolved before or a whole one, then
// patches its way back up, keeping each result in the cache.
func (p *packBlobs) resolve(pi int, off int64) ([]byte, error) {
	pk := p.packs[pi]
	type step struct {
		off   int64
		delta []byte
	}
	var chain []step
	var data []byte
	for {
		if d, ok := p.cache.get(pi, off); ok {
			data = d
			break
		}
		if len(chain) == maxChain {
			return nil, fmt.Errorf("pack object at %d: delta chain longer than %d", off, maxChain)
		}
		hdr, err := pk.sc.SeekObjectHeader(off)
		if err != nil {
			return nil, fmt.Errorf("pack object at %d: %w", off, err)
		}
		var buf bytes.Buffer
		buf.Grow(int(hdr.Length))
		if _, _, err := pk.sc.NextObject(&buf); err != nil {
			return nil, fmt.Errorf("pack object at %d: %w", off, err)
		}
		switch hdr.Type {
		case plumbing.OFSDeltaObject:
			chain = append(chain, step{off, buf.Bytes()})
			off = hdr.OffsetReference
			continue
		case plumbing.REFDeltaObject:
			base, err := pk.idx.FindOffset(hdr.Reference)
			if errors.Is(err, plumbing.ErrObjectNotFound) {
				return nil, errNotInPacks // a base in another pack: go-git's to find
			}
			if err != nil {
				return nil, err
			}
			chain = append(chain, step{off, buf.Bytes()})
			off = base
			continue
		case plumbing.BlobObject:
			data = buf.Bytes()
			p.cache.put(pi, off, data)
		default:
			return nil, fmt.Errorf("pack object at %d: a %s, not a blob", off, hdr.Type)
		}
		break
	}
	for i := len(chain) - 1; i >= 0; i-- {
		next, err := applyDelta(data, chain[i].delta)
		if err != nil {
			return nil, fmt.Errorf("pack object at %d: %w", chain[i].off, err)
		}
		data = next
		p.patched++
		p.cache.put(pi, chain[i].off, data)
	}
	return data, nil
}

// resolvedCache keeps the objects resolved last, by pack and offset, up to
// max bytes but always the last two: the next version the walk reads is
// usually a delta of the one it read last. When git packed it the other
// way round (older versions as bases), each version resolved from the
// base up leaves the ones above it here, so the walk down finds them.
type resolvedCache struct {
	max     int
	size    int
	entries []resolved // most recently used last
}

type resolved struct {
	pack int
	off  int64
	data []byte
}

// defaultResolvedCache is the cache's budget: a few versions of a large
// issues.jsonl (6.7 MB at 10,000 issues), well under the 128 MiB memory
// limit memctl sets for itself.
const defaultResolvedCache = 40 << 20

func (c *resolvedCache) get(pack int, off int64) ([]byte, bool) {
	for i, e := range c.entries {
		if e.pack == pack && e.off == off {
			copy(c.entries[i:], c.entries[i+1:])
			c.entries[len(c.entries)-1] = e
			return e.data, true
		}
	}
	return nil, false
}

func (c *resolvedCache) put(pack int, off int64, data []byte) {
	c.entries = append(c.entries, resolved{pack, off, data})
	c.size += len(data)
	limit := c.max
	if limit == 0 {
		limit = defaultResolvedCache
	}
	for len(c.entries) > 2 && c.size > limit {
		c.size -= len(c.entries[0].data)
		c.entries[0] = resolved{}
		c.entries = c.entries[1:]
	}
}
