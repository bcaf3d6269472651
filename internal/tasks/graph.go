package tasks

import (
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// excludedReadyTypes are the issue types bd v1.0.5 never lists as ready
// unless asked for by --type.
var excludedReadyTypes = []string{"merge-request", "gate", "molecule", "message", "agent", "role", "rig"}

// Graph is the dependency graph of a store's live issues with the blocked
// state computed as bd v1.0.5 does (BEADS.md §6.1). Per-issue data sits in
// slices indexed by the issue's position, so building the graph of 10,000
// issues costs one map lookup per edge.
type Graph struct {
	Store    *Store
	issues   []*Issue
	parents  [][]*Issue // parents[i.idx]: targets of i's parent-child edges
	children [][]*Issue // children[i.idx]: issues with a parent-child edge to i
	blocksIn []int32    // incoming blocks edges
	allIn    []int32    // incoming edges of any type
	blocked  [][]string // blocked_by ids; nil when not blocked
}

// graphData is a graph as the cache holds it, for the store decoded from
// it: recs is the record list it was computed for.
type graphData struct {
	recs              []*Record
	orig              []*Issue // each record's issue as decoded (nil: none)
	gen               int
	waits             bool // a waits-for edge: a status change can gate others
	issues            []*Issue
	parents, children [][]*Issue
	blocksIn, allIn   []int32
	blocked           [][]string
}

// cachedGraph returns the graph the cache held if the store is still the
// one it was computed for.
func (s *Store) cachedGraph() *Graph {
	gd := s.graph
	if gd == nil || gd.gen != s.gen || len(gd.recs) != len(s.Records) || len(s.Records) > 0 && &gd.recs[0] != &s.Records[0] {
		return nil
	}
	for _, r := range s.Records {
		if r.dirty {
			return nil
		}
	}
	for i, iss := range gd.issues {
		iss.idx = i
	}
	return &Graph{Store: s, issues: gd.issues, parents: gd.parents, children: gd.children,
		blocksIn: gd.blocksIn, allIn: gd.allIn, blocked: gd.blocked}
}

// reuseGraph returns the graph of s built from the cache's graph when the
// changes since loading cannot have changed it: no record was removed or
// replaced, every changed issue kept its edges and its closed, pinned or
// other status, and no waits-for edge exists (a gate watches statuses).
// Issues appended since are added to it. nil means build the graph anew.
func (s *Store) reuseGraph() *Graph {
	gd := s.graph
	if gd == nil || gd.waits || len(s.Records) < len(gd.recs) {
		return nil
	}
	for k, r := range s.Records[:len(gd.recs)] {
		if r != gd.recs[k] || !sameShape(gd.orig[k], r.Issue) {
			return nil
		}
	}
	for _, r := range s.Records[len(gd.recs):] {
		if r.Issue != nil && r.Kind != KindIssue {
			return nil
		}
	}
	for i, iss := range gd.issues {
		iss.idx = i
	}
	n := len(gd.issues)
	g := &Graph{Store: s, issues: make([]*Issue, 0, n+len(s.Records)-len(gd.recs)),
		blocksIn: slices.Clone(gd.blocksIn), allIn: slices.Clone(gd.allIn), blocked: slices.Clone(gd.blocked),
		parents: make([][]*Issue, n), children: make([][]*Issue, n)}
	for _, r := range s.Records {
		if r.Kind == KindIssue {
			r.Issue.idx = len(g.issues)
			g.issues = append(g.issues, r.Issue)
		}
	}
	// The lists point to the decoded issues; map them to the current ones.
	remap := func(list []*Issue) []*Issue {
		if len(list) == 0 {
			return nil
		}
		out := make([]*Issue, len(list))
		for j, p := range list {
			out[j] = g.issues[p.idx]
		}
		return out
	}
	for i := range n {
		g.parents[i], g.children[i] = remap(gd.parents[i]), remap(gd.children[i])
	}
	// Appended issues: nothing depends on them yet, so only their own
	// state and their targets' counts and children change.
	for _, iss := range g.issues[n:] {
		g.parents = append(g.parents, nil)
		g.children = append(g.children, nil)
		g.blocksIn = append(g.blocksIn, 0)
		g.allIn = append(g.allIn, 0)
		g.blocked = append(g.blocked, nil)
		for _, d := range iss.Deps {
			t := s.live(d.DependsOnID)
			if t == nil || !g.node(t) {
				continue
			}
			if t.idx >= n {
				return nil // on another new issue, whose state is not known yet
			}
			g.allIn[t.idx]++
			switch d.Type {
			case DepBlocks:
				g.blocksIn[t.idx]++
			case DepParentChild:
				g.parents[iss.idx] = append(g.parents[iss.idx], t)
				g.children[t.idx] = append(slices.Clip(g.children[t.idx]), iss)
			}
		}
		if !canBeBlocked(iss) {
			continue
		}
		by := g.directBlockers(iss)
		if len(by) == 0 {
			for _, p := range g.parents[iss.idx] {
				if g.blocked[p.idx] != nil {
					by = append(by, p.ID)
				}
			}
		}
		if len(by) > 0 {
			g.blocked[iss.idx] = by
		}
	}
	return g
}

// sameShape reports whether an issue changed only in what the graph does
// not read: its edges and its status class are the same.
func sameShape(old, cur *Issue) bool {
	if old == nil || cur == nil {
		return old == cur
	}
	if old == cur {
		return true
	}
	class := func(st string) int {
		switch st {
		case StatusClosed:
			return 1
		case StatusPinned:
			return 2
		case StatusTombstone:
			return 3
		}
		return 0
	}
	return old.ID == cur.ID && class(old.Status) == class(cur.Status) && slices.Equal(old.Deps, cur.Deps)
}

// NewGraph builds the graph of s (or takes it from the cache s was loaded
// from, when s has not changed since).
func NewGraph(s *Store) *Graph {
	if g := s.cachedGraph(); g != nil {
		return g
	}
	issues := s.Issues()
	n := len(issues)
	g := &Graph{
		Store:    s,
		issues:   issues,
		parents:  make([][]*Issue, n),
		children: make([][]*Issue, n),
		blocksIn: make([]int32, n),
		allIn:    make([]int32, n),
		blocked:  make([][]string, n),
	}
	for i, iss := range issues {
		iss.idx = i
	}
	for _, iss := range issues {
		for _, d := range iss.Deps {
			t := s.live(d.DependsOnID)
			if t == nil {
				continue
			}
			g.allIn[t.idx]++
			switch d.Type {
			case DepBlocks:
				g.blocksIn[t.idx]++
			case DepParentChild:
				g.parents[iss.idx] = append(g.parents[iss.idx], t)
				g.children[t.idx] = append(g.children[t.idx], iss)
			}
		}
	}
	direct := make([][]string, n)
	for _, iss := range issues {
		direct[iss.idx] = g.directBlockers(iss)
	}
	// Blocked-ness is inherited down parent-child edges, transitively.
	state := make([]int8, n) // 0 unknown, 1 visiting, 2 done
	var visit func(*Issue) bool
	visit = func(iss *Issue) bool {
		switch state[iss.idx] {
		case 1:
			return false // a parent cycle: no inheritance around it
		case 2:
			return g.blocked[iss.idx] != nil
		}
		state[iss.idx] = 1
		if !canBeBlocked(iss) {
			state[iss.idx] = 2
			return false
		}
		by := direct[iss.idx]
		var viaParent []string
		for _, p := range g.parents[iss.idx] {
			if visit(p) {
				viaParent = append(viaParent, p.ID)
			}
		}
		if len(by) == 0 {
			by = viaParent
		}
		state[iss.idx] = 2
		if len(by) > 0 {
			g.blocked[iss.idx] = by
			return true
		}
		return false
	}
	for _, iss := range issues {
		visit(iss)
	}
	return g
}

// node reports whether iss belongs to this graph (it may be a tombstone or
// come from another store).
func (g *Graph) node(iss *Issue) bool {
	return iss != nil && iss.idx < len(g.issues) && g.issues[iss.idx] == iss
}

// canBeBlocked: closed and pinned issues are never blocked.
func canBeBlocked(iss *Issue) bool {
	return iss.Status != StatusClosed && iss.Status != StatusPinned
}

// directBlockers returns the ids that block iss directly: open targets of
// blocks and conditional-blocks edges, and the spawners of unmet
// waits-for gates.
func (g *Graph) directBlockers(iss *Issue) []string {
	if !canBeBlocked(iss) {
		return nil
	}
	var by []string
	for _, d := range iss.Deps {
		switch d.Type {
		case DepBlocks, DepConditionalBlocks:
			t := g.Store.live(d.DependsOnID)
			if t != nil && t.Status != StatusClosed && t.Status != StatusPinned && !slices.Contains(by, t.ID) {
				by = append(by, t.ID)
			}
		case DepWaitsFor:
			spawner, gate := waitsFor(d)
			if g.gateUnmet(spawner, gate) && !slices.Contains(by, spawner) {
				by = append(by, spawner)
			}
		}
	}
	return by
}

// waitsFor reads a waits-for edge's metadata: the spawner whose children
// are awaited (spawner_id, else the edge's target) and the gate.
func waitsFor(d Dep) (spawner, gate string) {
	spawner, gate = d.DependsOnID, "all-children"
	if d.Metadata == "" {
		return spawner, gate
	}
	var m struct {
		Gate      string `json:"gate"`
		SpawnerID string `json:"spawner_id"`
	}
	if json.Unmarshal([]byte(d.Metadata), &m) == nil {
		if m.Gate != "" {
			gate = m.Gate
		}
		if m.SpawnerID != "" {
			spawner = m.SpawnerID
		}
	}
	return spawner, gate
}

// gateUnmet: all-children waits while any child of the spawner is not
// closed; any-children waits until one child is closed.
func (g *Graph) gateUnmet(spawner, gate string) bool {
	kids := g.Children(spawner)
	if gate == "any-children" {
		for _, k := range kids {
			if k.Status == StatusClosed {
				return false
			}
		}
		return true
	}
	for _, k := range kids {
		if k.Status != StatusClosed {
			return true
		}
	}
	return false
}

// IsBlocked reports whether iss is blocked.
func (g *Graph) IsBlocked(iss *Issue) bool {
	return g.node(iss) && g.blocked[iss.idx] != nil
}

// BlockedBy returns the ids blocking iss: its direct blockers, or the
// blocked parents it inherits from.
func (g *Graph) BlockedBy(iss *Issue) []string {
	if !g.node(iss) {
		return nil
	}
	return g.blocked[iss.idx]
}

// Parent returns the first parent-child target of iss, or nil.
func (g *Graph) Parent(iss *Issue) *Issue {
	if g.node(iss) && len(g.parents[iss.idx]) > 0 {
		return g.parents[iss.idx][0]
	}
	return nil
}

// Children returns the issues with a parent-child edge to id.
func (g *Graph) Children(id string) []*Issue {
	if t := g.Store.live(id); g.node(t) {
		return g.children[t.idx]
	}
	return nil
}

// BlocksCounts returns the numbers of outgoing and incoming blocks edges,
// which bd's ready and list output call dependency_count and
// dependent_count.
func (g *Graph) BlocksCounts(iss *Issue) (out, in int) {
	for _, d := range iss.Deps {
		if d.Type == DepBlocks {
			out++
		}
	}
	if !g.node(iss) {
		return out, 0
	}
	return out, int(g.blocksIn[iss.idx])
}

// AllCounts returns the numbers of outgoing and incoming edges of every
// type, as bd's show counts them.
func (g *Graph) AllCounts(iss *Issue) (out, in int) {
	if !g.node(iss) {
		return len(iss.Deps), 0
	}
	return len(iss.Deps), int(g.allIn[iss.idx])
}

// Dependents returns the issues with an edge to id, in store order.
func (g *Graph) Dependents(id string) []*Issue {
	var out []*Issue
	for _, iss := range g.Store.Issues() {
		for _, d := range iss.Deps {
			if d.DependsOnID == id {
				out = append(out, iss)
				break
			}
		}
	}
	return out
}

// Sort policies for ready.
const (
	SortPriority = "priority"
	SortOldest   = "oldest"
	SortHybrid   = "hybrid"
)

// ReadyFilter selects and orders ready issues.
type ReadyFilter struct {
	Limit      int // 0 = all
	Sort       string
	Assignee   string
	Unassigned bool
	Labels     []string // all must be present
	Type       string
	Parent     string // transitive descendants of this id
}

// Ready returns the ready issues (BEADS.md §6.1) that match f, sorted, and
// the number there were before the limit.
func (g *Graph) Ready(f ReadyFilter, now time.Time) ([]*Issue, int) {
	var within map[*Issue]bool
	if f.Parent != "" {
		within = g.descendants(f.Parent)
	}
	var out []*Issue
	for _, iss := range g.Store.Issues() {
		if !g.isReady(iss, f, now) {
			continue
		}
		if within != nil && !within[iss] {
			continue
		}
		out = append(out, iss)
	}
	SortIssues(out, f.Sort, now)
	total := len(out)
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, total
}

func (g *Graph) isReady(iss *Issue, f ReadyFilter, now time.Time) bool {
	switch {
	case iss.Status != StatusOpen, iss.Pinned, iss.Ephemeral:
		return false
	case f.Type != "" && iss.IssueType != f.Type:
		return false
	case f.Type == "" && slices.Contains(excludedReadyTypes, iss.IssueType):
		return false
	case !iss.DeferUntil.IsZero() && iss.DeferUntil.After(now):
		return false
	case f.Assignee != "" && iss.Assignee != f.Assignee:
		return false
	case f.Unassigned && iss.Assignee != "":
		return false
	case !hasLabels(iss, f.Labels):
		return false
	case g.IsBlocked(iss):
		return false
	}
	for _, p := range g.parents[iss.idx] {
		if !p.DeferUntil.IsZero() && p.DeferUntil.After(now) {
			return false
		}
	}
	return true
}

func hasLabels(iss *Issue, want []string) bool {
	for _, l := range want {
		if !slices.Contains(iss.Labels, l) {
			return false
		}
	}
	return true
}

// descendants returns every issue below id through parent-child edges,
// and issues whose id starts with "<id>." (bd matches both).
func (g *Graph) descendants(id string) map[*Issue]bool {
	out := map[*Issue]bool{}
	queue := []string{id}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, k := range g.Children(cur) {
			if !out[k] {
				out[k] = true
				queue = append(queue, k.ID)
			}
		}
	}
	for _, iss := range g.Store.Issues() {
		if strings.HasPrefix(iss.ID, id+".") {
			out[iss] = true
		}
	}
	return out
}

