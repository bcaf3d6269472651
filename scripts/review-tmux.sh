#!/usr/bin/env bash
# Drives the full-screen `memctl review` in tmux, as a person would: it
# files two proposals, opens the review, approves the first with Enter,
# rejects the second with feedback, and prints each screen (capture-pane).
# Needs tmux. Usage: scripts/review-tmux.sh [path/to/memctl]
set -euo pipefail
memctl=${1:-$(pwd)/bin/memctl}
command -v tmux >/dev/null || { echo "needs tmux (apt-get install tmux)" >&2; exit 2; }
ws=$(mktemp -d)
trap 'tmux kill-session -t memctl-review 2>/dev/null || true; rm -rf "$ws"' EXIT
cd "$ws"
git init -q .
git config user.name "Rita Reviewer"
git config user.email rita@example.com
"$memctl" init 2>/dev/null
printf -- '- Keys are at most 256 bytes. <!-- id:old-1 -->\n' >> .ledger/facts/invariants.md
MEMCTL_ACTOR=claude-agent "$memctl" propose --category pitfalls --reason "Run 41 lost an hour to port clashes" \
  --text "The integration tests share port 7070; run them with -p 1." --evidence run:r-41 >/dev/null
MEMCTL_ACTOR=claude-agent "$memctl" propose --action update --fact old-1 --reason "limit raised in v2" \
  --text "Keys are at most 512 bytes." >/dev/null

screen() { sleep 1; echo "----- $1"; tmux capture-pane -p -t memctl-review | sed '/^$/d'; }
tmux new-session -d -s memctl-review -x 100 -y 34 "cd '$ws' && '$memctl' review; echo EXIT=\$?; sleep 5"
screen "first proposal"
tmux send-keys -t memctl-review Enter
screen "approved; second proposal"
tmux send-keys -t memctl-review Down Down Enter
screen "reject: feedback"
tmux send-keys -t memctl-review "Keep it in the task notes; it is specific to CI." Enter
screen "done"
echo "----- result"
"$memctl" proposals --status all
"$memctl" facts invariants
