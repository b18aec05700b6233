#!/usr/bin/env bash
# `wsstress report merge` reads the reports of an older schema (issue #55,
# docs/design/versioning.md): the files in old-reports/ were written by
# wsstress before a rename (wsstress.run/1, whose params spelled the hang
# timeout `timeout_s`); the merge reads their old spelling and writes the
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
for key in '"schema": "wsstress.run/2"' '"hang_timeout_s": 7.0' '"runs": 10' '"verdict": "pass"'; do
  grep -q "$key" run.json || fail "the merged run report lacks $key"
done
grep -q '"timeout_s"' run.json && fail "the merged run report keeps the old key timeout_s"
echo "report_merge_old: ok"
