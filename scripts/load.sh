#!/usr/bin/env bash
# The 1,000-session load run: the real server in-process with a fake model
# pacing its tokens (tokio::time::sleep), and N SSE clients in another
# process. Prints per-token delay through the server, gaps, turn times,
# and the server's RSS and thread count.
#
#   scripts/load.sh [SESSIONS] [PACE_MS] [TOKENS]
#
# Against the real binary and a fake OpenAI-compatible server instead, see
# crates/warden-server/examples/load/main.rs.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
sessions="${1:-1000}"
pace="${2:-20}"
tokens="${3:-50}"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"

ulimit -n "$(ulimit -Hn)"
(cd "$root" && cargo build --quiet --release -p warden-server --example load)
load="$root/target/release/examples/load"
out="$(mktemp)"
"$load" serve --port "$port" --pace-ms "$pace" --tokens "$tokens" >"$out" &
server=$!
trap 'kill -INT "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -f "$out"' EXIT
for _ in $(seq 1 100); do
    if grep -q READY "$out"; then break; fi
    sleep 0.1
done
read -r _ base token pid <"$out"
"$load" client --base "$base" --token "$token" --sessions "$sessions" \
    --pace-ms "$pace" --tokens "$tokens" --server-pid "$pid"
