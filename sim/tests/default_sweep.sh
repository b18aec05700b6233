#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# With no --seed or --seeds, `sim` sweeps seeds from 0 until
# the first failure or 60 s. Asserted on seeds, not time: latch_set_no_wake in
# the join scenario is found at seed 6 (the default strategy, portfolio), its
# reproducer replays; the clean pool's sweep is given --max-seconds 1 here and
# ends by it; a given range is swept as before.
#   default_sweep.sh WSSTRESS
ws=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$ws" sim --scenario join --mutant latch_set_no_wake --repro "$dir/f.repro" --json "$dir/s.json" >"$dir/s.out" 2>&1
rc=$?
[ $rc -eq 4 ] || fail "the default sweep exited $rc, not 4 (a hang): $(cat "$dir/s.out")"
grep -q "^FAILED seed 6: hang: lost wake-up" "$dir/s.out" || fail "not found at seed 6: $(cat "$dir/s.out")"
grep -q '"max_seconds": 60' "$dir/s.json" || fail "the default budget is not 60 s: $(cat "$dir/s.json")"
grep -q '"to": 18446744073709551614' "$dir/s.json" || fail "the default seeds are not 0..: $(cat "$dir/s.json")"
"$ws" replay "$dir/f.repro" >"$dir/r.out" 2>&1
rc=$?
[ $rc -eq 4 ] || fail "its reproducer replayed with exit $rc, not 4: $(cat "$dir/r.out")"

"$ws" sim --scenario join --max-seconds 1 >"$dir/clean.out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "the clean default sweep exited $rc: $(cat "$dir/clean.out")"
grep -q "stopped by --max-seconds" "$dir/clean.out" || fail "the clean default sweep did not run to its budget: $(cat "$dir/clean.out")"

"$ws" sim --scenario join --seeds 0..2 >"$dir/range.out" 2>&1 || fail "a given range failed: $(cat "$dir/range.out")"
grep -q "sim: 3 of 3 seeds" "$dir/range.out" || fail "a given range is not swept as given: $(cat "$dir/range.out")"
echo "ok: sim's default sweep"
