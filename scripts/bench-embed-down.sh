#!/usr/bin/env bash
# What a configured embedder that is down costs a recall (issue 15),
# measured from the built binary on a workspace of 300 facts and 100 tasks:
#   - the built-in embedder (the baseline)
#   - an Ollama whose port is closed (stopped), index made while it ran:
#     the first recall after it stopped, and the ones after it
#   - the same with 20 new facts it has not embedded yet (every recall's
#     update tries to embed them)
#   - a server that accepts the connection and never answers (hung)
# Medians of RUNS runs (default 11) by a shell loop, in milliseconds. The
# Ollama is a small Python server (python3) on a free localhost port; no
# network is used.
#
#   scripts/bench-embed-down.sh [path/to/memctl]
set -euo pipefail
memctl=$(realpath "${1:-bin/memctl}")
runs=${RUNS:-11}
[ -x "$memctl" ] || { echo "build memctl first (make build)" >&2; exit 2; }

ws=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$ws"' EXIT
export XDG_CONFIG_HOME="$ws/.config" HOME="$ws" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
mkdir -p "$XDG_CONFIG_HOME/memctl" "$ws/repo"
cd "$ws/repo"
git init -q .
"$memctl" init >/dev/null 2>&1
words=(parser index lock cache schema deploy flaky test port build server token budget query vector
  merge conflict retry timeout backup metrics tracing auth login session queue worker batch disk config)
for c in 1 2 3 4 5 6; do
  {
    printf '# Topic %d\n\n' "$c"
    for i in $(seq 1 50); do
      printf -- '- Fact %d.%d: the %s uses the %s with the %s, never the %s.\n' "$c" "$i" \
        "${words[$(((c * 7 + i) % 30))]}" "${words[$(((c + i * 3) % 30))]}" "${words[$(((i * 11) % 30))]}" "${words[$(((c * i) % 30))]}"
    done
  } >".ledger/facts/topic$c.md"
done
for i in $(seq 1 100); do
  "$memctl" create "task $i: fix the ${words[$((i % 30))]} in the ${words[$(((i * 7) % 30))]}" --silent >/dev/null
done

# ms CMD...: the command's wall time in milliseconds.
ms() {
  local a b
  a=$(date +%s%N)
  "$@" >/dev/null 2>&1 || true
  b=$(date +%s%N)
  echo $(((b - a) / 1000000))
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
q="which parser do we use for the schema"
state=.git/memctl/embedder-down.json

# serve PORTFILE MODE: a fake Ollama (MODE ok) or a server that accepts
# and never answers (MODE hang) on a free port, written to PORTFILE.
serve() {
  python3 - "$1" "$2" <<'PY' &
import hashlib, http.server, json, socket, sys, time
portfile, mode = sys.argv[1], sys.argv[2]
if mode == "hang":
    s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(128)
    open(portfile, "w").write(str(s.getsockname()[1]))
    conns = []
    while True:
        c, _ = s.accept(); conns.append(c)
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        req = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        vecs = [[b / 255 - 0.5 for b in hashlib.sha256(t.encode()).digest() * 2] for t in req["input"]]
        body = json.dumps({"embeddings": vecs}).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(portfile, "w").write(str(srv.server_address[1]))
srv.serve_forever()
PY
  pids+=($!)
  while [ ! -s "$1" ]; do sleep 0.05; done
}
ollama() {
  printf '[embed]\nprovider = "ollama"\nmodel = "nomic-embed-text"\nurl = "http://127.0.0.1:%s"\n' "$1" >"$XDG_CONFIG_HOME/memctl/config.toml"
}
# first_and_after LABEL: the first recall with no memory of a failure
# (median of 5), then the recalls after it (median of $runs).
first_and_after() {
  local firsts=() after=()
  for _ in 1 2 3 4 5; do
    rm -f "$state"
    firsts+=("$(ms "$memctl" recall "$q")")
  done
  for _ in $(seq "$runs"); do after+=("$(ms "$memctl" recall "$q")"); done
  printf '%-44s first %5d ms   after %5d ms\n' "$1" \
    "$(printf '%s\n' "${firsts[@]}" | median)" "$(printf '%s\n' "${after[@]}" | median)"
}

echo "memctl: $memctl"
rm -f "$XDG_CONFIG_HOME/memctl/config.toml"
"$memctl" index >/dev/null 2>&1
base=()
for _ in $(seq "$runs"); do base+=("$(ms "$memctl" recall "$q")"); done
printf '%-44s       %5s      every %5d ms\n' "built-in embedder" "" "$(printf '%s\n' "${base[@]}" | median)"

serve "$ws/port" ok
port=$(cat "$ws/port")
ollama "$port"
"$memctl" index >/dev/null 2>&1
up=()
for _ in $(seq "$runs"); do up+=("$(ms "$memctl" recall "$q")"); done
printf '%-44s       %5s      every %5d ms\n' "ollama (fake, up)" "" "$(printf '%s\n' "${up[@]}" | median)"
kill "${pids[-1]}"
wait "${pids[-1]}" 2>/dev/null || true
first_and_after "ollama stopped (port closed)"

for c in 7 8; do
  printf '# Topic %d\n\n' "$c" >".ledger/facts/topic$c.md"
  for i in $(seq 1 10); do printf -- '- New fact %d.%d about the %s.\n' "$c" "$i" "${words[$i]}" >>".ledger/facts/topic$c.md"; done
done
first_and_after "ollama stopped, 20 facts not embedded"

if [ "${HANG:-1}" = 1 ]; then
  serve "$ws/hport" hang
  ollama "$(cat "$ws/hport")"
  rm -f "$state"
  printf '%-44s first %5d ms   ' "server accepts, never answers" "$(ms "$memctl" recall "$q")"
  after=()
  for _ in $(seq "$runs"); do after+=("$(ms "$memctl" recall "$q")"); done
  printf 'after %5d ms\n' "$(printf '%s\n' "${after[@]}" | median)"
fi
