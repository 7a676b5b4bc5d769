#!/usr/bin/env bash
# Makes the upgrade fixtures: databases written by earlier releases' own
# `warden` binaries, the way a user writes them (CLI requests, approvals
# decided at the terminal, and for stop 14 its server, users, tokens and
# agents), for crates/warden-store/tests/store/upgrade/ and
# crates/warden/tests/cli/upgrade_cli.rs.
#
#   scripts/upgrade-fixtures.sh [stop05] [stop14]    (default: both)
#
# Each release is checked out in a throw-away worktree under /tmp, built
# (debug), run in a private HOME, and its worktree removed again. The
# database (WAL checkpointed), the audit head anchor beside it (when the
# release kept one) and views.txt (what the release itself showed of its
# data) go to crates/warden-store/tests/fixtures/upgrade/<release>/.
# Set FIXTURE_TARGET_DIR to reuse a cargo target directory between runs.
# Needs git, cargo, curl, sqlite3 and python3 (a fake model on loopback;
# stop 14 also installs fakepve into a venv for a Proxmox approval).
# Nothing leaves this machine except fakepve's pip install.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
# The recipes run with a private HOME; cargo and rustup keep theirs.
export CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"
fixtures="$repo/crates/warden-store/tests/fixtures/upgrade"
fake_model="$repo/scripts/upgrade-fixtures/fake_openai.py"

# The releases: what main held when a session stop landed (see the README
# in $fixtures for how each commit was identified).
declare -A commit=(
  [stop05]=31e7f55c74af4e90cb90fbf6c14fbdc3da2bb18d
  [stop14]=aeb05c3dc2766cd0c2e4e1e4ce86086fdf1cb47a
)

say() { printf '== %s\n' "$*" >&2; }
die() { printf 'upgrade-fixtures: %s\n' "$*" >&2; exit 1; }

# Processes this script started, stopped by id on exit.
pids=()
work=""
cleanup() {
  local status=$? pid
  if [ "$status" != 0 ] && [ -n "$work" ] && [ -s "$work/recipe.log" ]; then
    echo "upgrade-fixtures: failed; the end of $work/recipe.log:" >&2
    tail -n 30 "$work/recipe.log" >&2
  fi
  for pid in "${pids[@]:-}"; do
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done
  if [ -n "$work" ] && [ -d "$work/src" ]; then
    git -C "$repo" worktree remove --force "$work/src" || true
  fi
  [ -n "$work" ] && rm -rf "$work"
}
trap cleanup EXIT

json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The id printed on the "approve: warden approvals approve ID" line.
approval_id() { sed -n 's/.*approve: warden approvals approve \([^ ]*\).*/\1/p' | head -n 1; }

# `ask` that must leave an approval pending: prints its id. Stop 5 exits 0
# then, stop 14 exits 5.
ask_pending() {
  local out code=0
  out="$("$bin" ask "$@" </dev/null 2>/dev/null)" || code=$?
  [ "$code" = 0 ] || [ "$code" = 5 ] || die "ask $* exited $code"
  printf '%s\n' "$out" | approval_id
}

start_fake_model() {
  python3 "$fake_model" "$work/model.port" &
  pids+=("$!")
  for _ in $(seq 50); do [ -s "$work/model.port" ] && break; sleep 0.1; done
  [ -s "$work/model.port" ] || die "the fake model did not start"
  cat >"$work/model.toml" <<EOF
[provider]
kind = "openai"
base_url = "http://127.0.0.1:$(cat "$work/model.port")/v1"
model = "fixture-model"

[pricing.fixture-model]
input = 3.0
output = 15.0
EOF
}

checkpoint_and_copy() {
  local db="$1" out="$2"
  sqlite3 "$db" 'PRAGMA wal_checkpoint(TRUNCATE);' >/dev/null
  [ ! -s "$db-wal" ] || die "$db-wal still holds pages"
  rm -f "$db-wal" "$db-shm"
  rm -rf "$out"
  mkdir -p "$out"
  cp "$db" "$out/warden.db"
  [ ! -e "$db.audit-head" ] || cp "$db.audit-head" "$out/warden.db.audit-head"
  chmod 0600 "$out"/warden.db*
}

table_counts() {
  local db="$1" table
  for table in $(sqlite3 "$db" "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"); do
    printf '%s %s\n' "$table" "$(sqlite3 "$db" "SELECT count(*) FROM \"$table\"")"
  done
  printf 'user_version %s\n' "$(sqlite3 "$db" 'PRAGMA user_version')"
}

