// Package taskstest makes Beads-shaped issues.jsonl data for tests and
// benchmarks, from a seeded generator so every run sees the same bytes.
package taskstest

import (
	"fmt"
	"math/rand/v2"
	"strings"
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
