package prime

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/gitx"
)

// git status is most of prime's time on a tree of thousands of files (a
// process that reads the whole index and scans the working tree), and the
// warnings need its answer only for the files whose base names the runs
// named. So prime keeps that part of the answer, keyed by what git's own
// answer depends on for those files: the index file and HEAD (staged
// changes, commits, checkouts) and each such file of the index, and each
// such untracked file git reported, as it is now (size, times, inode,
// mode). While the key holds, the answer is the one git gave; any change
// asks git again. A new untracked file of such a name, with nothing else
// changed, is seen at the next change.
const changedMagic = "MCPC\x01"

var sha256Format = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?mi)^\s*objectformat\s*=\s*sha256\s*$`)
})

// changedCache answers which files git status reports among those whose
// base names named says the runs named: the answer kept at path when it
// holds, else git's (ask), which it keeps.
func changedCache(ws *config.Workspace, path string, named func(base string) bool, ask func() ([]string, error)) ([]string, error) {
	key, ok := changedKey(ws, named)
	if ok && path != "" {
		if files, sum, kept, good := readChanged(path); good {
			// Trusted only when kept RacyWindow after the newest change of
			// what it stands for, as git treats its own index ("racy git").
			full := answerKey(key, ws, files)
			if sum == sha256.Sum256(full.b) && fsx.Settled(kept, full.newest) {
				return files, nil
			}
		}
	}
	files, err := ask()
	if err != nil {
		return nil, err
	}
	var kept []string
	for _, f := range files {
		if named(pathBase(f)) {
			kept = append(kept, f)
		}
	}
	if ok && path != "" {
		// The key was taken before git ran: a change while it ran leaves
		// the key stale, and the next prime asks git again.
		if os.MkdirAll(filepath.Dir(path), 0o755) == nil {
			_ = fsx.WriteDerived(path, encodeChanged(sha256.Sum256(answerKey(key, ws, kept).b), kept))
		}
	}
	return kept, nil
}

// changedKey is what git's answer for the named files depends on, but
// for the untracked ones (answerSum adds the answer's files). ok is false
// when the index cannot be read as memctl reads it: git is asked, and
// nothing kept.
func changedKey(ws *config.Workspace, named func(string) bool) (changeKey, bool) {
	oid := 20
	if cfg, err := os.ReadFile(filepath.Join(ws.Repo.CommonDir, "config")); err == nil && sha256Format().Match(cfg) {
		oid = 32
	}
	gitDir := ws.Repo.GitDir
	// The index is stamped before it is read, so that a write while it is
	// read leaves the key stale rather than the answer wrong.
	var k changeKey
	k.stat(filepath.Join(gitDir, "index"))
	index, err := fsx.ReadMapped(filepath.Join(gitDir, "index"))
	if err != nil {
		return k, false
	}
	var paths []string // the entries of the names the runs named
	err = gitx.EachIndexPath(index, oid, func(p []byte) {
		if bytes.HasPrefix(p, []byte(config.LedgerDir+"/")) || bytes.HasPrefix(p, []byte(config.BeadsDir+"/")) {
			return // memctl's own files: most of the index, in a workspace of many runs
		}
		if named(string(p[bytes.LastIndexByte(p, '/')+1:])) {
			paths = append(paths, string(p))
		}
	})
	if err != nil {
		return k, false
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return k, false
	}
	k.str(string(head))
	if ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: "); ok {
		k.stat(filepath.Join(ws.Repo.CommonDir, filepath.FromSlash(ref)))
		k.stat(filepath.Join(ws.Repo.CommonDir, "packed-refs"))
	}
	for _, p := range paths {
		k.str(p)
		k.stat(filepath.Join(ws.Root, filepath.FromSlash(p)))
	}
	return k, true
}

// answerKey is key and the answer's files as they are now (those git
// reported untracked are in no index entry of the key).
func answerKey(key changeKey, ws *config.Workspace, files []string) changeKey {
	k := changeKey{b: append([]byte{}, key.b...), newest: key.newest}
	for _, f := range files {
		k.str("?" + f)
		k.stat(filepath.Join(ws.Root, filepath.FromSlash(f)))
	}
	return k
}

// changeKey is a key being built, and the newest time of the files in it.
type changeKey struct {
	b      []byte
	newest int64
}

// stat adds what a file is now: absent, or its size, modification and
// change times (a chmod moves the latter) and inode.
func (k *changeKey) stat(p string) {
	st, err := fsx.StatStamp(p)
	if err != nil {
		k.b = binary.AppendVarint(k.b, -1)
		return
	}
	k.b = binary.AppendVarint(k.b, st.Size)
	k.b = binary.AppendVarint(k.b, st.ModTime)
	k.b = binary.AppendVarint(k.b, st.ChangeTime)
	k.b = binary.AppendUvarint(k.b, st.Ino)
	k.newest = max(k.newest, st.Newest())
}

func (k *changeKey) str(s string) { k.b = appendString(k.b, s) }

func pathBase(p string) string { return path.Base(filepath.ToSlash(p)) }

// encodeChanged is the kept answer: its hash, then the files.
func encodeChanged(sum [sha256.Size]byte, files []string) []byte {
	b := append([]byte(changedMagic), sum[:]...)
	b = binary.AppendUvarint(b, uint64(len(files)))
	for _, f := range files {
		b = appendString(b, f)
	}
	return b
}

// readChanged reads the kept answer at path, and when it was written
// (Unix nanoseconds).
func readChanged(path string) (files []string, sum [sha256.Size]byte, kept int64, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, sum, 0, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, sum, 0, false
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, sum, 0, false
	}
	files, sum, ok = decodeChanged(data)
	return files, sum, fi.ModTime().UnixNano(), ok
}

func decodeChanged(data []byte) (files []string, sum [sha256.Size]byte, ok bool) {
	if !bytes.HasPrefix(data, []byte(changedMagic)) || len(data) < len(changedMagic)+sha256.Size {
		return nil, sum, false
	}
	copy(sum[:], data[len(changedMagic):])
	d := decoder{b: data[len(changedMagic)+sha256.Size:]}
	n := d.count()
	for ; n > 0 && !d.bad; n-- {
		files = append(files, d.str())
	}
	return files, sum, !d.bad && len(d.b) == 0
}
