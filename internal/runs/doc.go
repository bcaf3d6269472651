// Package runs keeps the record of every agent run: one JSON file per run
// in .ledger/runs/<yyyy-mm>/<run_id>.json, with what the session set out
// to do, what it changed, the commands and tests it ran, the errors it met
// and the digest the next session reads. Recording a run again merges into
// its file (Merge), so hooks and agents can record as often as they like.
//
// The package reads and writes files only; it never prints, exits or reads
// the clock. Writers take the workspace lock before calling Put.
package runs
