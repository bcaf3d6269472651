package recall

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/index"
	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/proposal"
	"github.com/memctl/memctl/internal/tasks"
)

// Sources are the kinds of documents recall searches.
func Sources() []index.Source {
	return []index.Source{factSource{}, taskSource{}, proposalSource{}, playbookSource{}, runSource{}}
}

// under joins names listed in the directory rel to it, as slash paths.
func under(rel string, names []string, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = path.Join(rel, n)
	}
	return out, nil
}

// factSource: one document per fact in .ledger/facts/*.md.
type factSource struct{}

func (factSource) Kind() string { return index.KindFact }

func (factSource) Files(root string) ([]string, error) {
	names, err := ledger.FileNames(filepath.Join(root, filepath.FromSlash(config.FactsDir)), config.FactsDir)
	return under(config.FactsDir, names, err)
}

func (factSource) Docs(file string, data []byte) ([]index.Doc, error) {
	category := strings.TrimSuffix(path.Base(file), ".md")
	f := ledger.Parse(category, file, data)
	if len(f.ConflictLines) > 0 {
		// Keep what the index had from before the merge, as for an
		// issues file with markers.
		return nil, fmt.Errorf("conflict markers from line %d: resolve the merge, then git add it", f.ConflictLines[0])
	}
	docs := make([]index.Doc, 0, len(f.Facts))
	for _, fact := range f.Facts {
		docs = append(docs, index.Doc{
			ID: index.KindFact + ":" + fact.ID, Kind: index.KindFact, Ref: fact.ID, Body: fact.Text,
			File: file, Line: fact.Line, Category: category, Status: "approved", Priority: -1, Approved: true,
		})
	}
	return docs, nil
}

// taskSource: one document per issue in .beads/issues.jsonl.
type taskSource struct{}

func (taskSource) Kind() string { return index.KindTask }

func (taskSource) Files(string) ([]string, error) { return []string{config.IssuesFile}, nil }

func (taskSource) Docs(file string, data []byte) ([]index.Doc, error) {
	s, err := tasks.Parse(data)
	if err != nil {
		return nil, err
	}
	issues := s.Issues()
	docs := make([]index.Doc, 0, len(issues))
	for _, iss := range issues {
		var body []string
		for _, part := range []string{iss.Description, iss.Design, iss.AcceptanceCriteria, iss.Notes} {
			if part != "" {
				body = append(body, part)
			}
		}
		if iss.Comments > 0 {
			for _, c := range s.Comments(iss) {
				body = append(body, c.Text)
			}
		}
		line := 0
		if r := iss.Record(); r != nil {
			line = r.Line
		}
		docs = append(docs, index.Doc{
			ID: index.KindTask + ":" + iss.ID, Kind: index.KindTask, Ref: iss.ID, Title: iss.Title, Body: strings.Join(body, "\n"),
			File: file, Line: line, Status: iss.Status, Labels: iss.Labels, Priority: iss.Priority,
			Created: iss.CreatedAt,
		})
	}
	return docs, nil
}

// proposalSource: one document per proposal file; only approved text is
// Approved, so pending proposals rank behind facts.
type proposalSource struct{}

func (proposalSource) Kind() string { return index.KindProposal }

func (proposalSource) Files(root string) ([]string, error) {
	d := proposal.Dir{Path: filepath.Join(root, filepath.FromSlash(config.ProposalsDir)), Rel: config.ProposalsDir}
	names, err := d.Names()
	return under(config.ProposalsDir, names, err)
}

func (proposalSource) Docs(file string, data []byte) ([]index.Doc, error) {
	p, err := proposal.Decode(data, file)
	if err != nil {
		// A broken proposal is check's to report; recall skips it.
		return nil, nil
	}
	body := p.Content
	if p.IsPlaybook() {
		body = strings.TrimSpace(strings.Join([]string{p.Signature, p.ErrorText, p.Excerpt, ledger.FormatSteps(p.Steps)}, "\n"))
	}
	if p.Reason != "" {
		body += "\nReason: " + p.Reason
	}
	if p.Feedback != "" {
		body += "\nFeedback: " + p.Feedback
	}
	return []index.Doc{{
		ID: index.KindProposal + ":" + p.ID, Kind: index.KindProposal, Ref: p.ID, Body: body, File: file,
		Category: p.Category, Status: p.Status, Priority: -1, Created: p.CreatedAt,
	}}, nil
}

// playbookSource: one document per playbook in .ledger/playbooks/*.md:
// titled by the first line of its error text, the steps as its body.
type playbookSource struct{}

func (playbookSource) Kind() string { return index.KindPlaybook }

func (playbookSource) Files(root string) ([]string, error) {
	names, err := ledger.PlaybookNames(filepath.Join(root, filepath.FromSlash(config.PlaybooksDir)), config.PlaybooksDir)
	return under(config.PlaybooksDir, names, err)
}

func (playbookSource) Docs(file string, data []byte) ([]index.Doc, error) {
	p := ledger.ParsePlaybook(file, data)
	if len(p.ConflictLines) > 0 {
		return nil, fmt.Errorf("conflict markers from line %d: resolve the merge, then git add it", p.ConflictLines[0])
	}
	if p.Signature == "" {
		// Without its heading the file names no signature; check
		// reports it.
		return nil, nil
	}
	return []index.Doc{{
		ID: index.KindPlaybook + ":" + p.Signature, Kind: index.KindPlaybook, Ref: p.Signature, Title: p.Title(),
		Body: ledger.FormatSteps(p.StepTexts()), File: file, Status: "approved", Priority: -1, Approved: true,
	}}, nil
}
