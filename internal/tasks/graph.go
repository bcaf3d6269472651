package tasks

import (
	"cmp"
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
// slices indexed by the issue's record (its line among the store's
// records: Issue.idx), so building the graph of 10,000 issues costs one
// map lookup per edge.
//
// Over a store opened from the cache and not changed since, the graph is
// the cache's: nothing is computed, and each issue is read from the cache
// when it is first asked for, so a command that needs a few issues (show,
// ready) touches only those.
type Graph struct {
	Store *Store
	// issues[k] is record k's live issue, nil for other records (and,
	// over the cache, for issues not read yet).
	issues []*Issue
	// Computed graphs (view == nil) hold the edges by record:
	parents  [][]int32 // targets of k's parent-child edges
	children [][]int32 // records with a parent-child edge to k
	in       [][]int32 // records with any edge to k, each once
	blocksIn []int32   // incoming blocks edges
	allIn    []int32   // incoming edges of any type
	blocked  [][]string
	// view is the cache the graph is read from, or nil.
	view *cacheView
}

// NewGraph builds the graph of s, or opens the cache's when s was opened
// from the cache and has not changed.
func NewGraph(s *Store) *Graph {
	if s.lz != nil && s.lz.clean() {
		return &Graph{Store: s, issues: make([]*Issue, s.lz.v.nRecs), view: s.lz.v}
	}
	s.full() // changed since it was opened: the cache's graph may be stale
	n := len(s.records)
	g := &Graph{Store: s, issues: make([]*Issue, n), parents: make([][]int32, n), children: make([][]int32, n),
		in: make([][]int32, n), blocksIn: make([]int32, n), allIn: make([]int32, n), blocked: make([][]string, n)}
	for k, r := range s.records {
		if r.Issue != nil {
			r.Issue.idx = k
			if r.Kind == KindIssue {
				g.issues[k] = r.Issue
			}
		}
	}
	for k, iss := range g.issues {
		if iss != nil {
			g.addEdges(k, iss)
		}
	}
	direct := make([][]string, n)
	for k, iss := range g.issues {
		if iss != nil {
			direct[k] = g.directBlockers(iss)
		}
	}
	// Blocked-ness is inherited down parent-child edges, transitively.
	state := make([]int8, n) // 0 unknown, 1 visiting, 2 done
	var visit func(k int) bool
	visit = func(k int) bool {
		switch state[k] {
		case 1:
			return false // a parent cycle: no inheritance around it
		case 2:
			return g.blocked[k] != nil
		}
		state[k] = 1
		iss := g.issues[k]
		if !canBeBlocked(iss) {
			state[k] = 2
			return false
		}
		by := direct[k]
		var viaParent []string
		for _, p := range g.parents[k] {
			if visit(int(p)) {
				viaParent = append(viaParent, g.issues[p].ID)
			}
		}
		if len(by) == 0 {
			by = viaParent
		}
		state[k] = 2
		if len(by) > 0 {
			g.blocked[k] = by
			return true
		}
		return false
	}
	for k, iss := range g.issues {
		if iss != nil {
			visit(k)
		}
	}
	return g
}

// addEdges records the edges of iss, the live issue of record k, on their
// live targets.
func (g *Graph) addEdges(k int, iss *Issue) {
	for _, d := range iss.Deps {
		t := g.Store.live(d.DependsOnID)
		if !g.node(t) {
			continue
		}
		g.allIn[t.idx]++
		if in := g.in[t.idx]; len(in) == 0 || in[len(in)-1] != int32(k) {
			g.in[t.idx] = append(in, int32(k))
		}
		switch d.Type {
		case DepBlocks:
			g.blocksIn[t.idx]++
		case DepParentChild:
			g.parents[k] = append(g.parents[k], int32(t.idx))
			g.children[t.idx] = append(g.children[t.idx], int32(k))
		}
	}
}

// sameEdges reports whether an issue kept its id and edges (its status
// may have changed).
func sameEdges(old, cur *Issue) bool {
	if old == nil || cur == nil {
		return old == cur
	}
	return old == cur || old.ID == cur.ID && old.Status != StatusTombstone && cur.Status != StatusTombstone && slices.Equal(old.Deps, cur.Deps)
}

// reblock recomputes, over the cache v, the blocked sets that a change of
// status class (open, closed, pinned) of the records in moved can
// change: theirs, their dependents', and those inherited below them
// through parent-child edges. It reports false when it cannot (a waits-for
// gate watches statuses; a parent cycle makes the result depend on the
// order of the walk): then the graph must be built anew.
func (s *Store) reblock(v *cacheView, moved []int) (map[int][]string, bool) {
	if v.waits() {
		return nil, false
	}
	g := &Graph{Store: s, issues: make([]*Issue, v.nRecs), view: v}
	affected := map[int]bool{}
	var queue []int
	push := func(k int) {
		if !affected[k] {
			affected[k] = true
			queue = append(queue, k)
		}
	}
	for _, k := range moved {
		push(k)
		for _, d := range v.list(k, eIn) {
			push(int(d))
		}
	}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		for _, c := range v.list(k, eChildren) {
			push(int(c))
		}
	}
	out := map[int][]string{}
	state := map[int]int8{} // 1 visiting, 2 done
	cycle := false
	var visit func(k int) bool
	visit = func(k int) bool {
		if !affected[k] {
			return le.Uint32(v.entry(k)[eBlocked+4:]) > 0
		}
		switch state[k] {
		case 1:
			cycle = true
			return false
		case 2:
			return out[k] != nil
		}
		state[k] = 1
		defer func() { state[k] = 2 }()
		iss := g.at(k)
		if iss == nil || !canBeBlocked(iss) {
			out[k] = nil
			return false
		}
		by := g.directBlockers(iss)
		var via []string
		for _, p := range v.list(k, eParents) {
			if visit(int(p)) {
				via = append(via, g.at(int(p)).ID)
			}
		}
		if len(by) == 0 {
			by = via
		}
		if len(by) == 0 {
			by = nil
		}
		out[k] = by
		return by != nil
	}
	for k := range affected {
		visit(k)
	}
	return out, !cycle
}

