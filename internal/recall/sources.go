package recall

import (
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/index"
	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/proposal"
	"github.com/memctl/memctl/internal/tasks"
)

// Sources are the kinds of documents recall searches. Run digests and
// playbooks join as their issue lands: each is one more Source.
func Sources() []index.Source {
	return []index.Source{factSource{}, taskSource{}, proposalSource{}}
}

// listDir lists a directory's files with an extension, as slash paths
// relative to root, sorted.
func listDir(root, rel, ext string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(rel)))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ext) {
			out = append(out, path.Join(rel, e.Name()))
		}
	}
	sort.Strings(out)
	return out, nil
}

// factSource: one document per fact in .ledger/facts/*.md.
type factSource struct{}

func (factSource) Kind() string { return "fact" }

func (factSource) Files(root string) ([]string, error) { return listDir(root, config.FactsDir, ".md") }

func (factSource) Docs(root, file string) ([]index.Doc, error) {
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		return nil, err
	}
	category := strings.TrimSuffix(path.Base(file), ".md")
	f := ledger.Parse(category, file, src)
	docs := make([]index.Doc, 0, len(f.Facts))
	for _, fact := range f.Facts {
		docs = append(docs, index.Doc{
			ID: "fact:" + fact.ID, Kind: "fact", Ref: fact.ID, Body: fact.Text,
			File: file, Line: fact.Line, Category: category, Status: "approved", Priority: -1, Approved: true,
		})
	}
	return docs, nil
}

// taskSource: one document per issue in .beads/issues.jsonl.
type taskSource struct{}

func (taskSource) Kind() string { return "task" }

func (taskSource) Files(string) ([]string, error) { return []string{config.IssuesFile}, nil }

func (taskSource) Docs(root, file string) ([]index.Doc, error) {
	s, err := tasks.Load(filepath.Join(root, filepath.FromSlash(file)))
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
			ID: "task:" + iss.ID, Kind: "task", Ref: iss.ID, Title: iss.Title, Body: strings.Join(body, "\n"),
			File: file, Line: line, Status: iss.Status, Labels: iss.Labels, Priority: iss.Priority,
			Created: iss.CreatedAt,
		})
	}
	return docs, nil
}

// proposalSource: one document per proposal file; only approved text is
// Approved, so pending proposals rank behind facts.
type proposalSource struct{}

func (proposalSource) Kind() string { return "proposal" }

func (proposalSource) Files(root string) ([]string, error) {
	return listDir(root, config.ProposalsDir, ".json")
}

func (proposalSource) Docs(root, file string) ([]index.Doc, error) {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		return nil, err
	}
	p, err := proposal.Decode(data, file)
	if err != nil {
		// A broken proposal is check's to report; recall skips it.
		return nil, nil
	}
	body := p.Content
	if p.Reason != "" {
		body += "\nReason: " + p.Reason
	}
	if p.Feedback != "" {
		body += "\nFeedback: " + p.Feedback
	}
	return []index.Doc{{
		ID: "proposal:" + p.ID, Kind: "proposal", Ref: p.ID, Body: body, File: file,
		Category: p.Category, Status: p.Status, Priority: -1, Created: p.CreatedAt,
	}}, nil
}
