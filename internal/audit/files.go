package audit

import (
	"path"
	"strings"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/proposal"
	"github.com/memctl/memctl/internal/runs"
	"github.com/memctl/memctl/internal/secrets"
)

// diffFile names what changed in the file at rel between its versions
// before and after (had and has: whether each exists).
func diffFile(rel string, before, after []byte, had, has bool) []Entry {
	dir, name := path.Split(rel)
	dir = strings.TrimSuffix(dir, "/")
	switch {
	case rel == config.IssuesFile:
		return diffTasks(rel, before, after)
	case rel == config.ConfigFile:
		return []Entry{{File: rel, Kind: KindConfig, Action: fileAction(had, has, "added", "changed", "removed")}}
	case dir == config.FactsDir && strings.HasSuffix(name, ".md") && !strings.HasPrefix(name, "."):
		return diffFacts(rel, strings.TrimSuffix(name, ".md"), before, after, had, has)
	case dir == config.ProposalsDir && strings.HasSuffix(name, ".json"):
		return diffProposal(rel, before, after, had, has)
	case strings.HasPrefix(rel, config.RunsDir+"/") && strings.HasSuffix(name, ".json"):
		return []Entry{diffRun(rel, before, after, had, has)}
	case dir == config.PlaybooksDir && strings.HasSuffix(name, ".md"):
		return []Entry{diffPlaybook(rel, before, after, had, has)}
	}
	return []Entry{{File: rel, Kind: KindFile, Action: fileAction(had, has, "added", "changed", "removed")}}
}

func fileAction(had, has bool, added, changed, removed string) string {
	switch {
	case !had:
		return added
	case !has:
		return removed
	}
	return changed
}

// factCategory is the category of a facts file's path.
func factCategory(rel string) string {
	return strings.TrimSuffix(path.Base(rel), ".md")
}

// firstWords is s on one line, cut after about 60 characters at a word,
// with its secrets redacted first: a cut must not leave part of one.
func firstWords(s string) string {
	if out, found, err := secrets.Redact(s); err == nil && len(found) > 0 {
		s = out
	}
	s = strings.Join(strings.Fields(s), " ")
	const most = 60
	if utf8.RuneCountInString(s) <= most {
		return s
	}
	cut := 0
	for i := range s {
		if utf8.RuneCountInString(s[:i]) > most {
			break
		}
		if s[i] == ' ' {
			cut = i
		}
	}
	if cut == 0 {
		r := []rune(s)
		return string(r[:most]) + "…"
	}
	return s[:cut] + "…"
}

// diffFacts compares two versions of a facts file by fact id. A fact
// whose id is derived from its text gets another id when its words
// change: facts removed and added in the same commit, as many of each,
// are paired in file order as edits.
func diffFacts(rel, category string, before, after []byte, had, has bool) []Entry {
	var old, cur []ledger.Fact
	if had {
		old = ledger.Parse(category, rel, before).Facts
	}
	if has {
		cur = ledger.Parse(category, rel, after).Facts
	}
	oldByID := map[string]ledger.Fact{}
	for _, f := range old {
		oldByID[f.ID] = f
	}
	curIDs := map[string]bool{}
	for _, f := range cur {
		curIDs[f.ID] = true
	}
	var out []Entry
	var added []ledger.Fact
	for _, f := range cur {
		prev, ok := oldByID[f.ID]
		switch {
		case !ok:
			added = append(added, f)
		case prev.Text != f.Text:
			out = append(out, Entry{File: rel, Kind: KindFact, ID: f.ID, Action: "edited", Text: firstWords(f.Text)})
		}
	}
	var removed []ledger.Fact
	for _, f := range old {
		if !curIDs[f.ID] {
			removed = append(removed, f)
		}
	}
	if len(added) > 0 && len(added) == len(removed) {
		for i, f := range added {
			out = append(out, Entry{File: rel, Kind: KindFact, ID: f.ID, Action: "edited",
				Details: []string{"id " + removed[i].ID + "→" + f.ID}, Text: firstWords(f.Text), Related: []string{removed[i].ID}})
		}
		return out
	}
	for _, f := range added {
		out = append(out, Entry{File: rel, Kind: KindFact, ID: f.ID, Action: "added", Text: firstWords(f.Text)})
	}
	for _, f := range removed {
		out = append(out, Entry{File: rel, Kind: KindFact, ID: f.ID, Action: "removed", Text: firstWords(f.Text)})
	}
	if len(out) == 0 && had != has {
		// A facts file with no facts made or deleted: a category came or went.
		out = append(out, Entry{File: rel, Kind: KindFile, Action: fileAction(had, has, "added", "changed", "removed")})
	}
	return out
}

