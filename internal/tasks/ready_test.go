package tasks

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/tasks/taskstest"
)

var refNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// refIssue is an issue decoded with encoding/json, independently of the
// store's own reader.
type refIssue struct {
	ID         string `json:"id"`
	Status     string `json:"status"`
	IssueType  string `json:"issue_type"`
	Pinned     bool   `json:"pinned"`
	Ephemeral  bool   `json:"ephemeral"`
	DeferUntil string `json:"defer_until"`
	Deps       []struct {
		DependsOnID string `json:"depends_on_id"`
		Type        string `json:"type"`
		Metadata    string `json:"metadata"`
	} `json:"dependencies"`
}

// reference computes ready and blocked ids the straightforward way, from
// BEADS.md §6.1: iterate the blocked rules to a fixpoint, then filter.
func reference(t *testing.T, data []byte) (ready, blocked []string) {
	t.Helper()
	var all []refIssue
	byID := map[string]*refIssue{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r refIssue
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r.Status == "" {
			r.Status = "open"
		}
		all = append(all, r)
	}
	for i := range all {
		byID[all[i].ID] = &all[i]
	}
	children := map[string][]*refIssue{}
	for i := range all {
		for _, d := range all[i].Deps {
			if d.Type == "parent-child" {
				children[d.DependsOnID] = append(children[d.DependsOnID], &all[i])
			}
		}
	}
	isBlocked := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for _, r := range all {
			if isBlocked[r.ID] || r.Status == "closed" || r.Status == "pinned" {
				continue
			}
			b := false
			for _, d := range r.Deps {
				t := byID[d.DependsOnID]
				switch d.Type {
				case "blocks", "conditional-blocks":
					b = b || (t != nil && t.Status != "closed" && t.Status != "pinned")
				case "parent-child":
					b = b || isBlocked[d.DependsOnID]
				case "waits-for":
					gate := "all-children"
					if strings.Contains(d.Metadata, "any-children") {
						gate = "any-children"
					}
					open, closed := 0, 0
					for _, k := range children[d.DependsOnID] {
						if k.Status == "closed" {
							closed++
						} else {
							open++
						}
					}
					b = b || (gate == "all-children" && open > 0) || (gate == "any-children" && closed == 0)
				}
			}
			if b {
				isBlocked[r.ID], changed = true, true
			}
		}
	}
	deferred := func(r *refIssue) bool {
		if r == nil || r.DeferUntil == "" {
			return false
		}
		d, _ := time.Parse(time.RFC3339, r.DeferUntil)
		return d.After(refNow)
	}
	for i := range all {
		r := &all[i]
		if isBlocked[r.ID] {
			blocked = append(blocked, r.ID)
		}
		ok := r.Status == "open" && !r.Pinned && !r.Ephemeral && !isBlocked[r.ID] && !deferred(r) &&
			!slices.Contains([]string{"merge-request", "gate", "molecule", "message", "agent", "role", "rig"}, r.IssueType)
		for _, d := range r.Deps {
			if d.Type == "parent-child" && deferred(byID[d.DependsOnID]) {
				ok = false
			}
		}
		if ok {
			ready = append(ready, r.ID)
		}
	}
	slices.Sort(ready)
	slices.Sort(blocked)
	return ready, blocked
}

func sortedIDs(issues []*Issue) []string {
	out := make([]string, 0, len(issues))
	for _, i := range issues {
		out = append(out, i.ID)
	}
	slices.Sort(out)
	return out
}

func TestReadyMatchesReferenceOnSeededGraphs(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 30; seed++ {
		data := taskstest.Graph(rand.New(rand.NewPCG(seed, 99)), 300, refNow)
		s, err := Parse(data)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		g := NewGraph(s)
		ready, _ := g.Ready(ReadyFilter{}, refNow)
		wantReady, wantBlocked := reference(t, data)
		if got := sortedIDs(ready); !slices.Equal(got, wantReady) {
			t.Errorf("seed %d: ready differs from the reference:\n got %d %v\nwant %d %v", seed, len(got), got, len(wantReady), wantReady)
		}
		if got := sortedIDs(g.Blocked()); !slices.Equal(got, wantBlocked) {
			t.Errorf("seed %d: blocked differs from the reference:\n got %v\nwant %v", seed, got, wantBlocked)
		}
		if seed == 1 && (len(wantReady) == 0 || len(wantBlocked) == 0) {
			t.Fatalf("generator made a degenerate graph: %d ready, %d blocked", len(wantReady), len(wantBlocked))
		}
	}
}

// line builds an issue line for hand-made cases.
func line(id, extra string) string {
	if extra != "" {
		extra = "," + extra
	}
	return fmt.Sprintf(`{"id":%q,"title":"t %s","priority":2,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"%s}`, id, id, extra)
}

