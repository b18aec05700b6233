#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Issue #56 item 2: `oracle --json FILE` (schema wsstress.oracle/1) says what
# the text says: the counts, the verdict, each finding with its program file
# and replay line; `--json -` moves the text report to stderr.
#   json.sh WSSTRESS SOURCE_DIR
ws=$1 src=$2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
has() { grep -qF "$2" "$1" || fail "$1 lacks $2: $(cat "$1")"; }

"$ws" oracle --input "$src/fuzz/corpus/program/random_00" --json - >"$dir/pass.json" 2>"$dir/pass.err"
[ $? -eq 0 ] || fail "an agreeing program exited $?: $(cat "$dir/pass.err")"
for text in '"schema": "wsstress.oracle/1"' '"programs": 1,' '"agree": 1,' '"differ": 0,' '"hang": 0,' \
            '"verdict": "pass"' '"stopped_by": null' '"findings": []'; do
  has "$dir/pass.json" "$text"
done
has "$dir/pass.err" "verdict: pass"

# A difference (the test hook's wrong log): the finding with the program file
# it wrote and its replay line.
"$ws" oracle --seeds 3 --test-fault port-wrong-log --out "$dir" --json "$dir/differ.json" >"$dir/differ.out" 2>&1
[ $? -eq 1 ] || fail "a difference did not exit 1: $(cat "$dir/differ.out")"
for text in '"differ": 1,' '"verdict": "fail"' '"seed": 3' "\"program_file\": \"$dir/wsstress-oracle-seed-3.program\"" \
            "\"replay\": \"wsstress oracle --input $dir/wsstress-oracle-seed-3.program\""; do
  has "$dir/differ.json" "$text"
done
[ -s "$dir/wsstress-oracle-seed-3.program" ] || fail "the finding's program file was not written"
echo "ok: oracle --json"