// sameShape reports whether an issue changed only in what the graph does
// not read: its edges and its status class are the same.
func sameShape(old, cur *Issue) bool {
	return old == cur || sameEdges(old, cur) && statusClass(old.Status) == statusClass(cur.Status)
}

// statusClass is what the graph reads of a status: closed, pinned or
// other.
func statusClass(st string) int {
	switch st {
	case StatusClosed:
		return 1
	case StatusPinned:
		return 2
	}
	return 0
}

// at returns record k's live issue, or nil.
func (g *Graph) at(k int) *Issue {
	if k < 0 || k >= len(g.issues) {
		return nil
	}
	if g.issues[k] == nil && g.view != nil {
		if r := g.Store.recordAt(k); r.Kind == KindIssue {
			g.issues[k] = r.Issue
		}
	}
	return g.issues[k]
}

// node reports whether iss belongs to this graph (it may be a tombstone or
// come from another store).
func (g *Graph) node(iss *Issue) bool {
	if iss == nil || iss.idx >= len(g.issues) {
		return false
	}
	if iss.transient {
		return g.view != nil
	}
	return g.at(iss.idx) == iss
}

func (g *Graph) parentsOf(k int) []int32 {
	if g.view != nil {
		return g.view.list(k, eParents)
	}
	return g.parents[k]
}

func (g *Graph) childrenOf(k int) []int32 {
	if g.view != nil {
		return g.view.list(k, eChildren)
	}
	return g.children[k]
}

func (g *Graph) inOf(k int) []int32 {
	if g.view != nil {
		return g.view.list(k, eIn)
	}
	return g.in[k]
}

func (g *Graph) blockedOf(k int) []string {
	if g.view != nil {
		return g.view.blockedBy(k)
	}
	return g.blocked[k]
}

func (g *Graph) countsOf(k int) (blocksIn, allIn int32) {
	if g.view != nil {
		return g.view.counts(k)
	}
	return g.blocksIn[k], g.allIn[k]
}

