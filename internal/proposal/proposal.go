// Package proposal handles proposed facts: one JSON file per proposal in
// .ledger/proposals/, filed by agents and decided by humans. Because every
// proposal has its own file, two branches never edit the same file, and
// the audit trail (history) travels with git.
package proposal

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/ids"
)

// SchemaVersion is the version of the proposal file format.
const SchemaVersion = 1

// Actions.
const (
	ActionAdd    = "add"
	ActionUpdate = "update"
	ActionRemove = "remove"
)

// Kinds of proposal: a fact (the default, and what a file without a kind
// proposes) or a playbook's fix steps for an error signature.
const (
	KindFact     = "fact"
	KindPlaybook = "playbook"
)

// Statuses.
const (
	StatusPending   = "pending"
	StatusApproved  = "approved"
	StatusRejected  = "rejected"
	StatusWithdrawn = "withdrawn"
)

// Evidence kinds.
var EvidenceKinds = []string{"run", "task", "commit", "file", "url"}

// ParseEvidence reads evidence written kind:ref (task:kv-8f2,
// url:https://…): the kind one of EvidenceKinds, the ref not empty.
func ParseEvidence(s string) (Evidence, error) {
	kind, ref, ok := strings.Cut(s, ":")
	if !ok || ref == "" || !slices.Contains(EvidenceKinds, kind) {
		return Evidence{}, fmt.Errorf("evidence %q: use kind:ref with kind one of %s", s, strings.Join(EvidenceKinds, ", "))
	}
	return Evidence{Kind: kind, Ref: ref}, nil
}

// ErrNotFound is returned for a proposal id that does not exist.
var ErrNotFound = errors.New("proposal not found")

// Evidence backs a proposal.
type Evidence struct {
	Kind string `json:"kind"`
	Ref  string `json:"ref"`
}

// Similar is an existing fact that looks like the proposal.
type Similar struct {
	FactID   string  `json:"fact_id"`
	Category string  `json:"category"`
	Text     string  `json:"text"`
	Score    float64 `json:"score"`
	// Relation: "near-duplicate" or "possible-contradiction".
	Relation string `json:"relation"`
	// Why says what conflicts in a possible contradiction ("the proposal
	// says 1.24, the fact 1.22"); empty for a near-duplicate.
	Why string `json:"why,omitempty"`
}

// Event is one step of a proposal's history.
type Event struct {
	Action     string    `json:"action"` // proposed, approved, applied, rejected, withdrawn
	By         string    `json:"by"`
	At         time.Time `json:"at"`
	OldContent string    `json:"old_content,omitempty"`
	NewContent string    `json:"new_content,omitempty"`
	Feedback   string    `json:"feedback,omitempty"`
}

// Proposal is one proposed change to the facts, or (Kind playbook) fix
// steps for a playbook.
type Proposal struct {
	SchemaVersion int    `json:"schema_version"`
	ID            string `json:"id"`
	Kind          string `json:"kind"`
	Action        string `json:"action"`
	Category      string `json:"category"`
	FactID        string `json:"fact_id"`
	Content       string `json:"content"`
	// Signature, ErrorText (normalised), Excerpt and Steps are a
	// playbook proposal's; a fact proposal has none.
	Signature string   `json:"signature,omitempty"`
	ErrorText string   `json:"error_text,omitempty"`
	Excerpt   string   `json:"excerpt,omitempty"`
	Steps     []string `json:"steps,omitempty"`
	// Pattern is the key of the recurring pattern memctl filed this
	// proposal for on its own (gotcha:<hash>, error:<signature>,
	// file:<path>, fix:<signature>:<run id>), so that it never files a
	// pattern twice, whatever became of the first proposal.
	Pattern       string     `json:"pattern,omitempty"`
	Reason        string     `json:"reason"`
	Evidence      []Evidence `json:"evidence"`
	Author        string     `json:"author"`
	CreatedAt     time.Time  `json:"created_at"`
	Status        string     `json:"status"`
	Reviewer      string     `json:"reviewer"`
	ReviewedAt    *time.Time `json:"reviewed_at"`
	Feedback      string     `json:"feedback"`
	Similar       []Similar  `json:"similar"`
	OverBudget    bool       `json:"over_budget"`
	AppliedFactID string     `json:"applied_fact_id"`
	History       []Event    `json:"history"`

	// File is the proposal's path relative to the workspace root.
	File string `json:"-"`
	// Mneme is set for a file in mneme's format; it is rewritten in
	// memctl's format when reviewed.
	Mneme bool `json:"-"`
	// Unknown are the members of the file memctl does not know (a newer
	// memctl's, another tool's), written back by Encode as they were read.
	Unknown map[string]json.RawMessage `json:"-"`
}