# Stop 5 (issues 2-4): the CLI only; schema version 2; no anchor file.
recipe_stop05() {
  local db="$work/run/warden.db" id
  mkdir -p "$work/run"
  cd "$work/run"
  "$bin" ask --db "$db" "disk usage" >/dev/null
  "$bin" ask --db "$db" uptime >/dev/null
  id="$("$bin" sessions --db "$db" -n 1 | awk '{print $1}')"
  "$bin" ask --db "$db" --session "$id" "memory usage" >/dev/null
  "$bin" ask --db "$db" --config "$work/model.toml" "hello, what can you do?" >/dev/null
  "$bin" ask --db "$db" --level autonomous "remember the nightly backup runs at 02:00" >/dev/null
  id="$(ask_pending --db "$db" "remember the cron job is at 03:00")"
  "$bin" approvals --db "$db" approve "$id" >/dev/null
  id="$(ask_pending --db "$db" "remember the web server is nginx")"
  "$bin" approvals --db "$db" deny "$id" --reason "not now" >/dev/null
  id="$(ask_pending --db "$db" "restart cron")"
  [ -n "$id" ] || die "restart cron left no approval"
  {
    echo "# written by $(git -C "$work/src" rev-parse HEAD); what that release shows of it"
    echo "## warden sessions -n 50"; "$bin" sessions --db "$db" -n 50
    echo "## warden approvals list"; "$bin" approvals --db "$db" list
    echo "## warden usage --json"; "$bin" usage --db "$db" --json
    echo "## warden audit verify"; "$bin" audit --db "$db" verify
    echo "## warden audit tail -n 100"; "$bin" audit --db "$db" tail -n 100
    echo "## rows per table"; table_counts "$db"
  } >"$work/views.txt" 2>&1
  checkpoint_and_copy "$db" "$1"
  cp "$work/views.txt" "$1/views.txt"
}

# A fakepve on loopback with one running VM (vm-100 on pve1), for an
# approval that offers a snapshot; the release's own launcher.
pve_secret=5b0c7a1e-1111-4222-8333-944455556666
start_fakepve() {
  bash "$work/src/scripts/fakepve/setup.sh" "$work/fakepve-venv"
  mkfifo "$work/pve.in"
  mkdir -p "$work/pve-cert"
  "$work/fakepve-venv/bin/python" "$work/src/scripts/fakepve/launch.py" \
    --token "warden@pve!ops=$pve_secret" --generate 1 --nodes 1 --cert-dir "$work/pve-cert" \
    <"$work/pve.in" >"$work/pve.json" 2>"$work/pve.err" &
  pids+=("$!")
  # It runs until its stdin closes.
  exec 7>"$work/pve.in"
  for _ in $(seq 100); do grep -q '"url"' "$work/pve.json" 2>/dev/null && break; sleep 0.1; done
  grep -q '"url"' "$work/pve.json" || die "fakepve did not start: $(cat "$work/pve.err")"
  cat >"$work/pve.toml" <<EOF
[[proxmox]]
name = "lab"
url = "$(json 'd["url"]' <"$work/pve.json")"
token_id = "warden@pve!ops"
token_secret_env = "FIXTURE_PVE_SECRET"
fingerprint = "$(json 'd["fingerprint"]' <"$work/pve.json")"

[proxmox_snapshots]
default = "always"
EOF
}
stop_fakepve() { exec 7>&-; }

# curl against the server: api METHOD PATH [BODY] with $auth set to the
# credentials (-H 'authorization: Bearer …' or -b COOKIES -H 'x-csrf-token: …').
api() {
  local method="$1" path="$2" body="${3:-}"
  if [ -n "$body" ]; then
    curl -sf -X "$method" "${auth[@]}" -H 'content-type: application/json' -d "$body" "$url$path"
  else
    curl -sf -X "$method" "${auth[@]}" "$url$path"
  fi
}

# Wait until session $1 holds $2 messages and is idle.
wait_messages() {
  local n
  for _ in $(seq 100); do
    n="$(api GET "/api/sessions/$1" | json 'len(d["messages"]) if d["state"] == "idle" else -1')"
    [ "$n" -ge "$2" ] && return 0
    sleep 0.1
  done
  die "session $1 did not reach $2 messages"
}

# The one pending approval of session $1.
wait_pending() {
  local id
  for _ in $(seq 100); do
    id="$(api GET "/api/approvals?state=pending" | json "next((a['id'] for a in d if a['session_id'] == '$1'), '')")"
    [ -n "$id" ] && { echo "$id"; return 0; }
    sleep 0.1
  done
  die "no pending approval for session $1"
}

