package proposal

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/secrets"
)

// MaxExcerptChars is the longest excerpt of an error a playbook proposal
// takes: enough for the lines that identify it, never a whole log.
const MaxExcerptChars = 1000

// IsPlaybook reports whether p proposes playbook steps.
func (p *Proposal) IsPlaybook() bool { return p.Kind == KindPlaybook }

// PlaybookInput is fix steps an agent proposes for an error signature.
type PlaybookInput struct {
	// Signature is the error signature's hash (12 lowercase hex digits).
	Signature string
	// ErrorText is the normalised error text, Excerpt what the error looked
	// like; both optional.
	ErrorText, Excerpt string
	Steps              []string
	Reason, Author     string
	Evidence           []Evidence
	// Pattern is stored in the proposal (Proposal.Pattern).
	Pattern string
	// DryRun makes every check and returns the proposal without writing
	// it.
	DryRun bool
}

// PlaybookPath is the playbook file of a signature relative to the
// workspace root.
func (b *Book) PlaybookPath(signature string) string {
	return path.Join(b.PlaybooksRel, ledger.PlaybookFileName(signature))
}

func (b *Book) playbookFile(signature string) string {
	return filepath.Join(b.PlaybooksDir, ledger.PlaybookFileName(signature))
}

// Playbook reads the playbook of a signature; nil when there is none.
func (b *Book) Playbook(signature string) (*ledger.Playbook, error) {
	return ledger.ReadPlaybook(b.playbookFile(signature), b.PlaybookPath(signature))
}

