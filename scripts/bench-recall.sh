#!/usr/bin/env bash
# Whole-process figures of recall (issue 5's targets) on this machine:
#   - building the index of 10,000 tasks (documents per second)
#   - recall p50 with a current index (hybrid, bm25, dense)
#   - one changed fact re-indexed and queried
#   - peak RSS of the build and of a recall
#   - LoCoMo retrieval quality: turns, facts and sessions, with intervals
#     and the paired test (eval retrieval --group-by conv)
# The tasks come from the Beads generator and LoCoMo from the shared
# benchmark data, which is not part of this repository: point
# MEMCTL_BENCH_DATA at its directory (default ../shared/bench).
#
#   scripts/bench-recall.sh [path/to/memctl]
set -euo pipefail
memctl=${1:-$(pwd)/bin/memctl}
data=${MEMCTL_BENCH_DATA:-$(pwd)/../shared/bench}
gen="$data/beads/gen_beads_jsonl.py"
[ -x "$memctl" ] || { echo "build memctl first (make build)" >&2; exit 2; }
[ -f "$gen" ] || { echo "no Beads generator at $gen; set MEMCTL_BENCH_DATA" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)" >&2; exit 2; }

ws=$(mktemp -d)
trap 'rm -rf "$ws"' EXIT
cd "$ws"
git init -q .
"$memctl" init 2>/dev/null
python3 "$gen" -n 10000 -o .beads/issues.jsonl --seed 42 >/dev/null
printf '# Architecture\n\n- We use PostgreSQL 16 for metadata; the log stays on local disk.\n' > .ledger/facts/architecture.md

echo "== build: 10,000 tasks"
/usr/bin/time -f "build: %e s, peak RSS %M KB" "$memctl" index
echo "== recall p50, index current"
q="flaky integration tests on the build server"
hyperfine -N --warmup 3 --runs 40 --export-json recall.json \
  "$memctl recall '$q'" "$memctl recall '$q' --mode bm25" "$memctl recall '$q' --mode dense"
python3 -c 'import json; [print("p50 %-60s %.1f ms" % (r["command"][-60:], r["median"]*1000)) for r in json.load(open("recall.json"))["results"]]'
/usr/bin/time -f "recall: peak RSS %M KB" "$memctl" recall "$q" >/dev/null
echo "== one changed fact, re-indexed and queried"
hyperfine -N --warmup 2 --runs 20 --export-json change.json \
  --prepare "sh -c 'echo \"- Fact written at \$(date +%s%N).\" >> .ledger/facts/architecture.md'" \
  "$memctl recall 'which database do we use'"
python3 -c 'import json; r=json.load(open("change.json"))["results"][0]; print("p50 change+recall %.1f ms" % (r["median"]*1000))'
if [ -d "$data/locomo" ]; then
  echo "== LoCoMo (shared half: turns, facts, sessions), --group-by conv"
  "$memctl" eval retrieval "$data/locomo" --group-by conv
fi