# Stop 14 (issues 7-12): CLI, users, tokens, a Proxmox approval with its
# snapshot offer, and the server (logins, API sessions, approvals decided by
# a user, API tokens, agents).
recipe_stop14() {
  local data="$work/run/data" db id sid port url cookie_alice cookie_bob csrf_alice csrf_bob
  local -a auth
  db="$data/warden.db"
  mkdir -p "$work/run"
  cd "$work/run"
  echo 'alice-fixture-pw' | "$bin" user add alice --role admin --data-dir "$data" >/dev/null
  echo 'bob-fixture-pw' | "$bin" user add bob --role approver --data-dir "$data" >/dev/null
  echo 'carol-fixture-pw' | "$bin" user add carol --role viewer --data-dir "$data" >/dev/null
  local ci_token
  ci_token="$("$bin" token create --name ci --role operator --data-dir "$data" 2>/dev/null)"
  "$bin" token create --name old --role viewer --expires 30d --data-dir "$data" >/dev/null 2>&1
  id="$("$bin" token list --data-dir "$data" | awk '$2 == "old" {print $1}')"
  "$bin" token revoke "$id" --data-dir "$data" >/dev/null

  "$bin" ask --db "$db" "disk usage" >/dev/null
  "$bin" ask --db "$db" uptime >/dev/null
  id="$("$bin" sessions --db "$db" --json | json 'd[0]["id"]')"
  "$bin" ask --db "$db" --session "$id" "memory usage" >/dev/null
  "$bin" ask --db "$db" --config "$work/model.toml" "hello, what can you do?" >/dev/null
  "$bin" ask --db "$db" --level autonomous "remember the nightly backup runs at 02:00" >/dev/null
  id="$(ask_pending --db "$db" "remember the backup disk is /dev/sdb")"
  "$bin" approvals --db "$db" deny "$id" --reason "it is /dev/sdc now" >/dev/null
  # Approved at the terminal, it runs (snapshot first, then the shutdown)
  # against the fake cluster.
  start_fakepve
  export FIXTURE_PVE_SECRET=$pve_secret
  id="$(ask_pending --db "$db" --config "$work/pve.toml" "stop vm-100")"
  [ -n "$id" ] || die "stop vm-100 left no approval"
  WARDEN_CONFIG="$work/pve.toml" "$bin" approvals --db "$db" approve "$id" >/dev/null
  unset FIXTURE_PVE_SECRET
  stop_fakepve

  port="$(free_port)"
  url="http://127.0.0.1:$port"
  "$bin" serve --data-dir "$data" --listen "127.0.0.1:$port" --config "$work/model.toml" \
    >"$work/serve.log" 2>&1 &
  local serve_pid=$!
  pids+=("$serve_pid")
  for _ in $(seq 100); do curl -sf "$url/api/health" >/dev/null && break; sleep 0.1; done
  auth=()
  curl -sf -c "$work/alice.cookies" -H 'content-type: application/json' \
    -d '{"username":"alice","password":"alice-fixture-pw"}' "$url/api/auth/login" >"$work/alice.json"
  curl -sf -c "$work/bob.cookies" -H 'content-type: application/json' \
    -d '{"username":"bob","password":"bob-fixture-pw"}' "$url/api/auth/login" >"$work/bob.json"
  csrf_alice="$(json 'd["csrf_token"]' <"$work/alice.json")"
  csrf_bob="$(json 'd["csrf_token"]' <"$work/bob.json")"
  local -a as_ci=(-H "authorization: Bearer $ci_token")
  local -a as_alice=(-b "$work/alice.cookies" -H "x-csrf-token: $csrf_alice")
  local -a as_bob=(-b "$work/bob.cookies" -H "x-csrf-token: $csrf_bob")

  auth=("${as_ci[@]}")
  sid="$(api POST /api/sessions '{"title":"ci checks"}' | json 'd["id"]')"
  api POST "/api/sessions/$sid/messages" '{"text":"uptime"}' >/dev/null
  wait_messages "$sid" 2

  auth=("${as_alice[@]}")
  sid="$(api POST /api/sessions '{"title":"alice notes"}' | json 'd["id"]')"
  api POST "/api/sessions/$sid/messages" '{"text":"remember the web server is nginx"}' >/dev/null
  id="$(wait_pending "$sid")"
  auth=("${as_bob[@]}")
  api POST "/api/approvals/$id/approve" '{"reason":"fine"}' >/dev/null
  auth=("${as_alice[@]}")
  wait_messages "$sid" 2
  api POST "/api/sessions/$sid/messages" '{"text":"remember the proxy is haproxy"}' >/dev/null
  id="$(wait_pending "$sid")"
  auth=("${as_bob[@]}")
  api POST "/api/approvals/$id/deny" '{"reason":"we are moving to caddy"}' >/dev/null
  auth=("${as_alice[@]}")
  wait_messages "$sid" 4
  sid="$(api POST /api/sessions '{"title":"model chat"}' | json 'd["id"]')"
  api POST "/api/sessions/$sid/messages" '{"text":"hello, what can you do?"}' >/dev/null
  wait_messages "$sid" 2
  api POST /api/tokens '{"name":"dashboard","role":"viewer","expires_in_days":90}' >/dev/null

  local enroll agent_id
  enroll="$(api POST /api/agents/enrollment-tokens '{"uses":3,"expires_in_hours":24}' | json 'd["token"]')"
  "$bin" agent enroll --server "$url" --token "$enroll" --name fixture-agent \
    --state-dir "$work/agent-1" >/dev/null
  "$bin" agent enroll --server "$url" --token "$enroll" --name retired-agent \
    --state-dir "$work/agent-2" >/dev/null
  # Connects, reports, is seen; stopped by its own timeout.
  timeout 4 "$bin" agent run --state-dir "$work/agent-1" --max-level read_only \
    >/dev/null 2>&1 || true
  agent_id="$(api GET /api/agents | json "next(a['id'] for a in d if a['name'] == 'retired-agent')")"
  api DELETE "/api/agents/$agent_id" >/dev/null
  kill -TERM "$serve_pid"
  wait "$serve_pid" || true

  # Left pending, last, so it is still pending when the views are taken.
  id="$(ask_pending --db "$db" "remember the cron job is at 03:00")"
  [ -n "$id" ] || die "the last request left no approval"
  local state
  {
    echo "# written by $(git -C "$work/src" rev-parse HEAD); what that release shows of it"
    echo "## warden sessions --json"; "$bin" sessions --db "$db" -n 50 --json
    for state in pending approved denied expired consumed; do
      echo "## warden approvals list --state $state --json"
      "$bin" approvals --db "$db" list --state "$state" --json
    done
    echo "## warden usage --json"; "$bin" usage --db "$db" --json
    echo "## warden user list"; "$bin" user list --data-dir "$data"
    echo "## warden token list"; "$bin" token list --data-dir "$data"
    echo "## warden audit verify --json"; "$bin" audit --db "$db" verify --json
    echo "## warden audit tail -n 100"; "$bin" audit --db "$db" tail -n 100
    echo "## rows per table"; table_counts "$db"
  } >"$work/views.txt" 2>&1
  checkpoint_and_copy "$db" "$1"
  cp "$work/views.txt" "$1/views.txt"
}

