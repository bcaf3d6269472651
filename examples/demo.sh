#!/usr/bin/env bash
# make demo: memctl's main job on the bundled example workspace. The
# workspace is copied to a temporary git repository first, so this never
# changes examples/. Usage: examples/demo.sh /path/to/memctl
set -euo pipefail
memctl=${1:?usage: examples/demo.sh /path/to/memctl}
src=$(cd "$(dirname "$0")/workspace" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -R "$src/." "$tmp/"
# The person's own preferences are searched too: the demo gets none of
# yours, so that it prints the same on every machine.
export XDG_CONFIG_HOME="$tmp/.config"
cd "$tmp"
git init -q .

if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold='' plain=''; fi
# quote prints one argument as a shell would need it typed: bare when it is
# made of safe characters, else in single quotes ('\'' for a quote inside).
quote() {
	case $1 in
	'' | *[!A-Za-z0-9_./:=@%+,-]*) printf "'%s'" "${1//\'/\'\\\'\'}" ;;
	*) printf '%s' "$1" ;;
	esac
}
# step prints a command line, each argument quoted as typed, so that it can
# be copied into a shell as it stands.
step() {
	local line="\$" a
	line+=" memctl"
	for a in "$@"; do line+=" $(quote "$a")"; done
	printf '\n%s%s%s\n' "$bold" "$line" "$plain"
}
run() { step "$@"; "$memctl" "$@"; }

echo "Example workspace copied to $tmp (a fresh git repository)."

run init
run facts
run facts invariants --json
run facts --stats
run check

echo
echo "Facts change only through proposals that a person reviews."
run proposals
run review p-3kq9x2a
run review p-3kq9x2a --approve --reviewer demo-reviewer
run facts pitfalls
MEMCTL_ACTOR=demo-agent run propose --category preferences --reason "saw it in a review" --text "Prefer table-driven tests."
echo "(a secret is refused, and never printed)"
set +e
MEMCTL_ACTOR=demo-agent "$memctl" propose --category pitfalls --reason "deploy notes" --text "Deploy with GITHUB_TOKEN=ghp_R8x2Lq9ZpT4vW7nK1mB5cY3dF6gH0jS2aE9u"
set -e

echo
echo "Tasks: the Beads-compatible graph in .beads/issues.jsonl, as an agent uses it."
export MEMCTL_ACTOR=demo-agent
run ready
run blocked
run ready --json
run update kv-d02 --claim
run close kv-8f2 --reason "p99 PUT latency down to 3 ms"
echo "(closing kv-8f2 unblocks kv-a7d)"
run ready
run create "Add a /healthz endpoint" -t feature -p 2 --deps discovered-from:kv-a7d
run stats

echo
echo "Session start: what an agent reads first, cut to a token budget (here 300)."
run prime --budget-tokens 300

echo
echo "Recall: what do we know? Words and meaning, offline, with file and line."
run recall "why do the tests flake" -k 3
run recall "how big may a value be" -k 2 --json
run recall "compaction" --kind task
run index --status

echo
echo "CI gate: a facts file over its line budget fails memctl check (here the per-file budget is lowered to 8 lines)."
printf '[facts]\nmax_lines = 800\nmax_file_lines = 8\n\n[tasks]\nprefix = "kv"\n' > .ledger/config.toml
step check --format github
set +e
"$memctl" check --format github
code=$?
set -e
echo "(exit status $code: 1 means findings, as CI expects)"
[ "$code" -eq 1 ] || { echo "demo: expected memctl check to fail with 1" >&2; exit 1; }

echo
echo "Demo done. Try it in your own repository: memctl init"
