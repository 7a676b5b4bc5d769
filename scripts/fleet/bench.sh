#!/usr/bin/env bash
# The fleet benchmarks of issue 9 (README, "Benchmarks"): a release build of
# `warden` and of the `fleet_bench` example, then
#   fanout   one read fanned out to 200 agent processes, POST → done (≤ 1 s)
#   idle     the server's RSS with 1,000 idle connected agents (≤ 100 MB)
#   overhead an agent's idle RSS (≤ 15 MB) and per-command overhead (≤ 5 ms)
# Usage: scripts/fleet/bench.sh [fanout|idle|overhead]…  (default: all three)
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release -q -p warden --bin warden --example fleet_bench
bench=target/release/examples/fleet_bench
[ $# -gt 0 ] || set -- fanout idle overhead
for which in "$@"; do
    echo "== fleet_bench $which"
    "$bench" "$which"
done
