#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Issue #56, second probe: `report merge --json F` where F is one of the
# reports it merges would replace that shard with the merged report: refused
# before any work (exit 2, one line), the shard left as it was.
#   merge_onto_input.sh WSSTRESS
ws=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$ws" sim --seeds 0..9 --shard 0/2 --json "$dir/s0.json" --quiet >/dev/null || fail "shard 0"
"$ws" sim --seeds 0..9 --shard 1/2 --json "$dir/s1.json" --quiet >/dev/null || fail "shard 1"
cp "$dir/s0.json" "$dir/s0.before"
mkdir "$dir/sub"
"$ws" report merge "$dir/s0.json" "$dir/s1.json" --json "$dir/sub/../s0.json" --quiet >"$dir/log" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "exit $rc, not 2: $(tail -3 "$dir/log")"
grep -qF -- "--json names a report it merges" "$dir/log" || fail "no refusal: $(tail -3 "$dir/log")"
cmp -s "$dir/s0.json" "$dir/s0.before" || fail "the shard s0.json was replaced"
exit 0