// Blocked returns every blocked issue, sorted by priority, then newest
// first, then id.
func (g *Graph) Blocked() []*Issue {
	var out []*Issue
	for _, iss := range g.Store.Issues() {
		if g.IsBlocked(iss) {
			out = append(out, iss)
		}
	}
	SortIssues(out, SortPriority, time.Time{})
	return out
}

// SortIssues orders issues by a sort policy: priority (priority, then
// newest first, then id), oldest (created_at, then id) or hybrid (issues
// from the last 48 hours by priority and then oldest first, then older
// ones oldest first).
func SortIssues(issues []*Issue, policy string, now time.Time) {
	byPriority := func(a, b *Issue) int {
		if a.Priority != b.Priority {
			return a.Priority - b.Priority
		}
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	}
	byAge := func(a, b *Issue) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	}
	switch policy {
	case SortOldest:
		slices.SortStableFunc(issues, byAge)
	case SortHybrid:
		cut := now.Add(-48 * time.Hour)
		slices.SortStableFunc(issues, func(a, b *Issue) int {
			ra, rb := a.CreatedAt.After(cut), b.CreatedAt.After(cut)
			switch {
			case ra && rb: // by priority, then oldest first as bd 1.0.5 does
				if a.Priority != b.Priority {
					return a.Priority - b.Priority
				}
				return byAge(a, b)
			case ra:
				return -1
			case rb:
				return 1
			}
			return byAge(a, b)
		})
	default:
		slices.SortStableFunc(issues, byPriority)
	}
}

