#!/usr/bin/env bash
# Drives the full-screen `memctl review` in tmux, as a person would, in a
# 100x20 terminal, and checks what a person sees:
#   1. the counter and the proposal id stay in view in 20 rows;
#   2. a fact full of Markdown characters is shown, and approved, as it is;
#   3. an unchanged edit goes back to the choice, says so and keeps the
#      cursor on Edit; Esc leaves the edit; an edit with a secret is refused,
#      says why and comes back on Edit;
#   4. empty feedback goes back to the choice, says so and keeps the cursor
#      on Reject (Enter must not approve); reject with feedback;
#   5. q quits the review (exit 0); Ctrl-C and SIGTERM interrupt it (exit 130),
#      nothing applied.
# It prints each screen (capture-pane) and exits 1 if a check fails.
# Needs tmux. Usage: scripts/review-tmux.sh [path/to/memctl]
set -euo pipefail
memctl=${1:-$(pwd)/bin/memctl}
command -v tmux >/dev/null || { echo "needs tmux (apt-get install tmux)" >&2; exit 2; }
ws=$(mktemp -d)
session=memctl-review-$$
trap 'tmux kill-session -t $session 2>/dev/null || true; rm -rf "$ws"' EXIT
cd "$ws"
git init -q .
git config user.name "Rita Reviewer"
git config user.email rita@example.com
"$memctl" init 2>/dev/null
printf -- '- Keys are at most 256 bytes. <!-- id:old-1 -->\n' >> .ledger/facts/invariants.md
fact='Run `go test -run Test_*` with *two* __underscores__, a \ and [docs](x) <b>not bold</b>.'
MEMCTL_ACTOR=claude-agent "$memctl" propose --category pitfalls --reason "Run 41 lost an hour to port clashes" \
  --text "$fact" --evidence run:r-41 >/dev/null
sleep 1 # oldest first: the Markdown fact is the first screen
MEMCTL_ACTOR=claude-agent "$memctl" propose --action update --fact old-1 --reason "limit raised in v2" \
  --text "Keys are at most 512 bytes." >/dev/null

failed=0
check() { # check WHAT PATTERN: the screen shows PATTERN (fixed string)
  if ! tmux capture-pane -p -t "$session" | grep -qF -- "$2"; then echo "FAIL: $1: no \"$2\" on the screen" >&2; failed=1; fi
}
screen() { sleep 1; echo "----- $1"; tmux capture-pane -p -t "$session" | sed '/^$/d'; }
start() { tmux new-session -d -s "$session" -x 100 -y 20 "cd '$ws' && '$memctl' review; echo EXIT=\$?; sleep 30"; }

start
screen "first proposal, 20 rows"
check "counter and id in 20 rows" "[1 of 2] p-"
check "the fact as it is" "$fact"
tmux send-keys -t "$session" Down Enter
screen "edit"
tmux send-keys -t "$session" Enter
screen "unchanged edit: back to the choice, on Edit, saying why"
check "unchanged edit goes back" "Decision on [1 of 2]"
check "unchanged edit says why" "The edit left the fact unchanged; nothing approved."
check "unchanged edit keeps the cursor on Edit" "> Edit, then approve"
tmux send-keys -t "$session" Enter
sleep 1
tmux send-keys -t "$session" Escape
screen "Esc in the edit: back to the choice, on Edit"
check "Esc leaves the edit" "Decision on [1 of 2]"
check "Esc keeps the cursor on Edit" "> Edit, then approve"
tmux send-keys -t "$session" Enter
sleep 1
tmux send-keys -t "$session" " token gh""p_R8x2Lq9ZpT4vW7nK1mB5cY3dF6gH0jS2aE9u" Enter
screen "an edit with a secret: refused, asked again on Edit"
check "the refusal says why" 'Not applied: field "text" contains what looks like a secret'
check "the refusal keeps the cursor on Edit" "> Edit, then approve"
tmux send-keys -t "$session" Up Enter
screen "approved; second proposal"
tmux send-keys -t "$session" Down Down Enter
screen "reject: feedback"
tmux send-keys -t "$session" Enter
screen "empty feedback: back to the choice, on Reject, saying why"
check "empty feedback says why" "No feedback given; nothing rejected."
check "empty feedback keeps the cursor on Reject" "> Reject with feedback"
tmux send-keys -t "$session" Enter
screen "reject: feedback again"
tmux send-keys -t "$session" "Keep it in the task notes; it is specific to CI." Enter
screen "done"
check "exit 0" "EXIT=0"
tmux kill-session -t "$session"

MEMCTL_ACTOR=claude-agent "$memctl" propose --category pitfalls --reason "r" --text "Another fact." >/dev/null
start
sleep 1
tmux send-keys -t "$session" q
screen "q quits"
check "q quits with exit 0" "EXIT=0"
tmux kill-session -t "$session"
start
sleep 1
tmux send-keys -t "$session" C-c
screen "Ctrl-C interrupts"
check "Ctrl-C exits 130" "EXIT=130"
tmux kill-session -t "$session"
start
sleep 1
kill -TERM "$(pgrep -P "$(tmux list-panes -t "$session" -F '#{pane_pid}')" -x memctl)"
screen "SIGTERM interrupts"
check "SIGTERM exits 130" "EXIT=130"
tmux kill-session -t "$session"

echo "----- result"
"$memctl" proposals --status all
"$memctl" facts pitfalls
grep -qF -- "- $fact <!--" .ledger/facts/*.md || { echo "FAIL: the approved line is not the fact as proposed" >&2; failed=1; }
[ "$("$memctl" proposals --status pending | wc -l)" = 1 ] || { echo "FAIL: q or Ctrl-C decided something" >&2; failed=1; }
exit $failed