// ProposePlaybook files a playbook proposal after the refusal checks: a
// signature that is not one, no steps or no evidence, the write gate, an
// excerpt over MaxExcerptChars, a playbook file memctl cannot read (it
// would not write into it), steps and evidence the playbook has already,
// and a pending proposal of the same steps for the signature. A playbook
// proposal is never applied on its own: a person approves it in review.
func (b *Book) ProposePlaybook(in PlaybookInput, now time.Time, rand io.Reader) (*Proposal, error) {
	now = now.UTC().Truncate(time.Second)
	in.ErrorText = strings.Trim(in.ErrorText, "\r\n")
	in.Excerpt = strings.Trim(in.Excerpt, "\r\n")
	var steps []string
	for _, s := range in.Steps {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(steps, s) {
			steps = append(steps, s)
		}
	}
	switch {
	case !ledger.ValidSignature(in.Signature):
		return nil, &RefusedError{Reason: fmt.Sprintf("%q is not an error signature", in.Signature), Hint: "a signature is 12 lowercase hex digits: memctl signature prints the one of an error text"}
	case len(steps) == 0:
		return nil, &RefusedError{Reason: "no steps", Hint: `give each fix step with --steps "…" (repeatable)`}
	case len(in.Evidence) == 0:
		return nil, &RefusedError{Reason: "no evidence", Hint: "name the run that the fix worked in: --evidence run:<id> (or commit:<sha>)"}
	case utf8.RuneCountInString(in.Excerpt) > MaxExcerptChars:
		return nil, &RefusedError{Reason: fmt.Sprintf("the error excerpt is %d characters, over the limit of %d", utf8.RuneCountInString(in.Excerpt), MaxExcerptChars),
			Hint: "keep the lines that identify the error; raw logs stay out of memory"}
	}
	in.Evidence = slices.Clone(in.Evidence)
	fields := append(playbookGateFields(&in.Signature, &in.ErrorText, &in.Excerpt, steps, &in.Reason, in.Evidence),
		secrets.Text{Name: "author", S: &in.Author, OneLine: true})
	if err := b.gate(fields...); err != nil {
		return nil, err
	}
	pb, err := b.Playbook(in.Signature)
	if err != nil {
		return nil, err
	}
	if pb != nil {
		if err := pb.Err(); err != nil {
			return nil, err
		}
		if _, added := ledger.AppendPlaybook(pb.Source(), pb, steps, evidenceRefs(in.Evidence)); added == 0 {
			return nil, &RefusedError{Reason: fmt.Sprintf("playbook %s has these steps and this evidence already", pb.Path),
				Hint: "nothing to add; read it with memctl recall --kind playbook", Duplicate: true}
		}
	}
	if err := b.refusePendingPlaybook(in.Signature, steps); err != nil {
		return nil, err
	}
	p := &Proposal{SchemaVersion: SchemaVersion, Kind: KindPlaybook, Action: ActionAdd, Signature: in.Signature,
		ErrorText: in.ErrorText, Excerpt: in.Excerpt, Steps: steps, Pattern: in.Pattern, Reason: strings.TrimSpace(in.Reason),
		Evidence: in.Evidence, Author: in.Author, CreatedAt: now, Status: StatusPending}
	p.ID, err = NewID(p, rand, func(id string) bool {
		_, err := os.Stat(filepath.Join(b.Proposals.Path, id+".json"))
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	p.History = []Event{{Action: "proposed", By: in.Author, At: now, NewContent: ledger.FormatSteps(steps)}}
	if in.DryRun {
		return p, nil
	}
	return p, b.Proposals.Save(p)
}

// playbookGateFields are the gate's fields for what a playbook proposal
// stores and its approval writes.
func playbookGateFields(signature, errorText, excerpt *string, steps []string, reason *string, evidence []Evidence) []secrets.Text {
	fields := []secrets.Text{{Name: "signature", S: signature, OneLine: true}, {Name: "error_text", S: errorText}, {Name: "excerpt", S: excerpt}}
	for i := range steps {
		fields = append(fields, secrets.Text{Name: "steps", S: &steps[i]})
	}
	return append(fields, gateFields(new(string), reason, evidence)[1:]...)
}

// refusePendingPlaybook refuses steps that a pending proposal for the
// signature proposes already, all of them.
func (b *Book) refusePendingPlaybook(signature string, steps []string) error {
	all, _, err := b.Proposals.List()
	if err != nil {
		return err
	}
	for _, p := range all {
		if p.Status != StatusPending || !p.IsPlaybook() || p.Signature != signature {
			continue
		}
		if !slices.ContainsFunc(steps, func(s string) bool { return !slices.Contains(p.Steps, s) }) {
			return &RefusedError{Reason: fmt.Sprintf("pending proposal %s proposes these steps for %s already", p.ID, signature),
				Hint: "wait for its review (memctl proposals --json)", Duplicate: true}
		}
	}
	return nil
}

func evidenceRefs(ev []Evidence) []string {
	out := make([]string, len(ev))
	for i, e := range ev {
		out[i] = e.Kind + ":" + e.Ref
	}
	return out
}

// approvePlaybook writes a playbook proposal's steps and evidence into the
// signature's playbook file (a new file, or appended to the one there),
// then the approved proposal. A playbook has no text to edit.
func (b *Book) approvePlaybook(p *Proposal, text, reviewer string, now time.Time) error {
	if strings.TrimSpace(text) != "" {
		return &RefusedError{Reason: fmt.Sprintf("proposal %s adds playbook steps: there is no fact text to edit", p.ID),
			Hint: "approve it without --text, or reject it with --feedback saying which steps to change"}
	}
	if !ledger.ValidSignature(p.Signature) || len(p.Steps) == 0 {
		return &StateError{Message: fmt.Sprintf("proposal %s has no valid signature or no steps; memctl check names the field", p.ID)}
	}
	// The proposal file may come from a pull, written by hand: what would
	// be written passes the gate here too.
	if err := b.gate(playbookGateFields(&p.Signature, &p.ErrorText, &p.Excerpt, p.Steps, &p.Reason, p.Evidence)...); err != nil {
		return err
	}
	pb, err := b.Playbook(p.Signature)
	if err != nil {
		return err
	}
	var out []byte
	if pb == nil {
		out = ledger.FormatPlaybook(ledger.PlaybookContent{Signature: p.Signature, Error: p.ErrorText, Excerpt: p.Excerpt,
			Steps: p.Steps, Evidence: evidenceRefs(p.Evidence)})
	} else {
		if err := pb.Err(); err != nil {
			return err
		}
		out, _ = ledger.AppendPlaybook(pb.Source(), pb, p.Steps, evidenceRefs(p.Evidence))
	}
	if err := os.MkdirAll(b.PlaybooksDir, 0o755); err != nil {
		return err
	}
	if err := fsx.WriteFile(b.playbookFile(p.Signature), out, 0o644); err != nil {
		return err
	}
	now = now.UTC().Truncate(time.Second)
	p.Status, p.Reviewer, p.ReviewedAt = StatusApproved, reviewer, &now
	p.History = append(p.History, Event{Action: "approved", By: reviewer, At: now, NewContent: ledger.FormatSteps(p.Steps)})
	return b.Proposals.Save(p)
}
