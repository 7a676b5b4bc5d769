#!/usr/bin/env bash
# Property-based API testing of a live `warden serve` against its own
# OpenAPI document (schemathesis, from PyPI): no response may be a server
# error, and every response must match the documented schema.
#
#   scripts/schemathesis.sh [--max-examples N]
#
# Uses target/schemathesis-venv (created on first run), a fresh data
# directory, an admin token created offline, and a free loopback port.
# Set WARDEN_BIN to test an already built binary.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/target/schemathesis-venv"
max_examples=25
while [ $# -gt 0 ]; do
    case "$1" in
        --max-examples) max_examples="$2"; shift 2 ;;
        *) echo "usage: $0 [--max-examples N]" >&2; exit 2 ;;
    esac
done

if [ ! -x "$venv/bin/schemathesis" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --upgrade pip
    "$venv/bin/pip" install --quiet schemathesis
fi

if [ -z "${WARDEN_BIN:-}" ]; then
    (cd "$root" && cargo build --quiet -p warden)
    WARDEN_BIN="$root/target/debug/warden"
fi

data="$(mktemp -d)"
log="$data/serve.log"
server=""
cleanup() {
    if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
        kill -TERM "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
    fi
    rm -rf "$data"
}
trap cleanup EXIT

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
token="$("$WARDEN_BIN" token create --name schemathesis --role admin --data-dir "$data")"
env -u WARDEN_PROVIDER -u WARDEN_CONFIG XDG_CONFIG_HOME="$data/config" \
    "$WARDEN_BIN" serve --listen "127.0.0.1:$port" --data-dir "$data" >"$log" 2>&1 &
server=$!
base="http://127.0.0.1:$port"
for _ in $(seq 1 200); do
    if curl -fsS "$base/api/health" >/dev/null 2>&1; then break; fi
    if ! kill -0 "$server" 2>/dev/null; then cat "$log" >&2; exit 1; fi
    sleep 0.05
done

status=0
# Run from the scratch directory: schemathesis leaves a cache where it runs.
cd "$data"
"$venv/bin/schemathesis" run "$base/api/openapi.json" \
    --url "$base" \
    --header "Authorization: Bearer $token" \
    --checks not_a_server_error,response_schema_conformance \
    --max-examples "$max_examples" \
    --request-timeout 10 \
    --exclude-path /api/sessions/{id}/events \
    --exclude-path /api/events \
    || status=$?

if [ "$status" -ne 0 ]; then
    echo "--- warden serve log ---" >&2
    tail -n 50 "$log" >&2
fi
exit "$status"
