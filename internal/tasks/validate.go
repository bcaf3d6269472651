package tasks

import (
	"errors"
	"fmt"
)

// Problem is a line of issues.jsonl that is not a usable record.
type Problem struct {
	Line    int
	Field   string // the field at fault, "" for the whole line
	Message string
}

// ValidateJSONL checks every non-blank line of data with the rules every
// task command applies (see Parse), and reports all the lines that break
// them, not only the first, plus ids used twice. Lines of other record
// types, which Beads writes for memories, pass as long as they are
// objects. It returns the problems in line order and the number of
// records.
func ValidateJSONL(data []byte) ([]Problem, int) {
	body, _ := cutBOM(data)
	lines := splitLines(body)
	// Only each line's outcome is kept, not its record: the records
	// become garbage at once, so the heap stays small on a large file.
	ids := make([]string, len(lines)) // the issue id, for duplicates
	ok := make([]bool, len(lines))    // the line is a record
	probs := make([]*Problem, len(lines))
	eachRecordLine(lines, func(i int, line []byte) {
		r, err := parseRecord(line, i+1)
		var le *LineError
		switch {
		case errors.As(err, &le):
			probs[i] = &Problem{Line: le.Line, Field: le.Field, Message: le.Message}
		case err != nil:
			probs[i] = &Problem{Line: i + 1, Message: err.Error()}
		default:
			ok[i] = true
			if r.Issue != nil {
				ids[i] = r.Issue.ID
			}
		}
	})
	var out []Problem
	n := 0
	seen := make(map[string]int, len(lines))
	for i := range lines {
		switch {
		case probs[i] != nil:
			n++
			out = append(out, *probs[i])
		case ok[i]:
			n++
			if id := ids[i]; id != "" {
				if first, dup := seen[id]; dup {
					out = append(out, Problem{Line: i + 1, Field: "id", Message: fmt.Sprintf("duplicate id %q (also on line %d)", id, first)})
				} else {
					seen[id] = i + 1
				}
			}
		}
	}
	return out, n
}
