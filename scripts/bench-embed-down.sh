#!/usr/bin/env bash
# What a configured embedder that is down costs a recall (issue 15),
# measured from the built binary on a workspace of 300 facts and 100 tasks:
#   - the built-in embedder (the baseline)
#   - an Ollama whose port is closed (stopped), index made while it ran:
#     the first recall after it stopped, and the ones after it
#   - the same with 20 new facts it has not embedded yet (every recall's
#     update tries to embed them)
#   - a server that accepts the connection and never answers (hung)
# Medians of RUNS runs (default 11) by a shell loop, in milliseconds, each
# run of a case next to a run of the baseline in a copy of the workspace
# (the same load on a shared machine); "added" is the median of the
# differences. The Ollama is a small Python server (python3) on a free
# localhost port; no network is used.
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
mkdir -p "$XDG_CONFIG_HOME/memctl" "$ws/base"
cd "$ws/base"
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

# ms DIR: the wall time of a recall in DIR, in milliseconds.
q="which parser do we use for the schema"
ms() {
  local a b
  a=$(date +%s%N)
  (cd "$1" && XDG_CONFIG_HOME="$1/.xdg" "$memctl" recall "$q" >/dev/null 2>&1) || true
  b=$(date +%s%N)
  echo $(((b - a) / 1000000))
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# serve PORTFILE MODE: a fake Ollama (MODE ok) or a server that accepts
# and never answers (MODE hang) on a free port, written to PORTFILE.
serve() {
  python3 - "$1" "$2" <<'PY' &
import hashlib, http.server, json, socket, sys
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
# ollama DIR PORT: DIR's workspace embeds with an Ollama on PORT (DIR's
# own user config, which ms and index read).
ollama() {
  mkdir -p "$1/.xdg/memctl"
  printf '[embed]\nprovider = "ollama"\nmodel = "nomic-embed-text"\nurl = "http://127.0.0.1:%s"\n' "$2" >"$1/.xdg/memctl/config.toml"
}
index() { (cd "$1" && XDG_CONFIG_HOME="$1/.xdg" "$memctl" index >/dev/null 2>&1); }
# measure LABEL DIR FIRSTS AFTERS: FIRSTS recalls in DIR with no memory of
# a failure, then AFTERS recalls, each next to one in the baseline.
measure() {
  local label=$1 dir=$2 b x firsts=() after=() dfirst=() dafter=()
  for _ in $(seq "$3"); do
    rm -f "$dir/.git/memctl/embedder-down.json"
    x=$(ms "$dir"); b=$(ms "$ws/base")
    firsts+=("$x"); dfirst+=($((x - b)))
  done
  for _ in $(seq "$4"); do
    x=$(ms "$dir"); b=$(ms "$ws/base")
    after+=("$x"); dafter+=($((x - b)))
  done
  printf '%-40s first %6d ms (added %6d)   after %5d ms (added %5d)\n' "$label" \
    "$(printf '%s\n' "${firsts[@]}" | median)" "$(printf '%s\n' "${dfirst[@]}" | median)" \
    "$(printf '%s\n' "${after[@]}" | median)" "$(printf '%s\n' "${dafter[@]}" | median)"
}

echo "memctl: $memctl; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
index "$ws/base"
cp -a "$ws/base" "$ws/down"

# down: its index made while the Ollama ran, then the Ollama stopped.
serve "$ws/port" ok
ollama "$ws/down" "$(cat "$ws/port")"
index "$ws/down"
cp -a "$ws/down" "$ws/missing"
cp -a "$ws/down" "$ws/hang"
kill "${pids[-1]}"
wait "${pids[-1]}" 2>/dev/null || true
base=()
for _ in $(seq "$runs"); do base+=("$(ms "$ws/base")"); done
printf '%-40s every %6d ms\n' "built-in embedder (baseline)" "$(printf '%s\n' "${base[@]}" | median)"
measure "ollama stopped (port closed)" "$ws/down" 5 "$runs"

# missing: 20 new facts the stopped Ollama has not embedded.
for c in 7 8; do
  printf '# Topic %d\n\n' "$c" >"$ws/missing/.ledger/facts/topic$c.md"
  for i in $(seq 1 10); do printf -- '- New fact %d.%d about the %s.\n' "$c" "$i" "${words[$i]}" >>"$ws/missing/.ledger/facts/topic$c.md"; done
done
measure "ollama stopped, 20 facts not embedded" "$ws/missing" 5 "$runs"

# hang: a server that accepts the connection and never answers. Its first
# recall waits as long as the embedder's timeouts say: HANG=0 skips it.
if [ "${HANG:-1}" = 1 ]; then
  serve "$ws/hport" hang
  ollama "$ws/hang" "$(cat "$ws/hport")"
  measure "server accepts, never answers" "$ws/hang" 1 "${HANG_RUNS:-$runs}"
fi