// knownKeys are the JSON names of Proposal's fields.
var knownKeys = sync.OnceValue(func() []string {
	var out []string
	t := reflect.TypeFor[Proposal]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
})

// known says a member with key k fills a field of Proposal: encoding/json
// matches keys without regard to case.
func known(k string) bool {
	return slices.ContainsFunc(knownKeys(), func(name string) bool { return strings.EqualFold(name, k) })
}

// mnemeFile is mneme's proposal format.
type mnemeFile struct {
	ID       string `json:"id"`
	File     string `json:"file"`
	Action   string `json:"action"` // append, create
	Content  string `json:"content"`
	Reason   string `json:"reason"`
	Status   string `json:"status"`
	Created  string `json:"created"`
	Reviewed string `json:"reviewed"`
}

// Decode reads one proposal file; name is its path for messages.
func Decode(data []byte, name string) (*Proposal, error) {
	// One pass for our own files, the common case; a file with no category
	// but a "file" key is mneme's and is read again in its shape.
	var p Proposal
	err := json.Unmarshal(data, &p)
	if p.Category == "" && bytes.Contains(data, []byte(`"file"`)) {
		var probe map[string]json.RawMessage
		if json.Unmarshal(data, &probe) == nil {
			if _, ok := probe["file"]; ok {
				if _, ok := probe["category"]; !ok {
					return decodeMneme(data, name)
				}
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if p.Kind == "" {
		p.Kind = KindFact // files from before kinds
	}
	p.File = name
	var all map[string]json.RawMessage
	if json.Unmarshal(data, &all) == nil {
		for k, v := range all {
			if !known(k) {
				if p.Unknown == nil {
					p.Unknown = map[string]json.RawMessage{}
				}
				p.Unknown[k] = v
			}
		}
	}
	return &p, nil
}

func decodeMneme(data []byte, name string) (*Proposal, error) {
	var m mnemeFile
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	cat := strings.TrimSuffix(path.Base(filepath.ToSlash(m.File)), ".md")
	p := &Proposal{SchemaVersion: SchemaVersion, ID: m.ID, Kind: KindFact, Action: ActionAdd, Category: cat, Content: m.Content,
		Reason: m.Reason, Status: m.Status, Author: "mneme", File: name, Mneme: true}
	if p.Status == "" {
		p.Status = StatusPending
	}
	if t, err := parseLooseTime(m.Created); err == nil {
		p.CreatedAt = t
	}
	if t, err := parseLooseTime(m.Reviewed); err == nil {
		p.ReviewedAt = &t
	}
	if p.ID == "" {
		p.ID = strings.TrimSuffix(path.Base(name), ".json")
	}
	return p, nil
}

func parseLooseTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("not a time: %q", s)
}

// Encode renders p as its file: indented JSON with a final newline.
func Encode(p *Proposal) []byte {
	q := *p
	q.SchemaVersion = SchemaVersion
	if q.Kind == "" {
		q.Kind = KindFact
	}
	if q.Evidence == nil {
		q.Evidence = []Evidence{}
	}
	if q.Similar == nil {
		q.Similar = []Similar{}
	}
	if q.History == nil {
		q.History = []Event{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(q)
	if len(q.Unknown) == 0 {
		return b.Bytes()
	}
	// The unknown members go after the known ones, sorted by key.
	keys := make([]string, 0, len(q.Unknown))
	for k := range q.Unknown {
		if !known(k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	obj := bytes.TrimSuffix(bytes.TrimRight(b.Bytes(), "\n"), []byte("}"))
	obj = bytes.TrimRight(obj, "\n")
	for _, k := range keys {
		var v bytes.Buffer
		if json.Indent(&v, q.Unknown[k], "  ", "  ") != nil {
			continue // not JSON: Decode never makes such a value
		}
		key, _ := json.Marshal(k)
		obj = append(obj, ",\n  "...)
		obj = append(obj, key...)
		obj = append(obj, ": "...)
		obj = append(obj, v.Bytes()...)
	}
	return append(obj, "\n}\n"...)
}

// Dir is the proposals directory of a workspace.
type Dir struct {
	Path string // on disk
	Rel  string // relative to the workspace root, slash-separated
}

// Names returns the proposal files in d (*.json, not hidden), sorted; a
// missing directory has none.
func (d Dir) Names() ([]string, error) {
	entries, err := os.ReadDir(d.Path) // sorted by name
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read proposals directory %s: %w", d.Rel, err)
	}
	var names []string
	for _, e := range entries {
		if name := e.Name(); !e.IsDir() && strings.HasSuffix(name, ".json") && !strings.HasPrefix(name, ".") {
			names = append(names, name)
		}
	}
	return names, nil
}

// read calls fn(i, rel, data) for names[i], each file read whole, on one
// goroutine per core: with a thousand proposals the time goes to system
// calls and decoding, which overlap well. fn must write only to slot i of
// whatever it fills. It returns the first file that could not be read.
func (d Dir) read(names []string, fn func(i int, rel string, data []byte)) error {
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), 1+len(names)/64)
	for w := range workers {
		wg.Go(func() {
			scratch := make([]byte, 16<<10)
			for i := w; i < len(names); i += workers {
				rel := path.Join(d.Rel, names[i])
				data, err := fsx.ReadSmall(filepath.Join(d.Path, names[i]), scratch)
				if err != nil {
					errs[i] = fmt.Errorf("read proposal %s: %w", rel, err)
					continue
				}
				fn(i, rel, data)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// List reads every proposal, oldest first (then by id). A file that
// cannot be read as a proposal is skipped and returned as a problem.
func (d Dir) List() ([]*Proposal, []Problem, error) {
	names, err := d.Names()
	if err != nil {
		return nil, nil, err
	}
	type result struct {
		p    *Proposal
		prob *Problem
	}
	results := make([]result, len(names))
	err = d.read(names, func(i int, rel string, data []byte) {
		p, err := Decode(data, rel)
		if err != nil {
			line, msg, _ := ValidateJSON(data)
			results[i].prob = &Problem{File: rel, Line: max(line, 1), Message: msg}
			return
		}
		results[i].p = p
	})
	if err != nil {
		return nil, nil, err
	}
	out := make([]*Proposal, 0, len(names))
	var problems []Problem
	for _, r := range results {
		switch {
		case r.prob != nil:
			problems = append(problems, *r.prob)
		default:
			out = append(out, r.p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.Before(out[j].CreatedAt)
		}
		return out[i].ID < out[j].ID
	})
	return out, problems, nil
}

// Get reads the proposal with id.
func (d Dir) Get(id string) (*Proposal, error) {
	all, _, err := d.List()
	if err != nil {
		return nil, err
	}
	for _, p := range all {
		if p.ID == id {
			return p, nil
		}
	}
	return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
}

// Save writes p to its file atomically (a new proposal gets <id>.json).
func (d Dir) Save(p *Proposal) error {
	if p.File == "" {
		p.File = path.Join(d.Rel, p.ID+".json")
	}
	p.Mneme = false
	if err := os.MkdirAll(d.Path, 0o755); err != nil {
		return err
	}
	return fsx.WriteFile(filepath.Join(d.Path, path.Base(p.File)), Encode(p), 0o644)
}

// NewID returns a content-derived id for a proposal: "p-" and seven
// base-36 digits of a hash of what it proposes, when, and a random nonce
// (so two identical proposals at the same second still differ); taken
// reports ids already in use, and the nonce is drawn again for them.
func NewID(p *Proposal, rand io.Reader, taken func(string) bool) (string, error) {
	for range 16 {
		var nonce [8]byte
		if _, err := io.ReadFull(rand, nonce[:]); err != nil {
			return "", err
		}
		h := sha256.New()
		fmt.Fprintf(h, "proposal\x00%s\x00%s\x00%s\x00%s\x00%s\x00", p.Action, p.Category, p.FactID, p.Content, p.CreatedAt.UTC().Format(time.RFC3339Nano))
		if p.Kind == KindPlaybook {
			fmt.Fprintf(h, "%s\x00%s\x00", p.Signature, strings.Join(p.Steps, "\x00"))
		}
		h.Write(nonce[:])
		id := "p-" + ids.Base36(h.Sum(nil), 7)
		if !taken(id) {
			return id, nil
		}
	}
	return "", errors.New("could not find a free proposal id")
}
