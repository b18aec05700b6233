#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# A signal ends a sweep as --max-seconds does: the
# summary says which signal after how many seeds, the JSON says it too, the
# exit code is 128 + the signal's number, and no child process survives.
#   signals.sh WSSTRESS
ws=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# The children of process $parent (from /proc, so no procps is needed).
children() {
  for s in /proc/[0-9]*/stat; do
    set -- $(cat "$s" 2>/dev/null) && [ "$4" = "$parent" ] && echo "$1"
  done
}

# sim, SIGINT: exit 130, a partial report. (A shell script starts background
# jobs with SIGINT ignored, which wsstress respects; env restores it.)
env --default-signal=INT "$ws" sim --seeds 0..1000000000 --json "$dir/sim.json" >"$dir/sim.out" 2>&1 &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid; rc=$?
[ $rc -eq 130 ] || fail "sim after SIGINT exited $rc, not 130: $(cat "$dir/sim.out")"
grep -q "of 1000000001 seeds.*stopped by SIGINT" "$dir/sim.out" || fail "sim's summary: $(cat "$dir/sim.out")"
grep -q '"stopped_by": "SIGINT"' "$dir/sim.json" || fail "sim's JSON lacks stopped_by"

# Two SIGINTs close together (as `timeout -s INT` sends them,
# to the process and to its group) are one request: the report is still
# written. The second comes 0.2 s after the first, so it is not merged with it
# while pending, and the first has already been handled.
env --default-signal=INT "$ws" sim --seeds 0..1000000000 --json "$dir/twice.json" >"$dir/twice.out" 2>&1 &
pid=$!
sleep 1.5
kill -INT $pid; sleep 0.2; kill -INT $pid
wait $pid; rc=$?
[ $rc -eq 130 ] || fail "sim after two quick SIGINTs exited $rc, not 130: $(cat "$dir/twice.out")"
grep -q '"stopped_by": "SIGINT"' "$dir/twice.json" || fail "sim lost its JSON to a second quick SIGINT"
grep -q "stopped by SIGINT" "$dir/twice.out" || fail "sim lost its summary to a second quick SIGINT"

# run, SIGTERM: exit 143.
"$ws" run --seeds 0..1000000000 --json "$dir/run.json" >"$dir/run.out" 2>&1 &
pid=$!
sleep 1.5
kill -TERM $pid
wait $pid; rc=$?
[ $rc -eq 143 ] || fail "run after SIGTERM exited $rc, not 143: $(cat "$dir/run.out")"
grep -q "stopped by SIGTERM" "$dir/run.out" || fail "run's summary: $(cat "$dir/run.out")"
grep -q '"stopped_by": "SIGTERM"' "$dir/run.json" || fail "run's JSON lacks stopped_by"

# mutants check, SIGTERM to the parent only: its running child stops too.
"$ws" mutants check --engine sim-sc --max-seconds 60 --only none --json "$dir/matrix.json" >"$dir/m.out" 2>&1 &
pid=$!
sleep 2
parent=$pid
child=$(children)
[ -n "$child" ] || fail "mutants check had no child after 2 s"
kill -TERM $pid
wait $pid; rc=$?
[ $rc -eq 143 ] || fail "mutants check after SIGTERM exited $rc, not 143: $(cat "$dir/m.out")"
grep -q "stopped by SIGTERM" "$dir/m.out" || fail "the matrix does not say it was stopped: $(cat "$dir/m.out")"
sleep 0.5
kill -0 "$child" 2>/dev/null && fail "the child $child survived its parent"
# An ignored signal stays ignored (nohup): SIGHUP does not stop this sweep.
trap '' HUP
"$ws" sim --seeds 0..1000000000 --max-seconds 3 >"$dir/hup.out" 2>&1 &
pid=$!
sleep 1
kill -HUP $pid
wait $pid; rc=$?
trap - HUP
[ $rc -eq 0 ] && grep -q "stopped by --max-seconds" "$dir/hup.out" || fail "an ignored SIGHUP stopped the sweep: exit $rc"
echo "signals: ok"
