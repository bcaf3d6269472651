#!/usr/bin/env bash
# Times `memctl check --secrets --history` as a whole process on a
# repository of N commits (default 400) of what memctl writes in a working
# day: a line of .beads/issues.jsonl (growing to N lines), a run record,
# every tenth commit a fact, and one secret committed and removed again.
# Once loose (as commits leave objects), once packed (git gc), as a clone
# is. Not run in CI.
#
#   scripts/bench-secrets-history.sh [path/to/memctl] [commits]
set -euo pipefail
memctl=${1:-$(pwd)/bin/memctl}
n=${2:-400}
[ -x "$memctl" ] || { echo "build memctl first (make build)" >&2; exit 2; }

ws=$(mktemp -d)
[ -n "${KEEP:-}" ] && echo "workspace: $ws" >&2 || trap 'rm -rf "$ws"' EXIT
cd "$ws"
git init -q .
git config user.name Bench
git config user.email bench@example.com
"$memctl" init --prefix mc 2>/dev/null
git add -A
git commit -qm init
mkdir -p .ledger/runs/2026-01
token="ghp_$(printf 'R8x2Lq9ZpT4vW7nK1mB5cY3dF6gH0jS2aE9u')"
for i in $(seq 1 "$n"); do
  printf '{"id":"mc-%d","title":"Fix the auth token refresh in module %d","description":"The API key cache expires early. See design notes.","status":"open","priority":2,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}\n' "$i" "$((i % 97))" >> .beads/issues.jsonl
  printf '{\n  "schema_version": 1,\n  "run_id": "r-%04d",\n  "digest": {"intent": "fix module %d", "gotchas": ["run the tests with -p 1"]}\n}\n' "$i" "$i" > ".ledger/runs/2026-01/r-$(printf %04d "$i").json"
  if [ $((i % 10)) = 0 ]; then echo "- Module $i keeps its cache for 10 minutes." >> .ledger/facts/pitfalls.md; fi
  if [ "$i" = $((n / 3)) ]; then echo "- CI pushes with $token" >> .ledger/facts/invariants.md; fi
  if [ "$i" = $((2 * n / 3)) ]; then sed -i '/CI pushes with/d' .ledger/facts/invariants.md; fi
  git add -A
  git commit -qm "day $i"
done
time_it() {
  if command -v hyperfine >/dev/null; then
    hyperfine --warmup 1 --runs 10 -i -N "$memctl check --secrets --history"
  else
    for _ in 1 2 3; do /usr/bin/time -f "%e s wall, %U s user, %S s sys, %M KB" "$memctl" check --secrets --history >/dev/null || true; done
  fi
}
echo "loose objects:"
time_it
git gc -q
echo "packed (git gc):"
time_it
