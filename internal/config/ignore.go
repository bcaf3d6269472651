package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/fsx"
)

// IgnoreLine keeps out of git the temporaries a killed memctl write can
// leave next to the file it was writing (.<name>.tmp-<digits>, see
// fsx.IsTemp), which git add -A would otherwise commit. It goes in a
// .gitignore in each directory memctl writes in all the time (IgnoreFiles),
// where it applies to that directory and those below it, and nowhere else.
const IgnoreLine = ".*.tmp-*"

// ignoreComment says why IgnoreLine is there.
const ignoreComment = "# memctl: temporaries of interrupted writes (memctl doctor --fix moves them out)"

// IgnoreFiles are the .gitignore files that carry IgnoreLine, relative
// to the root.
var IgnoreFiles = []string{LedgerDir + "/.gitignore", BeadsDir + "/.gitignore"}

// HasIgnore reports whether the .gitignore at rel under root has
// IgnoreLine.
func HasIgnore(root, rel string) (bool, error) {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", rel, err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == IgnoreLine {
			return true, nil
		}
	}
	return false, nil
}

// EnsureIgnore adds IgnoreLine, with a comment, to the .gitignore at rel
// under root, creating it if needed; it reports whether it created the
// file (false: appended to it, or nothing to do, as changed says). A
// symbolic link is not written through (fsx.ErrSymlink).
func EnsureIgnore(root, rel string) (created, changed bool, err error) {
	if ok, err := HasIgnore(root, rel); err != nil || ok {
		return false, false, err
	}
	path := filepath.Join(root, filepath.FromSlash(rel))
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, false, fmt.Errorf("read %s: %w", rel, err)
	}
	created = errors.Is(err, fs.ErrNotExist)
	out := append([]byte{}, data...)
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	out = append(out, ignoreComment+"\n"+IgnoreLine+"\n"...)
	if err := fsx.WriteFile(path, out, 0o644); err != nil {
		return false, false, err
	}
	return created, true, nil
}
