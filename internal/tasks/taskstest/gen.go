// Package taskstest makes Beads-shaped issues.jsonl data for tests and
// benchmarks, from a seeded generator so every run sees the same bytes.
package taskstest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

var (
	verbs  = []string{"Add", "Fix", "Refactor", "Remove", "Document", "Test", "Optimize", "Migrate", "Cache"}
	nouns  = []string{"ledger writer", "ready queue", "JSON output", "config loader", "merge driver", "lock file", "search index"}
	labels = []string{"backend", "cli", "docs", "perf", "agent", "storage", "tests"}
	people = []string{"alice", "bob", "carol", "claude-agent", "codex-agent"}
)

// JSONL returns n issue lines in bd's export shape (ids bench-<n>, a third
// closed, about 1.5 blocking edges per issue pointing at older issues,
// labels and some comments), about 700 bytes a line like a real export.
func JSONL(r *rand.Rand, n int) []byte {
	var b strings.Builder
	b.Grow(n * 750)
	for i := range n {
		id := fmt.Sprintf("bench-%x", i)
		title := fmt.Sprintf("%s %s #%d", verbs[r.IntN(len(verbs))], nouns[r.IntN(len(nouns))], i)
		desc := strings.Repeat("Agents call this from scripts. Keep output stable. ", 1+r.IntN(4))
		who := people[r.IntN(len(people))]
		fmt.Fprintf(&b, `{"id":%q,"title":%q,"description":%q,`, id, title, desc)
		if r.IntN(3) == 0 {
			fmt.Fprintf(&b, `"status":"closed","priority":%d,"issue_type":"task","assignee":%q,"created_at":"2026-01-02T03:04:05Z","created_by":%q,"updated_at":"2026-01-03T03:04:05Z","closed_at":"2026-01-03T03:04:05Z","close_reason":"Done",`, r.IntN(5), who, who)
		} else {
			fmt.Fprintf(&b, `"status":"open","priority":%d,"issue_type":"task","created_at":"2026-01-02T03:04:05Z","created_by":%q,"updated_at":"2026-01-03T03:04:05Z",`, r.IntN(5), who)
		}
		fmt.Fprintf(&b, `"labels":[%q,%q]`, labels[r.IntN(len(labels))], labels[r.IntN(len(labels))])
		if i > 0 {
			b.WriteString(`,"dependencies":[`)
			for k := range 1 + r.IntN(2) {
				if k > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `{"issue_id":%q,"depends_on_id":"bench-%x","type":"blocks","created_at":"2026-01-02T03:04:05Z","created_by":%q}`, id, r.IntN(i), who)
			}
			b.WriteByte(']')
		}
		if r.IntN(4) == 0 {
			fmt.Fprintf(&b, `,"comments":[{"id":%d,"issue_id":%q,"author":%q,"text":"Looked at it; see the design notes.","created_at":"2026-01-02T03:04:05Z"}]`, i+1, id, who)
		}
		b.WriteString("}\n")
	}
	return []byte(b.String())
}

// Graph returns n issues that exercise every readiness rule: epics with
// children (some two levels deep), blocks, conditional-blocks and
// waits-for edges (all- and any-children gates), related edges, every
// status, pinned and ephemeral issues, excluded types, and defer dates
// before and after now.
func Graph(r *rand.Rand, n int, now time.Time) []byte {
	statuses := []string{"open", "open", "open", "open", "in_progress", "closed", "closed", "blocked", "deferred", "pinned"}
	types := []string{"task", "task", "task", "bug", "feature", "epic", "epic", "chore", "gate", "message"}
	var ids []string
	var epics []string
	var b strings.Builder
	for i := range n {
		id := fmt.Sprintf("g-%x", i)
		var deps []string
		if len(epics) > 0 && r.IntN(3) == 0 {
			p := epics[r.IntN(len(epics))]
			k := 1
			for strings.Contains(strings.Join(ids, " "), p+"."+fmt.Sprint(k)+" ") || contains(ids, p+"."+fmt.Sprint(k)) {
				k++
			}
			if strings.Count(p, ".") < 2 {
				id = fmt.Sprintf("%s.%d", p, k)
				deps = append(deps, fmt.Sprintf(`{"issue_id":%q,"depends_on_id":%q,"type":"parent-child","created_at":"2026-01-01T00:00:00Z"}`, id, p))
			}
		}
		typ := types[r.IntN(len(types))]
		st := statuses[r.IntN(len(statuses))]
		fmt.Fprintf(&b, `{"id":%q,"title":"issue %d","status":%q,"priority":%d,"issue_type":%q,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"`, id, i, st, r.IntN(5), typ)
		if st == "closed" {
			b.WriteString(`,"closed_at":"2026-02-01T00:00:00Z"`)
		}
		switch r.IntN(12) {
		case 0:
			b.WriteString(`,"pinned":true`)
		case 1:
			b.WriteString(`,"ephemeral":true`)
		case 2:
			fmt.Fprintf(&b, `,"defer_until":%q`, now.Add(time.Duration(r.IntN(480)-240)*time.Hour).UTC().Format(time.RFC3339))
		}
		for k := 0; k < r.IntN(3) && len(ids) > 0; k++ {
			t := ids[r.IntN(len(ids))]
			if strings.HasPrefix(id, t+".") {
				continue
			}
			switch x := r.IntN(10); {
			case x < 6:
				deps = append(deps, fmt.Sprintf(`{"issue_id":%q,"depends_on_id":%q,"type":"blocks","created_at":"2026-01-01T00:00:00Z"}`, id, t))
			case x < 7:
				deps = append(deps, fmt.Sprintf(`{"issue_id":%q,"depends_on_id":%q,"type":"conditional-blocks","created_at":"2026-01-01T00:00:00Z"}`, id, t))
			case x < 8 && len(epics) > 0:
				gate := []string{"all-children", "any-children"}[r.IntN(2)]
				deps = append(deps, fmt.Sprintf(`{"issue_id":%q,"depends_on_id":%q,"type":"waits-for","created_at":"2026-01-01T00:00:00Z","metadata":"{\"gate\":\"%s\"}"}`, id, epics[r.IntN(len(epics))], gate))
			default:
				deps = append(deps, fmt.Sprintf(`{"issue_id":%q,"depends_on_id":%q,"type":"related","created_at":"2026-01-01T00:00:00Z"}`, id, t))
			}
		}
		if len(deps) > 0 {
			b.WriteString(`,"dependencies":[` + strings.Join(dedupeTargets(deps), ",") + `]`)
		}
		b.WriteString("}\n")
		ids = append(ids, id)
		if typ == "epic" {
			epics = append(epics, id)
		}
	}
	return []byte(b.String())
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// dedupeTargets keeps one edge per target, as bd allows one per pair.
func dedupeTargets(deps []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range deps {
		i := strings.Index(d, `"depends_on_id":"`)
		t := d[i+len(`"depends_on_id":"`):]
		t = t[:strings.IndexByte(t, '"')]
		if !seen[t] {
			seen[t] = true
			out = append(out, d)
		}
	}
	return out
}
