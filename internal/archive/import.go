package archive

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/secrets"
)

// Limits bound what an import reads, so that a crafted archive (a tar
// bomb: a few kilobytes that inflate to terabytes) cannot fill the disk
// or the memory: an entry is held in memory while it is checked.
type Limits struct {
	MaxFileSize  int64 // one file
	MaxTotalSize int64 // all files together
	MaxFiles     int
	MaxManifest  int64
}

// DefaultLimits are far above what a workspace holds (10,000 issues are
// 7 MB) and far below what would hurt a machine.
var DefaultLimits = Limits{MaxFileSize: 256 << 20, MaxTotalSize: 2 << 30, MaxFiles: 1_000_000, MaxManifest: 256 << 20}

// Actions an import takes on each file of the archive.
const (
	ActionWrite     = "written"     // the file did not exist
	ActionReplace   = "replaced"    // the file was as memctl init wrote it (see Starter)
	ActionOverwrite = "overwritten" // the file was different; --force
	ActionUnchanged = "unchanged"   // the file was identical: not written
)

// ImportOptions say how to restore.
type ImportOptions struct {
	// Force overwrites files whose content differs from the archive's.
	Force bool
	// DryRun checks everything and says what would be done, writing
	// nothing.
	DryRun bool
	// Starter is what memctl init wrote into this workspace (path → content,
	// config.Starter); such a file is replaced without Force, so that an
	// archive restores into a workspace fresh from memctl init.
	Starter map[string][]byte
	Limits  Limits
	// Secrets is the workspace's [secrets] policy: a secret its
	// allow-list lets through passes the gate. The archive's own
	// config.toml is not trusted for that (an archive can be crafted to
	// allow what it carries); the refusal says which findings it would
	// let through. The mode is not used: an archive is restored as it is
	// or not at all.
	Secrets secrets.Policy
	// BackupDir is where a file Force overwrites is copied first, at its
	// path below the workspace (a number is added rather than replace an
	// earlier copy); "" keeps no copy.
	BackupDir string
}

// ImportedFile is what an import did (or would do) with one file.
type ImportedFile struct {
	Path   string
	Action string
}

// ImportResult is what an import did, file by file in the manifest's
// order.
type ImportResult struct {
	Manifest *Manifest
	Files    []ImportedFile
}

// Count returns how many files got action.
func (r *ImportResult) Count(action string) int {
	n := 0
	for _, f := range r.Files {
		if f.Action == action {
			n++
		}
	}
	return n
}

// ConflictError refuses an import that would overwrite files whose content
// differs from the archive's. Nothing was written.
type ConflictError struct{ Paths []string }

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%d file(s) in the workspace differ from the archive: %s", len(e.Paths), strings.Join(e.Paths, ", "))
}