func dep(from, to, typ string) string {
	return fmt.Sprintf(`{"issue_id":%q,"depends_on_id":%q,"type":%q}`, from, to, typ)
}

const closed = `"status":"closed","closed_at":"2026-01-02T00:00:00Z"`

func TestReadyRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name           string
		lines          []string
		ready, blocked []string
		blockedBy      map[string][]string
	}{
		{
			name:    "open blocker blocks, closed blocker does not",
			lines:   []string{line("a", ""), line("b", closed), line("c", `"dependencies":[`+dep("c", "a", "blocks")+`]`), line("d", `"dependencies":[`+dep("d", "b", "blocks")+`]`)},
			ready:   []string{"a", "d"},
			blocked: []string{"c"},
		},
		{
			name:    "only direct blockers count: closing the middle of a chain unblocks the end",
			lines:   []string{line("a", ""), line("b", closed+`,"dependencies":[`+dep("b", "a", "blocks")+`]`), line("c", `"dependencies":[`+dep("c", "b", "blocks")+`]`)},
			ready:   []string{"a", "c"},
			blocked: nil,
		},
		{
			name: "blocked parent blocks its children transitively",
			lines: []string{line("x", ""), line("e", `"issue_type":"epic","dependencies":[`+dep("e", "x", "blocks")+`]`),
				line("e.1", `"dependencies":[`+dep("e.1", "e", "parent-child")+`]`), line("e.1.1", `"dependencies":[`+dep("e.1.1", "e.1", "parent-child")+`]`)},
			ready:     []string{"x"},
			blocked:   []string{"e", "e.1", "e.1.1"},
			blockedBy: map[string][]string{"e": {"x"}, "e.1": {"e"}, "e.1.1": {"e.1"}},
		},
		{
			name:    "an open parent does not block its children, nor they it",
			lines:   []string{line("e", `"issue_type":"epic"`), line("e.1", `"dependencies":[`+dep("e.1", "e", "parent-child")+`]`)},
			ready:   []string{"e", "e.1"},
			blocked: nil,
		},
		{
			name:    "deferred issue and the child of a deferred parent are not ready",
			lines:   []string{line("p", `"defer_until":"2026-07-01T00:00:00Z"`), line("p.1", `"dependencies":[`+dep("p.1", "p", "parent-child")+`]`), line("q", `"defer_until":"2026-05-01T00:00:00Z"`)},
			ready:   []string{"q"},
			blocked: nil,
		},
		{
			name:    "conditional-blocks blocks until the target is closed",
			lines:   []string{line("a", ""), line("b", `"dependencies":[`+dep("b", "a", "conditional-blocks")+`]`)},
			ready:   []string{"a"},
			blocked: []string{"b"},
		},
		{
			name: "waits-for all-children waits for every child, any-children for one",
			lines: []string{line("s", ""), line("s.1", closed+`,"dependencies":[`+dep("s.1", "s", "parent-child")+`]`), line("s.2", `"dependencies":[`+dep("s.2", "s", "parent-child")+`]`),
				line("all", `"dependencies":[{"issue_id":"all","depends_on_id":"s","type":"waits-for","metadata":"{\"gate\":\"all-children\"}"}]`),
				line("any", `"dependencies":[{"issue_id":"any","depends_on_id":"s","type":"waits-for","metadata":"{\"gate\":\"any-children\"}"}]`)},
			ready:   []string{"any", "s", "s.2"},
			blocked: []string{"all"},
		},
		{
			name:    "pinned, ephemeral, excluded types and other statuses are not ready",
			lines:   []string{line("a", `"pinned":true`), line("b", `"ephemeral":true`), line("c", `"issue_type":"gate"`), line("d", `"issue_type":"message"`), line("e", `"status":"in_progress"`), line("f", `"status":"blocked"`), line("g", `"issue_type":"epic"`)},
			ready:   []string{"g"},
			blocked: nil,
		},
		{
			name:    "a pinned blocker does not block; a blocked in_progress issue is listed as blocked",
			lines:   []string{line("p", `"status":"pinned"`), line("a", `"dependencies":[`+dep("a", "p", "blocks")+`]`), line("o", ""), line("w", `"status":"in_progress","dependencies":[`+dep("w", "o", "blocks")+`]`)},
			ready:   []string{"a", "o"},
			blocked: []string{"w"},
		},
		{
			name:    "related and discovered-from edges never block",
			lines:   []string{line("a", ""), line("b", `"dependencies":[`+dep("b", "a", "related")+`,`+dep("b", "a", "discovered-from")+`]`)},
			ready:   []string{"a", "b"},
			blocked: nil,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse([]byte(strings.Join(c.lines, "\n")))
			if err != nil {
				t.Fatal(err)
			}
			g := NewGraph(s)
			ready, _ := g.Ready(ReadyFilter{}, refNow)
			if got := sortedIDs(ready); !slices.Equal(got, c.ready) && !(len(got) == 0 && len(c.ready) == 0) {
				t.Errorf("ready = %v, want %v", got, c.ready)
			}
			if got := sortedIDs(g.Blocked()); !slices.Equal(got, c.blocked) && !(len(got) == 0 && len(c.blocked) == 0) {
				t.Errorf("blocked = %v, want %v", got, c.blocked)
			}
			for id, want := range c.blockedBy {
				iss, _ := s.Get(id)
				if got := g.BlockedBy(iss); !slices.Equal(got, want) {
					t.Errorf("blocked_by(%s) = %v, want %v", id, got, want)
				}
			}
		})
	}
}

