// Package tasks is memctl's Beads-compatible task graph: the records of
// .beads/issues.jsonl, read and written so that bd reads them back and no
// record or field memctl does not understand is lost (Store, Parse); the
// operations agents run on it (Create, Update, Claim, Close, AddDep,
// AddComment, each through the write gate); the graph that answers ready
// and blocked (Graph); the keyed three-way merge the git merge driver and
// resolve use (Merge, Resolve); and a derived cache for fast reads.
package tasks
