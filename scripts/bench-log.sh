#!/usr/bin/env bash
# Times `memctl log` on a repository whose .beads/issues.jsonl has COMMITS
# (default 500) commits, each changing the priority of 1 to 4 of N issues
# (default 10000) made by the Beads generator in the shared benchmark data
# (MEMCTL_BENCH_DATA, default ../shared/bench), then packed as git gc packs
# (git repack -adf). The repository is made with git fast-import in a
# temporary directory (or in KEEP, and kept there), never in this tree.
#
#   scripts/bench-log.sh [path/to/memctl]
#   N=1000 COMMITS=500 KEEP=/tmp/log1k scripts/bench-log.sh
set -euo pipefail
memctl=${1:-$(pwd)/bin/memctl}
data=${MEMCTL_BENCH_DATA:-$(pwd)/../shared/bench}
gen="$data/beads/gen_beads_jsonl.py"
n=${N:-10000}
commits=${COMMITS:-500}
[ -x "$memctl" ] || { echo "build memctl first (make build)" >&2; exit 2; }
[ -f "$gen" ] || { echo "no Beads generator at $gen; set MEMCTL_BENCH_DATA" >&2; exit 2; }

repo=${KEEP:-$(mktemp -d)}
[ -n "${KEEP:-}" ] || trap 'rm -rf "$repo"' EXIT
git init -q "$repo"
python3 "$gen" -n "$n" -o "$repo/base.jsonl" --seed 42 >/dev/null
python3 - "$repo" "$commits" <<'PY'
import json, random, subprocess, sys
repo, commits = sys.argv[1], int(sys.argv[2])
lines = open(repo + "/base.jsonl").read().splitlines()
rng = random.Random(1)
p = subprocess.Popen(["git", "fast-import", "--quiet"], cwd=repo, stdin=subprocess.PIPE)
w = p.stdin
def data(b):
    w.write(b"data %d\n" % len(b)); w.write(b); w.write(b"\n")
for c in range(commits):
    if c > 0:
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(lines))
            rec = json.loads(lines[i])
            rec["priority"] = rng.randint(0, 4)
            rec["updated_at"] = "2026-02-01T00:00:%02dZ" % (c % 60)
            lines[i] = json.dumps(rec, separators=(",", ":"), ensure_ascii=False)
    w.write(b"commit refs/heads/main\n")
    w.write(b"committer Bench <bench@example.com> %d +0000\n" % (1767225600 + c * 60))
    data(b"change %d" % c)
    w.write(b"M 100644 inline .beads/issues.jsonl\n")
    data(("\n".join(lines) + "\n").encode())
w.close()
sys.exit(p.wait())
PY
rm "$repo/base.jsonl"
cd "$repo"
git symbolic-ref HEAD refs/heads/main
git reset -q --hard
git repack -adfq
echo "$(git rev-list --count HEAD) commits, $n issues, .git $(du -sh .git | cut -f1)"
for args in "log -n 20" "log" ; do
	/usr/bin/time -f "memctl $args: %e s wall, %U s user, %S s sys, %M KB peak" "$memctl" $args >/dev/null
done
