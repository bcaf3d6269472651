package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/memctl/memctl/internal/fsx"
)

// cacheVersion is the format of the log cache and the meaning of its
// entries. Bump it whenever diffFile names a change differently, so that
// caches written by an older memctl are read as empty.
//
//	1: first version
//	2: secrets redacted in the text; facts as ledger.Parse reads them
//	   since an item holding only empty lists is no fact
const cacheVersion = 2

// cache keeps the entries of commits already compared, by commit hash. A
// commit's entries depend only on its tree and its first parent's, so they
// never go stale; the cache lives in the git directory (CachePath), is
// derived, and can be deleted at any time. A second log of a long history
// then reads no blobs for the commits the first one compared.
type cache struct {
	path    string
	commits map[string][]cacheEntry
	dirty   bool
}

type cacheEntry struct {
	File    string   `json:"f"`
	Kind    string   `json:"k"`
	ID      string   `json:"i,omitempty"`
	Action  string   `json:"a"`
	Details []string `json:"d,omitempty"`
	Text    string   `json:"t,omitempty"`
	Related []string `json:"r,omitempty"`
}

type cacheLine struct {
	Version int          `json:"v,omitempty"`
	Commit  string       `json:"c,omitempty"`
	Entries []cacheEntry `json:"e,omitempty"`
}

// CachePath is where the log cache of the repository whose common git
// directory is commonDir lives.
func CachePath(commonDir string) string {
	return filepath.Join(commonDir, "memctl", "log.cache")
}

// loadCache reads the cache at path. A missing, unreadable or older
// cache is an empty one, rewritten when the log compares a commit.
func loadCache(path string) *cache {
	c := &cache{path: path, commits: map[string][]cacheEntry{}}
	data, err := os.ReadFile(path)
	if err != nil {
		return c
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	first := true
	for sc.Scan() {
		var l cacheLine
		if json.Unmarshal(sc.Bytes(), &l) != nil || (first && l.Version != cacheVersion) {
			return &cache{path: path, commits: map[string][]cacheEntry{}}
		}
		if !first {
			c.commits[l.Commit] = l.Entries
		}
		first = false
	}
	return c
}

// get returns the entries of commit, and whether the cache has it.
func (c *cache) get(commit string) ([]Entry, bool) {
	ces, ok := c.commits[commit]
	if !ok {
		return nil, false
	}
	out := make([]Entry, len(ces))
	for i, ce := range ces {
		out[i] = Entry{File: ce.File, Kind: ce.Kind, ID: ce.ID, Action: ce.Action, Details: ce.Details, Text: ce.Text, Related: ce.Related}
	}
	return out, true
}

// put keeps the entries of a commit compared over every path Log follows.
func (c *cache) put(commit string, entries []Entry) {
	ces := make([]cacheEntry, len(entries))
	for i, e := range entries {
		ces[i] = cacheEntry{File: e.File, Kind: e.Kind, ID: e.ID, Action: e.Action, Details: e.Details, Text: e.Text, Related: e.Related}
	}
	c.commits[commit] = ces
	c.dirty = true
}

// save writes the cache when it gained commits. It is only a cache: a git
// directory memctl cannot write to leaves it as it was.
func (c *cache) save() {
	if !c.dirty {
		return
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return
	}
	_ = fsx.WriteFileFunc(c.path, 0o644, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(cacheLine{Version: cacheVersion}); err != nil {
			return err
		}
		for _, commit := range slices.Sorted(maps.Keys(c.commits)) {
			if err := enc.Encode(cacheLine{Commit: commit, Entries: c.commits[commit]}); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
}