// statusAt returns the status of record k's issue without reading it.
func (g *Graph) statusAt(k int) string {
	if g.view != nil && g.issues[k] == nil {
		return g.view.str(g.view.entry(k)[eStatus:])
	}
	if iss := g.at(k); iss != nil {
		return iss.Status
	}
	return ""
}

// epicDone reports whether the epic iss has children and all are closed.
func (g *Graph) epicDone(iss *Issue) bool {
	if !g.node(iss) {
		return false
	}
	kids := g.childrenOf(iss.idx)
	for _, k := range kids {
		if g.statusAt(int(k)) != StatusClosed {
			return false
		}
	}
	return len(kids) > 0
}

// issuesAt returns the live issues of records ks.
func (g *Graph) issuesAt(ks []int32) []*Issue {
	var out []*Issue
	for _, k := range ks {
		if iss := g.at(int(k)); iss != nil {
			out = append(out, iss)
		}
	}
	return out
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
	return g.node(iss) && g.blockedOf(iss.idx) != nil
}

// BlockedBy returns the ids blocking iss: its direct blockers, or the
// blocked parents it inherits from.
func (g *Graph) BlockedBy(iss *Issue) []string {
	if !g.node(iss) {
		return nil
	}
	return g.blockedOf(iss.idx)
}

// Parent returns the first parent-child target of iss, or nil.
func (g *Graph) Parent(iss *Issue) *Issue {
	if !g.node(iss) {
		return nil
	}
	if ps := g.parentsOf(iss.idx); len(ps) > 0 {
		return g.at(int(ps[0]))
	}
	return nil
}

