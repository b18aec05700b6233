#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# A Relacy search stopped by its limit is not a pass. The
# matrix's relacy row reads `incomplete`, not as expected both where the
# catalog expects a pass (no_sleep_fence) and where it expects a catch
# (terminate_no_wake: a miss), in the table, its legend and the JSON; and the
# budget is per search, as the help says (every search of the row ran to the
# 0.5 s limit). The searches run in stalled_runner.sh, which never answers.
#   matrix_incomplete.sh WSSTRESS WSSTRESS_RELACY
ws=$1
export WSSTRESS_REAL_RELACY_RUNNER=$2
export WSSTRESS_RELACY_RUNNER="$(cd "$(dirname "$0")" && pwd)/stalled_runner.sh"
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$ws" mutants check --help | grep -q "relacy: per search" || fail "mutants check --help does not say the relacy budget is per search"

for row in no_sleep_fence:inject terminate_no_wake:terminate; do
  m=${row%%:*}
  "$ws" mutants check --engine relacy --only "$m" --max-seconds 0.5 --json "$dir/$m.json" >"$dir/$m.out" 2>&1
  rc=$?
  [ $rc -eq 1 ] || fail "$m: a stopped search exited $rc, not 1 (not as expected): $(cat "$dir/$m.out")"
  grep -qF "| $m | ${row#*:} | incomplete (0 execs) ! |" "$dir/$m.out" || fail "$m: the cell is not 'incomplete (0 execs) !': $(cat "$dir/$m.out")"
  grep -q "'incomplete' a search stopped at its limit without a verdict" "$dir/$m.out" || fail "$m: the legend lacks incomplete"
  grep -q "incomplete: $m on relacy: [0-9]* of [0-9]* searches stopped at the 0.5 s per-search limit" "$dir/$m.out" \
    || fail "$m: no line says which searches stopped: $(cat "$dir/$m.out")"
  grep -q '"outcome": "incomplete"' "$dir/$m.json" || fail "$m: the JSON's outcome is not incomplete: $(cat "$dir/$m.json")"
  grep -q '"as_expected": false' "$dir/$m.json" || fail "$m: the JSON says as expected"
done
# Every search of the row was stopped, each at the per-search limit.
n=$(grep -o "[0-9]* of [0-9]* searches" "$dir/no_sleep_fence.out" | head -n 1)
[ "${n%% of*}" = "$(echo "$n" | sed 's/.* of \([0-9]*\) searches/\1/')" ] || fail "not every search stopped: $n"
echo "ok: a stopped Relacy search is incomplete, not as expected, per-search budget"