func TestReadySortAndFilters(t *testing.T) {
	t.Parallel()
	at := func(d int) string { return fmt.Sprintf(`"created_at":"2026-05-%02dT00:00:00Z"`, d) }
	s, err := Parse([]byte(strings.Join([]string{
		`{"id":"a","title":"a","priority":2,` + at(1) + `,"labels":["x"]}`,
		`{"id":"b","title":"b","priority":1,` + at(2) + `,"assignee":"ann"}`,
		`{"id":"c","title":"c","priority":2,` + at(3) + `,"issue_type":"bug"}`,
		`{"id":"d","title":"d","priority":2,` + at(31) + `}`,
	}, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	g := NewGraph(s)
	order := func(f ReadyFilter) string {
		r, _ := g.Ready(f, refNow)
		return strings.Join(ids2(r), ",")
	}
	if got := order(ReadyFilter{}); got != "b,d,c,a" {
		t.Errorf("priority sort = %s, want b,d,c,a (priority, then newest, then id)", got)
	}
	if got := order(ReadyFilter{Sort: SortOldest}); got != "a,b,c,d" {
		t.Errorf("oldest sort = %s", got)
	}
	if got := order(ReadyFilter{Sort: SortHybrid}); got != "d,a,b,c" {
		t.Errorf("hybrid sort = %s, want the last 48 h first, then oldest", got)
	}
	if got := order(ReadyFilter{Limit: 2}); got != "b,d" {
		t.Errorf("limit = %s", got)
	}
	if got := order(ReadyFilter{Unassigned: true, Labels: []string{"x"}}); got != "a" {
		t.Errorf("label+unassigned = %s", got)
	}
	if got := order(ReadyFilter{Assignee: "ann"}); got != "b" {
		t.Errorf("assignee = %s", got)
	}
	if got := order(ReadyFilter{Type: "bug"}); got != "c" {
		t.Errorf("type = %s", got)
	}
}

func ids2(issues []*Issue) []string {
	out := make([]string, 0, len(issues))
	for _, i := range issues {
		out = append(out, i.ID)
	}
	return out
}

// Within the last 48 hours hybrid orders by priority, then oldest first
// (bd 1.0.5: created_at ascending), unlike the priority sort.
func TestHybridRecentOldestFirstWithinPriority(t *testing.T) {
	t.Parallel()
	recent := func(h int) string {
		return `"created_at":"` + refNow.Add(-time.Duration(h)*time.Hour).UTC().Format(time.RFC3339) + `"`
	}
	s, err := Parse([]byte(strings.Join([]string{
		`{"id":"new","title":"n","priority":2,` + recent(1) + `}`,
		`{"id":"mid","title":"m","priority":2,` + recent(10) + `}`,
		`{"id":"urgent","title":"u","priority":0,` + recent(2) + `}`,
		`{"id":"old","title":"o","priority":0,"created_at":"2020-01-01T00:00:00Z"}`,
	}, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	r, _ := NewGraph(s).Ready(ReadyFilter{Sort: SortHybrid}, refNow)
	if got := strings.Join(ids2(r), ","); got != "urgent,mid,new,old" {
		t.Errorf("hybrid = %s, want urgent,mid,new,old", got)
	}
}

// firstKeys selects what a full sort would put first, in that order, for
// every policy and page size.
func TestFirstKeysIsTheSortedPrefix(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(31, 32))
	for range 200 {
		keys := make([]sortKey, r.IntN(300))
		for i := range keys {
			keys[i] = sortKey{at: i, priority: r.IntN(3), created: refNow.Add(-time.Duration(r.IntN(96)) * time.Hour).UnixNano(),
				id: fmt.Sprintf("g-%d", r.IntN(50))}
		}
		for _, policy := range []string{SortPriority, SortOldest, SortHybrid} {
			n := r.IntN(40)
			want := slices.Clone(keys)
			sortKeys(want, policy, refNow)
			if n > 0 && len(want) > n {
				want = want[:n]
			}
			if got := firstKeys(slices.Clone(keys), policy, refNow, n); !slices.Equal(got, want) {
				t.Fatalf("%s, first %d of %d: got %v, want %v", policy, n, len(keys), got, want)
			}
		}
	}
}
