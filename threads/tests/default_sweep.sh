#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# With no --seed or --seeds, `run` sweeps seeds from 0 until
# the first failure or 60 s (the JSON's plan says so); the clean pool's sweep,
# given --max-seconds 1 here, ends by it rather than after one seed.
#   default_sweep.sh WSSTRESS
ws=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# spawn_no_catch_unwind aborts the process at the first throwing spawn: a crash.
"$ws" run --scenario exception --mutant spawn_no_catch_unwind --json "$dir/r.json" >"$dir/r.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "the default sweep exited $rc, not 1 (a crash): $(cat "$dir/r.out")"
grep -q '"max_seconds": 60' "$dir/r.json" || fail "the default budget is not 60 s: $(cat "$dir/r.json")"
grep -q '"to": 18446744073709551614' "$dir/r.json" || fail "the default seeds are not 0..: $(cat "$dir/r.json")"

"$ws" run --scenario join --max-seconds 1 >"$dir/clean.out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "the clean default sweep exited $rc: $(cat "$dir/clean.out")"
grep -q "stopped by --max-seconds" "$dir/clean.out" || fail "the clean default sweep did not run to its budget: $(cat "$dir/clean.out")"
echo "ok: run's default sweep"
