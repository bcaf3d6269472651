// Package archive writes and restores a workspace's memctl files: a
// tar.gz archive led by a manifest of every file's size, mode and SHA-256
// (Export, Import), a JSON Lines export of every record for other tools
// (WriteJSONL), and the import of a Beads repository's issues into
// .beads/issues.jsonl (FromBeads). It never prints and never reads the
// clock: the front-end passes the time an export is made.
package archive

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"
)

// The archive format.
const (
	// ManifestName is the archive's first entry.
	ManifestName = "manifest.json"
	// Format names the archive in its manifest.
	Format = "memctl-export"
	// FormatVersion is the version of the archive format this memctl
	// writes and the newest it reads. Bump it (with a comment) when an
	// older memctl could no longer restore what a newer one writes.
	FormatVersion = 1
)

// Manifest describes an archive: who made it, when, and every file in it.
type Manifest struct {
	FormatVersion int
	MemctlVersion string
	Created       time.Time
	Files         []Entry
}

// Entry is one file of an archive.
type Entry struct {
	Path   string // relative to the workspace root, slash-separated
	Kind   string
	Size   int64
	SHA256 string // lower-case hex
	Mode   fs.FileMode
}

// manifestJSON is the manifest file's format (documented in docs/json.md).
type manifestJSON struct {
	Format        string      `json:"format"`
	FormatVersion int         `json:"format_version"`
	MemctlVersion string      `json:"memctl_version"`
	CreatedAt     string      `json:"created_at"`
	Files         []entryJSON `json:"files"`
}

type entryJSON struct {
	Path   string `json:"path"`
	Kind   string `json:"kind"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	Mode   string `json:"mode"`
}

func encodeManifest(m *Manifest) []byte {
	out := manifestJSON{Format: Format, FormatVersion: m.FormatVersion, MemctlVersion: m.MemctlVersion,
		CreatedAt: m.Created.UTC().Format(time.RFC3339), Files: make([]entryJSON, len(m.Files))}
	for i, e := range m.Files {
		out.Files[i] = entryJSON{Path: e.Path, Kind: e.Kind, Size: e.Size, SHA256: e.SHA256, Mode: fmt.Sprintf("%04o", e.Mode.Perm())}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		panic(fmt.Sprintf("archive: encode manifest: %v", err)) // strings and numbers only
	}
	return b.Bytes()
}

// decodeManifest reads and checks a manifest: its format and version,
// and that every entry names a memctl file once, with a size within lim,
// a SHA-256 and a mode.
func decodeManifest(data []byte, lim Limits) (*Manifest, error) {
	var in manifestJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&in); err != nil {
		return nil, &FormatError{Entry: ManifestName, Message: "not a manifest: " + err.Error()}
	}
	bad := func(format string, args ...any) error {
		return &FormatError{Entry: ManifestName, Message: fmt.Sprintf(format, args...)}
	}
	switch {
	case in.Format != Format:
		return nil, bad("format %q is not %q: not a memctl export", in.Format, Format)
	case in.FormatVersion < 1:
		return nil, bad("format_version %d: want 1 or more", in.FormatVersion)
	case in.FormatVersion > FormatVersion:
		return nil, bad("format_version %d is newer than this memctl reads (%d): restore it with a newer memctl", in.FormatVersion, FormatVersion)
	case len(in.Files) > lim.MaxFiles:
		return nil, bad("%d files, more than the %d an import takes", len(in.Files), lim.MaxFiles)
	}
	created, err := time.Parse(time.RFC3339, in.CreatedAt)
	if err != nil {
		return nil, bad("created_at %q is not an RFC 3339 time", in.CreatedAt)
	}
	m := &Manifest{FormatVersion: in.FormatVersion, MemctlVersion: in.MemctlVersion, Created: created, Files: make([]Entry, len(in.Files))}
	seen := make(map[string]bool, len(in.Files))
	var total int64
	for i, e := range in.Files {
		at := func(format string, args ...any) error {
			return bad("files[%d] (%q): %s", i, e.Path, fmt.Sprintf(format, args...))
		}
		if err := safePath(e.Path); err != nil {
			return nil, at("%v", err)
		}
		if seen[e.Path] {
			return nil, at("listed twice")
		}
		seen[e.Path] = true
		kind := Classify(e.Path)
		if e.Kind != kind {
			return nil, at("kind %q: the path is a %q file", e.Kind, kind)
		}
		if e.Size < 0 || e.Size > lim.MaxFileSize {
			return nil, at("size %d is outside 0 to %d bytes", e.Size, lim.MaxFileSize)
		}
		if total += e.Size; total > lim.MaxTotalSize {
			return nil, bad("the files add up to more than %d bytes", lim.MaxTotalSize)
		}
		if b, err := hex.DecodeString(e.SHA256); err != nil || len(b) != 32 || strings.ToLower(e.SHA256) != e.SHA256 {
			return nil, at("sha256 %q is not 64 lower-case hex digits", e.SHA256)
		}
		mode, err := strconv.ParseUint(e.Mode, 8, 32)
		if err != nil || mode > 0o777 {
			return nil, at("mode %q is not permission bits in octal (0644)", e.Mode)
		}
		m.Files[i] = Entry{Path: e.Path, Kind: kind, Size: e.Size, SHA256: e.SHA256, Mode: fs.FileMode(mode)}
	}
	return m, nil
}

// safePath refuses a path that could land outside memctl's directories:
// absolute, with "..", ".", empty elements or a backslash, or not a path
// memctl owns (Classify).
func safePath(p string) error {
	switch {
	case p == "":
		return fmt.Errorf("empty path")
	case strings.HasPrefix(p, "/"), len(p) > 1 && p[1] == ':':
		return fmt.Errorf("an absolute path")
	case strings.ContainsAny(p, "\\\x00"):
		return fmt.Errorf("a backslash or NUL in the path")
	case path.Clean(p) != p:
		return fmt.Errorf("not a clean path (\"..\", \".\" or \"//\")")
	case strings.HasPrefix(p, "../") || p == "..":
		return fmt.Errorf("outside the workspace")
	case Classify(p) == "":
		return fmt.Errorf("not a memctl file (memctl restores only .ledger's files and .beads/issues.jsonl)")
	}
	return nil
}

// FormatError is an archive memctl will not restore: a damaged or altered
// file, an unsafe entry, or one that does not match the manifest. Nothing
// was written.
type FormatError struct {
	Entry   string // the archive entry at fault, "" for the archive itself
	Message string
}

func (e *FormatError) Error() string {
	if e.Entry == "" {
		return "archive: " + e.Message
	}
	return fmt.Sprintf("archive entry %s: %s", e.Entry, e.Message)
}
