// Package proposal handles proposed facts: one JSON file per proposal in
// .ledger/proposals/, filed by agents and decided by humans.
package proposal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Problem is a reason a proposal file cannot be used.
type Problem struct {
	File    string // relative to the workspace root
	Line    int
	Message string
}

// ValidateDir checks every *.json file directly in dir (rel is dir relative
// to the workspace root) and returns the problems in file order, and the
// number of files checked. A missing directory has no problems.
func ValidateDir(dir, rel string) ([]Problem, int, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read proposals directory %s: %w", rel, err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var problems []Problem
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, 0, fmt.Errorf("read proposal %s: %w", path.Join(rel, name), err)
		}
		if line, msg, ok := ValidateJSON(data); !ok {
			problems = append(problems, Problem{File: path.Join(rel, name), Line: line, Message: msg})
		}
	}
	return problems, len(names), nil
}

// ValidateJSON checks that data is one JSON object. On failure it returns
// the 1-based line of the problem and a message.
func ValidateJSON(data []byte) (line int, msg string, ok bool) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 {
		return 1, "file is empty; a proposal is one JSON object", false
	}
	var obj map[string]json.RawMessage
	err := json.Unmarshal(data, &obj)
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
		return 0, "", true
	case errors.As(err, &syn):
		return lineOf(data, syn.Offset), "invalid JSON: " + syn.Error(), false
	case errors.As(err, &typ):
		start := len(data) - len(trimmed)
		return lineOf(data, int64(start)+1), fmt.Sprintf("is a JSON %s, not an object; a proposal is one JSON object", typ.Value), false
	default:
		return 1, "invalid JSON: " + err.Error(), false
	}
}

// lineOf returns the 1-based line of the byte before offset (the offsets in
// encoding/json errors point just past the bad byte).
func lineOf(data []byte, offset int64) int {
	end := max(0, min(int(offset)-1, len(data)))
	return bytes.Count(data[:end], []byte{'\n'}) + 1
}
