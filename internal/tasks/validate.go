// Package tasks holds the Beads-compatible task graph stored in
// .beads/issues.jsonl: one JSON object per line, one line per issue.
package tasks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"sync"
)

// Problem is a line of issues.jsonl that is not a usable record.
type Problem struct {
	Line    int
	Field   string // the field at fault, "" for the whole line
	Message string
}

// lineHead is the part of a record ValidateJSONL looks at. Pointers tell a
// missing field from an empty one; RawMessage defers the type check.
type lineHead struct {
	Type   *string         `json:"_type"`
	ID     json.RawMessage `json:"id"`
	Title  json.RawMessage `json:"title"`
	Status string          `json:"status"`
}

// ValidateFile checks the issues file at path. A missing file has no lines
// and no problems. It returns the problems, sorted by line, and the number
// of records.
func ValidateFile(path string) ([]Problem, int, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	p, n := ValidateJSONL(data)
	return p, n, nil
}

// ValidateJSONL checks that every non-blank line of data is a JSON object
// and that every issue record (a line without "_type", or with "_type":
// "issue") has a non-empty string "id" and "title". Lines of other record
// types, which Beads writes for memories, pass as long as they are objects.
// It returns the problems in line order and the number of records.
func ValidateJSONL(data []byte) ([]Problem, int) {
	lines := splitLines(data)
	// Decoding dominates; large files are split across the CPUs in line
	// order, so the result is the same as a sequential pass.
	workers := min(runtime.GOMAXPROCS(0), max(1, len(lines)/2000))
	chunks := make([][]Problem, workers)
	counts := make([]int, workers)
	var wg sync.WaitGroup
	per := (len(lines) + workers - 1) / max(workers, 1)
	for w := range workers {
		lo, hi := w*per, min((w+1)*per, len(lines))
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				line := lines[i]
				if len(bytes.TrimSpace(line)) == 0 {
					continue
				}
				counts[w]++
				if p, ok := validateLine(line); !ok {
					p.Line = i + 1
					chunks[w] = append(chunks[w], p)
				}
			}
		})
	}
	wg.Wait()
	var out []Problem
	n := 0
	for w := range workers {
		out = append(out, chunks[w]...)
		n += counts[w]
	}
	return out, n
}

func validateLine(line []byte) (Problem, bool) {
	var h lineHead
	if err := json.Unmarshal(line, &h); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) && typ.Field == "" {
			return Problem{Message: fmt.Sprintf("line is a JSON %s, not an object", typ.Value)}, false
		}
		if errors.As(err, &typ) {
			return Problem{Field: typ.Field, Message: fmt.Sprintf("%q is a JSON %s, want a string", typ.Field, typ.Value)}, false
		}
		return Problem{Message: "invalid JSON: " + err.Error()}, false
	}
	if h.Type != nil && *h.Type != "issue" {
		return Problem{}, true
	}
	if msg := nonEmptyString(h.ID); msg != "" {
		return Problem{Field: "id", Message: "\"id\" " + msg}, false
	}
	if h.Status == "tombstone" {
		return Problem{}, true
	}
	if msg := nonEmptyString(h.Title); msg != "" {
		return Problem{Field: "title", Message: "\"title\" " + msg}, false
	}
	return Problem{}, true
}

// nonEmptyString returns "" if raw is a non-empty JSON string, otherwise
// what is wrong with it.
func nonEmptyString(raw json.RawMessage) string {
	if raw == nil {
		return "is missing"
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "is not a string"
	}
	if len(bytes.TrimSpace([]byte(s))) == 0 {
		return "is empty"
	}
	return ""
}

// splitLines splits data at LF, dropping one trailing empty line. A CR
// before the LF stays and is white space to the JSON decoder.
func splitLines(data []byte) [][]byte {
	if len(data) == 0 {
		return nil
	}
	data = bytes.TrimSuffix(data, []byte{'\n'})
	return bytes.Split(data, []byte{'\n'})
}
