package archive

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/memctl/memctl/internal/fsx"
)

// ExportOptions are what an export takes from the front-end.
type ExportOptions struct {
	// MemctlVersion is written into the manifest.
	MemctlVersion string
	// Created is the manifest's time: the only part of an archive that
	// differs between two exports of the same files.
	Created time.Time
}

// DefaultName is the file an export in format ("tar.gz" or "jsonl") made
// at t is written to when no name is given.
func DefaultName(format string, t time.Time) string {
	return "memctl-export-" + t.UTC().Format("20060102T150405Z") + "." + format
}

// ExportResult is what an export wrote.
type ExportResult struct {
	Manifest *Manifest
	// Skipped are paths under .ledger that are not memctl files (or are
	// symbolic links), left out.
	Skipped []string
}

// epoch is every entry's modification time: the archive depends on the
// files' content only, so two exports of the same files differ only in
// the manifest's created_at.
var epoch = time.Unix(0, 0).UTC()

// Export writes the memctl files of the workspace at root to w as a
// tar.gz archive: manifest.json first, then every file in path order,
// with fixed header fields (owner 0, time 1970-01-01, the file's
// permission bits). The files are hashed before the manifest is written
// and hashed again as they are copied; a file that changed between the
// two is fsx.ErrChanged (run the export again). Hold the workspace lock so
// that memctl writers wait.
func Export(w io.Writer, root string, opts ExportOptions) (*ExportResult, error) {
	files, skipped, err := Collect(root)
	if err != nil {
		return nil, err
	}
	m := &Manifest{FormatVersion: FormatVersion, MemctlVersion: opts.MemctlVersion, Created: opts.Created.UTC().Truncate(time.Second), Files: make([]Entry, len(files))}
	for i, f := range files {
		sum, size, err := hashFile(filepath.Join(root, filepath.FromSlash(f.Path)), nil)
		if err != nil {
			return nil, err
		}
		m.Files[i] = Entry{Path: f.Path, Kind: f.Kind, Size: size, SHA256: sum, Mode: f.Mode}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	zw := gzip.NewWriter(bw) // a zero header: no name, no time
	tw := tar.NewWriter(zw)
	if err := writeEntry(tw, ManifestName, 0o644, encodeManifest(m)); err != nil {
		return nil, err
	}
	for _, e := range m.Files {
		if err := tw.WriteHeader(header(e.Path, e.Mode, e.Size)); err != nil {
			return nil, fmt.Errorf("write archive: %w", err)
		}
		sum, _, err := hashFile(filepath.Join(root, filepath.FromSlash(e.Path)), &limitedWriter{w: tw, n: e.Size})
		if err != nil {
			return nil, err
		}
		if sum != e.SHA256 {
			return nil, fmt.Errorf("export %s: %w", e.Path, fsx.ErrChanged)
		}
	}
	for _, err := range []error{tw.Close(), zw.Close(), bw.Flush()} {
		if err != nil {
			return nil, fmt.Errorf("write archive: %w", err)
		}
	}
	return &ExportResult{Manifest: m, Skipped: skipped}, nil
}

func header(name string, mode os.FileMode, size int64) *tar.Header {
	return &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: int64(mode.Perm()), Size: size, ModTime: epoch, Format: tar.FormatPAX}
}

func writeEntry(tw *tar.Writer, name string, mode os.FileMode, data []byte) error {
	if err := tw.WriteHeader(header(name, mode, int64(len(data)))); err != nil {
		return fmt.Errorf("write archive: %w", err)
	}
	if _, err := tw.Write(data); err != nil {
		return fmt.Errorf("write archive: %w", err)
	}
	return nil
}

// hashFile returns the SHA-256 and size of the file at p, copying its
// bytes to w as well when w is not nil.
func hashFile(p string, w io.Writer) (string, int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", 0, fmt.Errorf("read %s: %w", p, err)
	}
	defer f.Close()
	h := sha256.New()
	dst := io.Writer(h)
	if w != nil {
		dst = io.MultiWriter(h, w)
	}
	n, err := io.Copy(dst, f)
	if err != nil {
		if lw, ok := w.(*limitedWriter); ok && lw.over {
			return "", 0, fmt.Errorf("export %s: %w", p, fsx.ErrChanged)
		}
		return "", 0, fmt.Errorf("read %s: %w", p, err)
	}
	if lw, ok := w.(*limitedWriter); ok && lw.n != 0 {
		return "", 0, fmt.Errorf("export %s: %w", p, fsx.ErrChanged) // shorter than hashed
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// limitedWriter takes at most n bytes: a file that grew after it was
// hashed must not write past its tar entry's size.
type limitedWriter struct {
	w    io.Writer
	n    int64
	over bool
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > l.n {
		l.over = true
		return 0, fsx.ErrChanged
	}
	n, err := l.w.Write(p)
	l.n -= int64(n)
	return n, err
}
