#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# `wsstress report merge` reads the reports of an older schema (issue #55,
# docs/design/versioning.md): the files in old-reports/ were written by
# wsstress before its renames - wsstress.run/1 (the hang timeout spelled
# `timeout_s`, the real-thread engine `stress`) and wsstress.mutants/2 (that
# engine's column `stress`); the merge reads their old spelling and writes the
# current schema.
# Usage: report_merge_old.sh WSSTRESS SCRATCH_DIR
set -uo pipefail
ws=$1 scratch=$2 old=$(cd "$(dirname "$0")/old-reports" && pwd)
rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch" || exit 1
fail() { echo "report_merge_old: $*" >&2; exit 1; }

# Two shards of `run --seeds 0..9 --hang-timeout 7`, as wsstress.run/1.
grep -q '"timeout_s": 7.0' "$old/run1-shard0.json" || fail "the old shard is not a wsstress.run/1 report"
"$ws" report merge "$old/run1-shard0.json" "$old/run1-shard1.json" --json run.json >run.txt ||
  fail "the merge of two wsstress.run/1 shards did not pass: $(cat run.txt)"
for key in '"schema": "wsstress.run/2"' '"hang_timeout_s": 7.0' '"engine": "threads"' '"runs": 10' '"verdict": "pass"'; do
  grep -q "$key" run.json || fail "the merged run report lacks $key"
done
grep -q -e '"timeout_s"' -e '"stress"' run.json && fail "the merged run report keeps an old spelling"

# A wsstress.mutants/2 part (`mutants check --engine stress --only
# none,cross_is_cold --max-seconds 2`) merged with a part written now.
grep -q '"stress": {' "$old/mutants2-stress.json" || fail "the old part has no stress column"
"$ws" mutants check --engine sim-sc --only none,cross_is_cold --max-seconds 2 --json new.json >/dev/null ||
  fail "the sim-sc part is not as expected"
"$ws" report merge "$old/mutants2-stress.json" new.json --json matrix.json >matrix.txt ||
  fail "the merge of an old and a new matrix part did not pass: $(cat matrix.txt)"
grep -q '| mutant | scenario | threads | sim-sc |' matrix.txt || fail "the merged table's columns: $(cat matrix.txt)"
for key in '"schema": "wsstress.mutants/3"' '"threads": {' '"sim-sc": {'; do
  grep -q "$key" matrix.json || fail "the merged matrix lacks $key"
done
grep -q '"stress"' matrix.json && fail "the merged matrix keeps the engine name stress"
echo "report_merge_old: ok"
