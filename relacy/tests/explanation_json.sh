#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# A Relacy hang's explanation is in the JSON report too, under the
# run (runs_detail[].explanation) and the failure (failures[].explanation, the
# key sim's report uses), the same lines as the text.
#   explanation_json.sh WSSTRESS
ws=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$ws" relacy --model handshake_terminate --mutant terminate_no_wake --json "$dir/r.json" >"$dir/out" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "exit $rc, expected 1: $(tail -5 "$dir/out")"
n=$(grep -c '"explanation": \[$' "$dir/r.json")
[ "$n" -eq 2 ] || fail "$n explanation arrays, expected 2 (the run's and the failure's): $(cat "$dir/r.json")"
for line in "thread 0 (worker 0) sleeps for good on its terminate latch:" "passed gate 5" \
            "lost at step 342: thread 1 set the terminate latch" "rule broken: sleep/README.md §6"; do
  [ "$(grep -c -F "$line" "$dir/r.json")" -eq 2 ] || fail "the JSON lacks '$line' twice: $(cat "$dir/r.json")"
  grep -q -F "$line" "$dir/out" || fail "the text lacks '$line'"
done
echo ok
