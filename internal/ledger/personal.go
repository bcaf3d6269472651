package ledger

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/ids"
	"github.com/memctl/memctl/internal/secrets"
)

// Personal preferences are one person's own facts of category
// PreferencesCategory, kept in a file in their config directory
// ($XDG_CONFIG_HOME/memctl/preferences.md), never in a repository. The file
// has the format of a facts file, so Parse reads it and its facts have the
// ids a team fact with the same text would have. Nobody reviews them: the
// person writes their own file directly, through the same secret gate.

// PreferencesCategory is the category of team preferences
// (.ledger/facts/preferences.md) and of personal ones.
const PreferencesCategory = "preferences"

// personalHeader is what a new personal preferences file starts with.
const personalHeader = "# Preferences\n\nYour own preferences, for every repository (memctl pref add --personal). This file is never committed.\n\n"

// ErrFactNotFound is returned when a fact id names no fact of the file.
var ErrFactNotFound = errors.New("fact not found")

// NotFoundError is a fact id that is not in the file at Path.
type NotFoundError struct {
	ID, Path string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("%s: no preference with id %q", e.Path, e.ID)
}

// Unwrap makes errors.Is(err, ErrFactNotFound) work.
func (e *NotFoundError) Unwrap() error { return ErrFactNotFound }

// DuplicateError is a fact that the file at Path already has, on Line.
type DuplicateError struct {
	ID, Path string
	Line     int
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("%s:%d: preference %s already says this", e.Path, e.Line, e.ID)
}

// LoadPersonal reads the personal preferences file at path. A missing file
// has no facts.
func LoadPersonal(path string) (*File, error) {
	src, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		src = nil
	} else if err != nil {
		return nil, fmt.Errorf("read personal preferences %s: %w", path, err)
	}
	return Parse(PreferencesCategory, path, src), nil
}

// AddPersonal appends text as a preference to the file at path (creating
// it and its directory), atomically, and returns the new fact. Text the
// secret gate refuses (a credential, a control character) is a
// *secrets.RefusedError or *secrets.TextError; text the file already has
// is a *DuplicateError; a file in the middle of a merge is a
// *ConflictError. The caller holds the lock (PersonalLockPath).
func AddPersonal(path, text string) (Fact, error) {
	f, _, err := AddPersonalUnder(secrets.Policy{}, path, text)
	return f, err
}

// AddPersonalUnder is AddPersonal with the write gate under policy (the
// workspace's [secrets] table): in redact mode the preference is written
// with its secrets replaced, and the replacements are returned.
func AddPersonalUnder(policy secrets.Policy, path, text string) (Fact, []secrets.Redaction, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return Fact{}, nil, errors.New("no text: say the preference")
	}
	red, err := policy.Pass(secrets.Text{Name: "text", S: &text})
	if err != nil {
		return Fact{}, nil, err
	}
	f, err := addPersonal(path, text)
	return f, red, err
}

func addPersonal(path, text string) (Fact, error) {
	f, err := LoadPersonal(path)
	if err != nil {
		return Fact{}, err
	}
	if err := f.Conflicted(); err != nil {
		return Fact{}, err
	}
	id := ids.Fact(PreferencesCategory, text)
	for _, x := range f.Facts {
		if x.ID == id {
			return Fact{}, &DuplicateError{ID: id, Path: path, Line: x.Line}
		}
	}
	src := f.Source()
	if len(src) == 0 {
		src = []byte(personalHeader)
		f = Parse(PreferencesCategory, path, src)
	}
	out := AppendFact(src, f, text, id)
	if _, err := fsx.MkdirAll(filepath.Dir(path)); err != nil {
		return Fact{}, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	if err := writePersonal(path, out); err != nil {
		return Fact{}, err
	}
	added := Parse(PreferencesCategory, path, out)
	for _, x := range added.Facts {
		if x.ID == id {
			return x, nil
		}
	}
	return Fact{}, fmt.Errorf("%s: the new preference %s did not read back", path, id)
}

// RemovePersonal removes the preference with id from the file at path,
// atomically, and returns it; an id the file does not have is a
// *NotFoundError. The caller holds the lock (PersonalLockPath).
func RemovePersonal(path, id string) (Fact, error) {
	f, err := LoadPersonal(path)
	if err != nil {
		return Fact{}, err
	}
	for _, x := range f.Facts {
		if x.ID != id {
			continue
		}
		if err := f.Conflicted(); err != nil {
			return Fact{}, err
		}
		if err := writePersonal(path, RemoveFact(f.Source(), x)); err != nil {
			return Fact{}, err
		}
		return x, nil
	}
	return Fact{}, &NotFoundError{ID: id, Path: path}
}

// writePersonal replaces the file at path with data, atomically. A
// symbolic link there (a dotfiles manager's) is kept: the file it names is
// written. fsx refuses links in a workspace, where the target may be
// outside the repository; this file is outside one by design.
func writePersonal(path string, data []byte) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	if err := fsx.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("write personal preferences %s: %w", path, err)
	}
	return nil
}

// PersonalLockPath is the lock that serialises writers of the personal
// preferences file at path: a file next to it, as the workspace lock is
// next to what it guards (fsx.Acquire creates the directory).
func PersonalLockPath(path string) string { return path + ".lock" }
