#!/usr/bin/env bash
# Times `memctl check` as a whole process on the workspace of the check
# target: 1,000 proposal files, a 10,000-line .beads/issues.jsonl and about
# 800 lines of facts. The issues come from the Beads generator in the shared
# benchmark data, which is not part of this repository: point
# MEMCTL_BENCH_DATA at its directory (default ../shared/bench).
#
#   scripts/bench-check.sh [path/to/memctl]
set -euo pipefail
memctl=${1:-$(pwd)/bin/memctl}
data=${MEMCTL_BENCH_DATA:-$(pwd)/../shared/bench}
gen="$data/beads/gen_beads_jsonl.py"
[ -x "$memctl" ] || { echo "build memctl first (make build)" >&2; exit 2; }
[ -f "$gen" ] || { echo "no Beads generator at $gen; set MEMCTL_BENCH_DATA" >&2; exit 2; }

ws=$(mktemp -d)
trap 'rm -rf "$ws"' EXIT
cd "$ws"
git init -q .
"$memctl" init 2>/dev/null
python3 "$gen" -n 10000 -o .beads/issues.jsonl --seed 7 >/dev/null
for i in $(seq -w 0 999); do
  printf '{\n  "schema_version": 1,\n  "id": "p%s",\n  "action": "add",\n  "category": "pitfalls",\n  "content": "Proposal %s: keep the ready queue sorted.",\n  "reason": "seen in a run",\n  "status": "pending",\n  "created_at": "2026-11-20T00:00:00Z"\n}\n' "$i" "$i" > ".ledger/proposals/p$i.json"
done
for cat in architecture invariants performance_rules pitfalls preferences; do
  { echo "# $cat"; echo; for i in $(seq 155); do echo "- $cat fact $i: the index is a cache, rebuilt from files; never commit it."; done; } > ".ledger/facts/$cat.md"
done
"$memctl" check
if command -v hyperfine >/dev/null; then
  hyperfine --warmup 3 --runs 30 -N "$memctl check"
else
  time "$memctl" check
fi