// Children returns the issues with a parent-child edge to id.
func (g *Graph) Children(id string) []*Issue {
	if t := g.Store.live(id); g.node(t) {
		return g.issuesAt(g.childrenOf(t.idx))
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
	b, _ := g.countsOf(iss.idx)
	return out, int(b)
}

// AllCounts returns the numbers of outgoing and incoming edges of every
// type, as bd's show counts them.
func (g *Graph) AllCounts(iss *Issue) (out, in int) {
	if !g.node(iss) {
		return len(iss.Deps), 0
	}
	_, a := g.countsOf(iss.idx)
	return len(iss.Deps), int(a)
}

// Dependents returns the issues with an edge to id, in store order.
func (g *Graph) Dependents(id string) []*Issue {
	if t := g.Store.live(id); g.node(t) {
		return g.issuesAt(g.inOf(t.idx))
	}
	var out []*Issue // edges to an id that is not a live issue
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
	var keys []sortKey
	g.each(func(v *cacheView, k int) bool { return v.maybeReady(k) }, func(iss *Issue) {
		if g.isReady(iss, f, now) && (within == nil || within[g.at(iss.idx)]) {
			keys = append(keys, keyOf(iss, iss.idx))
		}
	})
	total := len(keys)
	return g.issuesOf(firstKeys(keys, f.Sort, now, f.Limit)), total
}

// each calls fn with each live issue of the graph's store, in store
// order; over the cache, only with those whose entries keep accepts, as
// transient reads (Store.scan).
func (g *Graph) each(keep func(v *cacheView, k int) bool, fn func(iss *Issue)) {
	if g.view != nil {
		g.Store.scanWhere(keep, fn)
		return
	}
	for _, iss := range g.Store.Issues() {
		fn(iss)
	}
}

// issuesOf returns the issues the keys name (by record).
func (g *Graph) issuesOf(keys []sortKey) []*Issue {
	if g.view != nil && len(keys) > 64 {
		ks := make([]int, len(keys))
		for i, k := range keys {
			ks[i] = k.at
		}
		g.Store.readMany(ks)
	}
	out := make([]*Issue, len(keys))
	for i, k := range keys {
		out[i] = g.at(k.at)
	}
	return out
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
	for _, k := range g.parentsOf(iss.idx) {
		if p := g.at(int(k)); p != nil && !p.DeferUntil.IsZero() && p.DeferUntil.After(now) {
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
	var keys []sortKey
	g.each(func(v *cacheView, k int) bool { return v.isBlocked(k) }, func(iss *Issue) {
		if g.IsBlocked(iss) {
			keys = append(keys, keyOf(iss, iss.idx))
		}
	})
	sortKeys(keys, SortPriority, time.Time{})
	return g.issuesOf(keys)
}

// countBlocked returns how many issues are blocked.
func (g *Graph) countBlocked() int {
	n := 0
	if g.view != nil { // the entries say it: no issue need be read
		for k := range g.view.nRecs {
			if g.view.isBlocked(k) {
				n++
			}
		}
		return n
	}
	g.each(nil, func(iss *Issue) {
		if g.IsBlocked(iss) {
			n++
		}
	})
	return n
}

// SortIssues orders issues by a sort policy: priority (priority, then
// newest first, then id), oldest (created_at, then id) or hybrid (issues
// from the last 48 hours by priority and then oldest first, then older
// ones oldest first).
func SortIssues(issues []*Issue, policy string, now time.Time) {
	keys := make([]sortKey, len(issues))
	for i, iss := range issues {
		keys[i] = keyOf(iss, i)
	}
	sortKeys(keys, policy, now)
	sorted := make([]*Issue, len(issues))
	for i, k := range keys {
		sorted[i] = issues[k.at]
	}
	copy(issues, sorted)
}

// sortKey is what the sort policies read of an issue; at is where it came
// from.
type sortKey struct {
	at       int
	priority int
	created  int64 // UnixNano; 0 for none
	id       string
}

func keyOf(iss *Issue, at int) sortKey {
	k := sortKey{at: at, priority: iss.Priority, id: iss.ID}
	if !iss.CreatedAt.IsZero() {
		k.created = iss.CreatedAt.UnixNano()
	}
	return k
}

// Each policy ends on the id and then the position, so the order is total
// and an unstable sort gives the stable one.
func sortKeys(keys []sortKey, policy string, now time.Time) {
	slices.SortFunc(keys, keyOrder(policy, now))
}

// firstKeys returns the first n keys in the policy's order (all of them,
// sorted, when n is 0 or covers them): a partial selection, so that a page
// of a long list does not sort the whole list.
func firstKeys(keys []sortKey, policy string, now time.Time, n int) []sortKey {
	if n <= 0 || len(keys) <= 4*n {
		sortKeys(keys, policy, now)
		if n > 0 && len(keys) > n {
			keys = keys[:n]
		}
		return keys
	}
	order := keyOrder(policy, now)
	// A max-heap of the n best keys so far: its root is the worst of them.
	h := slices.Clone(keys[:n])
	less := func(i, j int) bool { return order(h[i], h[j]) > 0 }
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= len(h) {
				return
			}
			if c+1 < len(h) && less(c+1, c) {
				c++
			}
			if !less(c, i) {
				return
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	for i := n/2 - 1; i >= 0; i-- {
		down(i)
	}
	for _, k := range keys[n:] {
		if order(k, h[0]) < 0 {
			h[0] = k
			down(0)
		}
	}
	slices.SortFunc(h, order)
	return h
}

// keyOrder compares keys by a sort policy.
func keyOrder(policy string, now time.Time) func(a, b sortKey) int {
	last := func(a, b sortKey) int {
		if c := strings.Compare(a.id, b.id); c != 0 {
			return c
		}
		return a.at - b.at
	}
	byPriority := func(a, b sortKey) int {
		if a.priority != b.priority {
			return a.priority - b.priority
		}
		if a.created != b.created {
			return cmp.Compare(b.created, a.created)
		}
		return last(a, b)
	}
	byAge := func(a, b sortKey) int {
		if a.created != b.created {
			return cmp.Compare(a.created, b.created)
		}
		return last(a, b)
	}
	switch policy {
	case SortOldest:
		return byAge
	case SortHybrid:
		cut := now.Add(-48 * time.Hour).UnixNano()
		return func(a, b sortKey) int {
			ra, rb := a.created > cut, b.created > cut
			switch {
			case ra && rb: // by priority, then oldest first as bd 1.0.5 does
				if a.priority != b.priority {
					return a.priority - b.priority
				}
				return byAge(a, b)
			case ra:
				return -1
			case rb:
				return 1
			}
			return byAge(a, b)
		}
	}
	return byPriority
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
