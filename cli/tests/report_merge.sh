#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# `wsstress report merge`: a sweep run as 4 shards and merged must
# be the unsharded sweep - in the simulator (deterministic) the whole JSON
# report but the times and state dumps, with the same exit code; on real threads the runs,
# seeds and verdict - and so must a mutant matrix run in parts; every input
# that is not all shards of one campaign, once each, is refused with one line
# and exit 2.
# Usage: report_merge.sh WSSTRESS SCRATCH_DIR
set -uo pipefail
ws=$1 scratch=$2
rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch" || exit 1
fail() { echo "report_merge: $*" >&2; exit 1; }
# The fields two processes cannot share: times, and state dumps (heap addresses).
untimed() { grep -v -e '"elapsed_s"' -e '"at_seconds"' -e '"dump"' "$1"; }

# The simulator: a mutant that hangs on some seeds, every seed run (--keep-going).
sim=(sim --scenario cross --mutant cross_is_cold --seeds 0..39 --keep-going --quiet)
"$ws" "${sim[@]}" --json whole.json >/dev/null; whole=$?
for i in 0 1 2 3; do "$ws" "${sim[@]}" --shard $i/4 --json sim$i.json >/dev/null; done
"$ws" report merge sim3.json sim1.json sim0.json sim2.json --json merged.json >merged.txt; merged=$?
[ "$whole" -eq 4 ] || fail "the unsharded sim sweep exited $whole, expected 4 (hang)"
[ "$merged" -eq "$whole" ] || fail "the merge exited $merged, the unsharded sweep $whole"
diff <(untimed whole.json) <(untimed merged.json) >sim.diff ||
  fail "the merged sim report differs from the unsharded one: $(head -c 2000 sim.diff)"
[ "$(grep -c '"seed"' merged.json)" -ge 2 ] || fail "the merged sim report has fewer than 2 failures"
grep -q "replay: wsstress replay " merged.txt || fail "the merged text names no replay command"

# Real threads: the same seeds, runs and verdict.
run=(run --scenario join --iterations 2 --seeds 0..39 --quiet)
"$ws" "${run[@]}" --json run.json >/dev/null || fail "the unsharded run failed"
for i in 0 1 2 3; do "$ws" "${run[@]}" --shard $i/4 --json run$i.json >/dev/null || fail "shard $i failed"; done
"$ws" report merge run*.json --json run-merged.json >/dev/null 2>&1 && fail "run.json is not a shard: the merge must refuse it"
"$ws" report merge run0.json run1.json run2.json run3.json --json run-merged.json >/dev/null ||
  fail "the merge of the run shards did not pass"
for key in '"runs": 40' '"planned": 40' '"verdict": "pass"' '"count": 1'; do
  grep -q "$key" run-merged.json || fail "the merged run report lacks $key"
done

# A mutant matrix in three parts (by --engine and by --only): the same cells
# as one run of both engines; seeds run and seconds depend on the machine.
only=none,cross_is_cold,jec_carry  # each caught at a low seed by both engines, or never
"$ws" mutants check --engine sim-sc,sim-random --only $only --max-seconds 2 --json matrix.json >/dev/null ||
  fail "the whole matrix is not as expected"
"$ws" mutants check --engine sim-sc --only none,cross_is_cold --max-seconds 2 --json part-a.json >/dev/null
"$ws" mutants check --engine sim-sc --only jec_carry --max-seconds 2 --json part-b.json >/dev/null
"$ws" mutants check --engine sim-random --only $only --max-seconds 2 --json part-c.json >/dev/null
"$ws" report merge part-b.json part-a.json part-c.json --json matrix-merged.json >/dev/null ||
  fail "the merged matrix is not as expected"
machine_free() { grep -v -e '"runs"' -e '"seconds"' "$1"; }
diff <(machine_free matrix.json) <(machine_free matrix-merged.json) >matrix.diff ||
  fail "the merged matrix differs from the whole one: $(head -c 2000 matrix.diff)"

# Refusals: one line, exit 2.
expect_refusal() {
  local text=$1; shift
  local out
  out=$("$ws" report merge "$@" 2>&1 >/dev/null); local code=$?
  [ "$code" -eq 2 ] || fail "report merge $* exited $code, expected 2"
  [[ $out == *"$text"* ]] || fail "report merge $*: '$out' does not say '$text'"
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "report merge $*: more than one line: $out"
}
expect_refusal "shard(s) 3/4 missing" sim0.json sim1.json sim2.json
expect_refusal "shard 1/4 appears twice" sim0.json sim1.json sim1.json sim2.json sim3.json
expect_refusal "run1.json is a wsstress.run/2 report, sim0.json a wsstress.sim/1 one" sim0.json run1.json
"$ws" sim --scenario join --seeds 0..39 --shard 1/4 --json other.json --quiet >/dev/null
expect_refusal "mutant differs" sim0.json other.json sim2.json sim3.json
echo '{' >broken.json
expect_refusal "broken.json: not a JSON report" broken.json
echo '{"schema": "wsstress.fuzz/1"}' >fuzz.json
expect_refusal "has nothing to merge" fuzz.json
expect_refusal "jec_carry on sim-sc is in no report" part-a.json part-c.json
expect_refusal "jec_carry on sim-sc appears twice" part-a.json part-b.json part-b.json part-c.json
echo "report_merge: ok"
