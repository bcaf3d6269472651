package proposal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/ledger"
)

// Problem is a reason a proposal file cannot be used, or (Warning) should
// get attention.
type Problem struct {
	File    string // relative to the workspace root
	Line    int
	Message string
	Warning bool
}

// ValidateDir checks every *.json file directly in dir (rel is dir relative
// to the workspace root) against the proposal schema, and warns about
// pending proposals older than staleDays (0: never). It returns the
// problems in file order and the number of files checked. visit, when not
// nil, gets each file's bytes too, so a caller checks them without reading
// the files again: i is the file's place in name order, rel its path. visit
// runs on several goroutines at once, and data is valid only during the
// call.
func ValidateDir(dir, rel string, now time.Time, staleDays int, visit func(i int, rel string, data []byte)) ([]Problem, int, error) {
	d := Dir{Path: dir, Rel: rel}
	names, err := d.Names()
	if err != nil {
		return nil, 0, err
	}
	perFile := make([][]Problem, len(names))
	err = d.read(names, func(i int, rel string, data []byte) {
		perFile[i] = ValidateFile(data, rel, now, staleDays)
		if visit != nil {
			visit(i, rel, data)
		}
	})
	if err != nil {
		return nil, 0, err
	}
	var problems []Problem
	for _, ps := range perFile {
		problems = append(problems, ps...)
	}
	return problems, len(names), nil
}

// ValidateFile checks one proposal file.
func ValidateFile(data []byte, name string, now time.Time, staleDays int) []Problem {
	if line, msg, ok := ValidateJSON(data); !ok {
		return []Problem{{File: name, Line: line, Message: msg}}
	}
	p, err := Decode(data, name)
	if err != nil {
		return []Problem{{File: name, Line: 1, Message: "does not match the proposal schema: " + err.Error()}}
	}
	var out []Problem
	bad := func(key, format string, args ...any) {
		out = append(out, Problem{File: name, Line: keyLine(data, key), Message: fmt.Sprintf("field %q: ", key) + fmt.Sprintf(format, args...)})
	}
	if p.Mneme {
		if p.Content == "" {
			bad("content", "is empty")
		}
	} else {
		if p.SchemaVersion != SchemaVersion {
			bad("schema_version", "is %d; this memctl reads version %d", p.SchemaVersion, SchemaVersion)
		}
		if want := strings.TrimSuffix(path.Base(name), ".json"); p.ID != want {
			bad("id", "is %q but the file is named %s.json", p.ID, want)
		}
		switch p.Kind {
		case KindFact:
			out = append(out, validateFact(p, data, name)...)
		case KindPlaybook:
			out = append(out, validatePlaybook(p, data, name)...)
		default:
			bad("kind", "is %q; use fact or playbook", p.Kind)
		}
		if p.CreatedAt.IsZero() {
			bad("created_at", "is missing")
		}
		for _, e := range p.Evidence {
			if !slices.Contains(EvidenceKinds, e.Kind) {
				bad("evidence", "kind %q; use %s", e.Kind, strings.Join(EvidenceKinds, ", "))
			}
		}
	}
	if !slices.Contains([]string{StatusPending, StatusApproved, StatusRejected, StatusWithdrawn}, p.Status) {
		bad("status", "is %q; use pending, approved, rejected or withdrawn", p.Status)
	}
	if p.Status == StatusRejected && strings.TrimSpace(p.Feedback) == "" && !p.Mneme {
		bad("feedback", "is empty on a rejected proposal; the agent needs to know why")
	}
	if staleDays > 0 && p.Status == StatusPending && !p.CreatedAt.IsZero() {
		if age := now.Sub(p.CreatedAt); age > time.Duration(staleDays)*24*time.Hour {
			out = append(out, Problem{File: name, Line: 1, Warning: true,
				Message: fmt.Sprintf("pending for %d days (over [review] stale_days = %d)", int(age.Hours()/24), staleDays)})
		}
	}
	return out
}

// keyLine is the line of the first occurrence of "key": in data, or 1.
func keyLine(data []byte, key string) int {
	i := bytes.Index(data, []byte(`"`+key+`"`))
	if i < 0 {
		return 1
	}
	return bytes.Count(data[:i], []byte{'\n'}) + 1
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

// problemAt returns the problem of a field of a proposal file.
func problemAt(data []byte, name, key, format string, args ...any) Problem {
	return Problem{File: name, Line: keyLine(data, key), Message: fmt.Sprintf("field %q: ", key) + fmt.Sprintf(format, args...)}
}

// validateFact checks the fields of a fact proposal.
func validateFact(p *Proposal, data []byte, name string) []Problem {
	var out []Problem
	bad := func(key, format string, args ...any) { out = append(out, problemAt(data, name, key, format, args...)) }
	if !slices.Contains([]string{ActionAdd, ActionUpdate, ActionRemove}, p.Action) {
		bad("action", "is %q; use add, update or remove", p.Action)
	}
	if !categoryName().MatchString(p.Category) {
		bad("category", "%q is not a category name", p.Category)
	}
	if p.Action != ActionAdd && p.FactID == "" {
		bad("fact_id", "is empty; %s needs the fact's id", p.Action)
	}
	if p.Action != ActionRemove && strings.TrimSpace(p.Content) == "" {
		bad("content", "is empty")
	}
	if strings.TrimSpace(p.Reason) == "" {
		bad("reason", "is empty")
	}
	return out
}

// validatePlaybook checks the fields of a playbook proposal.
func validatePlaybook(p *Proposal, data []byte, name string) []Problem {
	var out []Problem
	bad := func(key, format string, args ...any) { out = append(out, problemAt(data, name, key, format, args...)) }
	if !ledger.ValidSignature(p.Signature) {
		bad("signature", "%q is not an error signature (12 lowercase hex digits)", p.Signature)
	}
	if !slices.ContainsFunc(p.Steps, func(s string) bool { return strings.TrimSpace(s) != "" }) {
		bad("steps", "has no step")
	}
	return out
}