// diffProposal names what happened to a proposal file: filed, approved,
// rejected, withdrawn, edited or removed.
func diffProposal(rel string, before, after []byte, had, has bool) []Entry {
	id := strings.TrimSuffix(path.Base(rel), ".json")
	var old, cur *proposal.Proposal
	var err error
	if had {
		if old, err = proposal.Decode(before, rel); err != nil {
			return []Entry{unreadable(rel, KindProposal, id, had, has, err)}
		}
	}
	if has {
		if cur, err = proposal.Decode(after, rel); err != nil {
			return []Entry{unreadable(rel, KindProposal, id, had, has, err)}
		}
	}
	p := cur
	if p == nil {
		p = old
	}
	if p.ID != "" {
		id = p.ID
	}
	e := Entry{File: rel, Kind: KindProposal, ID: id, Text: firstWords(p.Content)}
	for _, f := range []string{p.FactID, p.AppliedFactID} {
		if f != "" && !strings.Contains(strings.Join(e.Related, " "), f) {
			e.Related = append(e.Related, f)
		}
	}
	if p.IsPlaybook() {
		e.Text = "playbook " + p.Signature
	}
	switch {
	case old == nil:
		e.Action = "filed"
		e.Details = []string{proposalWhat(p)}
		if p.Status != proposal.StatusPending {
			e.Details = append(e.Details, p.Status)
		}
	case cur == nil:
		e.Action = "removed"
	case old.Status != cur.Status:
		e.Action = cur.Status
		if cur.Reviewer != "" {
			e.Details = append(e.Details, "by "+cur.Reviewer)
		}
		if cur.AppliedFactID != "" {
			e.Details = append(e.Details, "as fact "+cur.AppliedFactID)
		}
	default:
		e.Action = "edited"
	}
	return []Entry{e}
}

// proposalWhat is what a proposal asks for: "add to pitfalls",
// "update f-1a2b3c4", "steps for playbook <signature>".
func proposalWhat(p *proposal.Proposal) string {
	if p.IsPlaybook() {
		return "steps for a playbook"
	}
	switch p.Action {
	case proposal.ActionAdd:
		return "add to " + p.Category
	case "":
		return p.Category
	}
	return p.Action + " " + p.FactID
}

// unreadable is the entry of a record whose file did not decode at one of
// its versions: what is known is that the file changed.
func unreadable(rel, kind, id string, had, has bool, err error) Entry {
	return Entry{File: rel, Kind: kind, ID: id, Action: fileAction(had, has, "added", "changed", "removed"),
		Details: []string{"unreadable: " + firstWords(err.Error())}}
}

// diffRun names a run record file's change: recorded, updated, removed.
func diffRun(rel string, before, after []byte, had, has bool) Entry {
	id := strings.TrimSuffix(path.Base(rel), ".json")
	data := after
	if !has {
		data = before
	}
	r, err := runs.Decode(data, rel)
	if err != nil {
		e := unreadable(rel, KindRun, id, had, has, err)
		e.Action = fileAction(had, has, "recorded", "updated", "removed")
		return e
	}
	if r.RunID != "" {
		id = r.RunID
	}
	e := Entry{File: rel, Kind: KindRun, ID: id, Action: fileAction(had, has, "recorded", "updated", "removed"),
		Text: firstWords(r.Digest.Intent)}
	if has && r.Status != "" {
		e.Details = []string{r.Status}
	}
	return e
}

// diffPlaybook names a playbook file's change: added, edited, removed.
func diffPlaybook(rel string, before, after []byte, had, has bool) Entry {
	data := after
	if !has {
		data = before
	}
	sig := strings.TrimSuffix(path.Base(rel), ".md")
	title := ledger.ParsePlaybook(rel, data).Title()
	if title == sig {
		title = "" // no error text: the title is the id
	}
	return Entry{File: rel, Kind: KindPlaybook, ID: sig,
		Action: fileAction(had, has, "added", "edited", "removed"), Text: firstWords(title)}
}
