#!/usr/bin/env bash
# Check that the command policy gives every command of both corpora the same
# verdict (intent, risk, read-allowed, catastrophic, understood, interactive
# category and rewrite, reason) as an earlier revision, e.g. around a change
# meant only to make classification faster:
#
#   scripts/policy-verdicts-unchanged.sh BASE_REV
#
# Builds `crates/warden-policy/examples/classify.rs` (this checkout's copy)
# against BASE_REV in a temporary worktree and against this checkout, dumps
# one verdict per line for shared/corpus/nl2bash-commands.txt and
# commands-dev.tsv, and compares. Exit 0 when identical. With TIME=1 also
# prints each build's per-command median and p99 (best of seven runs).
set -euo pipefail
base=${1:?usage: $0 BASE_REV}
root=$(git rev-parse --show-toplevel)
shared=${WARDEN_SHARED:-$root/../shared}
work=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$root" worktree add --detach "$work/base" "$base" >/dev/null
mkdir -p "$work/base/crates/warden-policy/examples"
cp "$root/crates/warden-policy/examples/classify.rs" "$work/base/crates/warden-policy/examples/"
(cd "$work/base" && CARGO_TARGET_DIR="$root/target/verdicts-base" cargo build -q --release -p warden-policy --example classify)
(cd "$root" && cargo build -q --release -p warden-policy --example classify)
old="$root/target/verdicts-base/release/examples/classify"
new="$root/target/release/examples/classify"
status=0
for corpus in nl2bash-commands.txt commands-dev.tsv; do
    "$old" --file "$shared/corpus/$corpus" > "$work/old-$corpus.out"
    "$new" --file "$shared/corpus/$corpus" > "$work/new-$corpus.out"
    if cmp -s "$work/old-$corpus.out" "$work/new-$corpus.out"; then
        echo "$corpus: $(wc -l < "$work/new-$corpus.out") verdicts identical"
    else
        echo "$corpus: verdicts differ:"
        diff "$work/old-$corpus.out" "$work/new-$corpus.out" | head -20
        status=1
    fi
done
if [ "${TIME:-0}" = 1 ]; then
    for which in old new; do
        bin=$old; [ $which = new ] && bin=$new
        "$bin" --time --file "$shared/corpus/nl2bash-commands.txt" | sort -n \
            | awk -v w=$which '{a[NR]=$1} END {print w ": median " a[int(NR/2)] " ns, p99 " a[int(NR*0.99)] " ns"}'
    done
fi
exit $status