make_fixture() {
  local name="$1"
  [ -n "${commit[$name]:-}" ] || die "unknown release $name (stop05 or stop14)"
  work="$(mktemp -d /tmp/warden-upgrade-fixture.XXXXXX)"
  say "$name: ${commit[$name]} in $work/src"
  git -C "$repo" worktree add --detach "$work/src" "${commit[$name]}" >/dev/null
  local target="${FIXTURE_TARGET_DIR:-$work/src/target}"
  (cd "$work/src" && CARGO_TARGET_DIR="$target" cargo build -p warden)
  bin="$target/debug/warden"
  mkdir -p "$work/home"
  # A private, predictable environment: the operator deciding at the
  # terminal is user:ops; no model unless a request names one.
  local var
  for var in $(env | sed -n 's/^\(WARDEN_[A-Z_]*\)=.*/\1/p'); do unset "$var"; done
  export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share"
  export USER=ops LOGNAME=ops
  start_fake_model
  # The releases' progress lines go to a log, shown if a step fails.
  "recipe_$name" "$fixtures/$name" 2>"$work/recipe.log"
  cd "$repo"
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  pids=()
  git -C "$repo" worktree remove --force "$work/src"
  rm -rf "$work"
  work=""
  say "$name: $(du -k "$fixtures/$name/warden.db" | cut -f1) KiB in $fixtures/$name"
}

releases=("$@")
[ "${#releases[@]}" -gt 0 ] || releases=(stop05 stop14)
for release in "${releases[@]}"; do
  make_fixture "$release"
done
