package recall

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/index"
	"github.com/memctl/memctl/internal/ledger"
)

// PersonalSource is the person's own preferences file
// ($XDG_CONFIG_HOME/memctl/preferences.md), outside the repository: one
// document of kind personal per preference. Its documents are named by
// the file as pref list shows it (~/.config/memctl/preferences.md under
// the home directory, else the whole path), are not approved (nobody
// reviewed them: the approved-text prior does not lift them), and live
// only in the index under the git directory, which is never committed,
// exported or shared; --scope team leaves them out.
type PersonalSource struct {
	// Path is the file; "" for none (no HOME or XDG_CONFIG_HOME).
	Path string
	// Home is the home directory, for the ~/ form.
	Home string
}

// Kind implements index.Source.
func (PersonalSource) Kind() string { return index.KindPersonal }

// Files implements index.Source: the file when it is there to read (a
// person without one has no file to count), which costs one stat. A file
// gone, or one that cannot be looked at, takes its documents with it:
// recall never fails for the personal file.
func (s PersonalSource) Files(string) ([]string, error) {
	if s.Path == "" {
		return nil, nil
	}
	if fi, err := os.Stat(s.Path); err != nil || !fi.Mode().IsRegular() {
		return nil, nil
	}
	return []string{config.HomeRel(s.Path, s.Home)}, nil
}

// Locate implements index.OutsideSource.
func (s PersonalSource) Locate(string) string { return s.Path }

// Docs implements index.Source.
func (PersonalSource) Docs(file string, data []byte) ([]index.Doc, error) {
	f := ledger.Parse(ledger.PreferencesCategory, filepath.FromSlash(file), data)
	if len(f.ConflictLines) > 0 {
		return nil, fmt.Errorf("conflict markers from line %d: resolve them", f.ConflictLines[0])
	}
	docs := make([]index.Doc, 0, len(f.Facts))
	for _, p := range f.Facts {
		docs = append(docs, index.Doc{
			ID: index.KindPersonal + ":" + p.ID, Kind: index.KindPersonal, Ref: p.ID, Body: p.Text,
			File: file, Line: p.Line, Category: ledger.PreferencesCategory, Priority: -1,
		})
	}
	return docs, nil
}