// TreeNode is one node of a dependency tree walk.
type TreeNode struct {
	Issue     *Issue
	Depth     int
	ParentID  string // the node it was reached from; "" for the root
	Edge      string // the type of the edge it was reached by
	Truncated bool   // it has more nodes below max depth
}

// Tree walks edges from root: "down" follows what an issue depends on,
// "up" its dependents, "both" either. Every issue appears once.
func (g *Graph) Tree(root *Issue, direction string, maxDepth int) []TreeNode {
	out := []TreeNode{{Issue: root}}
	seen := map[string]bool{root.ID: true}
	var walk func(iss *Issue, depth int)
	walk = func(iss *Issue, depth int) {
		type step struct {
			to   *Issue
			edge string
		}
		var next []step
		if direction != "up" {
			for _, d := range iss.Deps {
				if t, err := g.Store.peek(d.DependsOnID); err == nil {
					next = append(next, step{t, d.Type})
				}
			}
		}
		if direction != "down" {
			for _, dep := range g.Dependents(iss.ID) {
				for _, d := range dep.Deps {
					if d.DependsOnID == iss.ID {
						next = append(next, step{dep, d.Type})
						break
					}
				}
			}
		}
		for _, s := range next {
			if seen[s.to.ID] {
				continue
			}
			if depth+1 > maxDepth {
				out[len(out)-1].Truncated = true
				continue
			}
			seen[s.to.ID] = true
			out = append(out, TreeNode{Issue: s.to, Depth: depth + 1, ParentID: iss.ID, Edge: s.edge})
			walk(s.to, depth+1)
		}
	}
	walk(root, 0)
	return out
}

// Cycles returns the cycles among blocking edges (blocks, parent-child,
// conditional-blocks), each as a path of ids that starts and ends at the
// same issue, in a stable order.
func (g *Graph) Cycles() [][]string {
	issues := g.Store.Issues()
	slices.SortFunc(issues, func(a, b *Issue) int { return strings.Compare(a.ID, b.ID) })
	color := map[string]int8{}
	var stack []string
	var out [][]string
	var visit func(id string)
	visit = func(id string) {
		color[id] = 1
		stack = append(stack, id)
		iss, err := g.Store.peek(id)
		if err == nil {
			for _, d := range iss.Deps {
				if !isBlocking(d.Type) {
					continue
				}
				switch color[d.DependsOnID] {
				case 0:
					visit(d.DependsOnID)
				case 1:
					i := slices.Index(stack, d.DependsOnID)
					cyc := append(slices.Clone(stack[i:]), d.DependsOnID)
					out = append(out, cyc)
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[id] = 2
	}
	for _, iss := range issues {
		if color[iss.ID] == 0 {
			visit(iss.ID)
		}
	}
	return out
}