// Import restores the archive that open reads (called twice: the archive
// is read once to check everything, then again to write) into the
// workspace at root. Before anything is written it checks the manifest,
// every entry against it (type, path, size, SHA-256: *FormatError), the
// workspace's files (a differing file without Force: *ConflictError
// listing every one; a symbolic link on the way is refused), what the
// files hold (the write gate: *GateError; issues.jsonl as memctl check
// reads it and JSON files as JSON: *ContentError). Then each file is
// written atomically. Hold the workspace lock.
func Import(open func() (io.ReadCloser, error), root string, opts ImportOptions) (*ImportResult, error) {
	if opts.Limits == (Limits{}) {
		opts.Limits = DefaultLimits
	}
	actions := map[string]string{}
	var conflicts []string
	var gate GateError
	var archived secrets.Policy // the archive's config.toml's
	m, err := readArchive(open, opts.Limits, nil, func(e Entry, data []byte) error {
		gate.check(e, data)
		if e.Kind == KindConfig {
			// A broken one is refused by validate below.
			if c, _, err := config.Parse(data, e.Path, config.Default("x")); err == nil {
				archived = c.Secrets.Policy
			}
		}
		if err := validate(e, data); err != nil {
			return err
		}
		act, err := plan(root, e, opts.Starter)
		if err != nil {
			return err
		}
		if act == ActionOverwrite && !opts.Force {
			conflicts = append(conflicts, e.Path)
		}
		actions[e.Path] = act
		return nil
	})
	if err != nil {
		return nil, err
	}
	if gate.allow(opts.Secrets); len(gate.Findings) > 0 {
		for _, f := range gate.Findings {
			if f.Fingerprint != "" && archived.Allows(secrets.Finding{RuleID: f.Rule, Fingerprint: f.Fingerprint}) {
				gate.ArchiveAllows++
			}
		}
		return nil, &gate
	}
	if len(conflicts) > 0 {
		return nil, &ConflictError{Paths: conflicts}
	}
	res := &ImportResult{Manifest: m}
	for _, e := range m.Files {
		res.Files = append(res.Files, ImportedFile{Path: e.Path, Action: actions[e.Path]})
	}
	if opts.DryRun {
		return res, nil
	}
	_, err = readArchive(open, opts.Limits, m, func(e Entry, data []byte) error {
		if actions[e.Path] == ActionUnchanged {
			return nil
		}
		p := filepath.Join(root, filepath.FromSlash(e.Path))
		if _, err := fsx.MkdirAll(filepath.Dir(p)); err != nil {
			return err
		}
		if actions[e.Path] == ActionOverwrite && opts.BackupDir != "" {
			if err := backup(p, filepath.Join(opts.BackupDir, filepath.FromSlash(e.Path))); err != nil {
				return fmt.Errorf("back up %s before overwriting it: %w", e.Path, err)
			}
		}
		// A new file gets the archive's bits, but always readable and
		// writable by its owner and never executable or writable by others:
		// a crafted mode must not lock the owner out or make a fact a program.
		return fsx.WriteFile(p, data, e.Mode&0o644|0o600)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// plan says what writing e would do to the workspace at root.
func plan(root string, e Entry, starter map[string][]byte) (string, error) {
	if err := noLinkOnTheWay(root, e.Path); err != nil {
		return "", err
	}
	p := filepath.Join(root, filepath.FromSlash(e.Path))
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ActionWrite, nil
	case err != nil:
		return "", fmt.Errorf("read %s: %w", e.Path, err)
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("%s in the workspace is not a regular file (a symbolic link or a directory); memctl does not write through it: move it away and import again", e.Path)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", e.Path, err)
	}
	sum := sha256.Sum256(data)
	switch {
	case hex.EncodeToString(sum[:]) == e.SHA256:
		return ActionUnchanged, nil
	case isStarter(starter, e.Path, data):
		return ActionReplace, nil
	}
	return ActionOverwrite, nil
}

func isStarter(starter map[string][]byte, rel string, data []byte) bool {
	s, ok := starter[rel]
	return ok && bytes.Equal(s, data)
}

// noLinkOnTheWay refuses a path whose directories in the workspace
// include a symbolic link or a file: writing there would land elsewhere.
func noLinkOnTheWay(root, rel string) error {
	at := ""
	for _, part := range strings.Split(path.Dir(rel), "/") {
		at = path.Join(at, part)
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(at)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return fmt.Errorf("read %s: %w", at, err)
		case fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s in the workspace is a symbolic link; memctl does not write through links: replace it with a directory and import again", at)
		case !fi.IsDir():
			return fmt.Errorf("%s in the workspace is a file where a directory is needed: move it away and import again", at)
		}
	}
	return nil
}

// readArchive reads the archive from open, checking it as it goes: the
// manifest first (and, when want is set, that it is want: the archive
// must not change between the check and the write), then entries that
// are regular files listed in the manifest, once each, of the listed size
// and SHA-256, each handed to fn; at the end, that none is missing.
func readArchive(open func() (io.ReadCloser, error), lim Limits, want *Manifest, fn func(Entry, []byte) error) (*Manifest, error) {
	rc, err := open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	zr, err := gzip.NewReader(rc)
	if err != nil {
		return nil, &FormatError{Message: "not a gzip-compressed tar archive (" + err.Error() + "); memctl import reads what memctl export writes"}
	}
	tr := tar.NewReader(zr)
	next := func() (*tar.Header, error) {
		h, err := tr.Next()
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, &FormatError{Message: "damaged: " + err.Error()}
		}
		return h, err
	}
	h, err := next()
	if errors.Is(err, io.EOF) {
		return nil, &FormatError{Message: "empty: no " + ManifestName}
	}
	if err != nil {
		return nil, err
	}
	if h.Name != ManifestName || h.Typeflag != tar.TypeReg {
		return nil, &FormatError{Entry: h.Name, Message: "the first entry must be " + ManifestName}
	}
	data, err := readEntry(tr, h, lim.MaxManifest)
	if err != nil {
		return nil, err
	}
	m, err := decodeManifest(data, lim)
	if err != nil {
		return nil, err
	}
	if want != nil && !bytes.Equal(encodeManifest(m), encodeManifest(want)) {
		return nil, fmt.Errorf("the archive changed while it was imported: %w", fsx.ErrChanged)
	}
	byPath := make(map[string]int, len(m.Files))
	for i, e := range m.Files {
		byPath[e.Path] = i
	}
	seen := make([]bool, len(m.Files))
	for {
		h, err := next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		e, err := entryFor(h, m, byPath, seen)
		if err != nil {
			return nil, err
		}
		data, err := readEntry(tr, h, e.Size)
		if err != nil {
			return nil, err
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != e.SHA256 {
			return nil, &FormatError{Entry: h.Name, Message: "its SHA-256 is not the manifest's: the archive was damaged or altered"}
		}
		if err := fn(e, data); err != nil {
			return nil, err
		}
	}
	for i, ok := range seen {
		if !ok {
			return nil, &FormatError{Entry: m.Files[i].Path, Message: "in the manifest but not in the archive"}
		}
	}
	return m, nil
}

// entryFor checks a tar header against the manifest: a regular file,
// listed, not seen before, of the listed size.
func entryFor(h *tar.Header, m *Manifest, byPath map[string]int, seen []bool) (Entry, error) {
	bad := func(msg string) (Entry, error) { return Entry{}, &FormatError{Entry: h.Name, Message: msg} }
	switch h.Typeflag {
	case tar.TypeReg:
	case tar.TypeSymlink:
		return bad("a symbolic link; memctl archives hold regular files only")
	case tar.TypeLink:
		return bad("a hard link; memctl archives hold regular files only")
	case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
		return bad("a device or pipe; memctl archives hold regular files only")
	default:
		return bad(fmt.Sprintf("an entry of type %q; memctl archives hold regular files only", h.Typeflag))
	}
	if h.Name == ManifestName {
		return bad("in the archive twice")
	}
	if err := safePath(h.Name); err != nil {
		return bad(err.Error())
	}
	i, ok := byPath[h.Name]
	switch {
	case !ok:
		return bad("not in the manifest")
	case seen[i]:
		return bad("in the archive twice")
	case h.Size != m.Files[i].Size:
		return bad(fmt.Sprintf("%d bytes, the manifest says %d", h.Size, m.Files[i].Size))
	}
	seen[i] = true
	return m.Files[i], nil
}

// readEntry reads the entry's content, refusing one larger than max
// before reading it.
func readEntry(tr *tar.Reader, h *tar.Header, max int64) ([]byte, error) {
	if h.Size > max || h.Size < 0 {
		return nil, &FormatError{Entry: h.Name, Message: fmt.Sprintf("%d bytes, over the %d an entry may have", h.Size, max)}
	}
	// Read what is there rather than allocate what the header claims: a
	// tiny archive can claim a huge entry.
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(tr, h.Size))
	if err == nil && n < h.Size {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, &FormatError{Entry: h.Name, Message: "cut short: " + err.Error()}
	}
	return buf.Bytes(), nil
}

// backup copies the file at src to dst, or to dst with ".1", ".2"…
// added when a file is there: an earlier copy is never replaced.
func backup(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if _, err := fsx.MkdirAll(filepath.Dir(dst)); err != nil {
		return err
	}
	return fsx.WriteFile(fsx.FreeName(dst), data, 0o600)
}
