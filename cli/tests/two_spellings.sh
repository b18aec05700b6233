#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Two output flags naming one new file by two spellings
# (`n.json` and `../out/n.json` from a folder `out`) are refused before any
# work, exit 2, in every subcommand with several output flags; nothing is
# written (else one output replaces the other and the report cites a file
# that is gone).
#   two_spellings.sh WSSTRESS
ws=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir "$dir/out" || exit 1
cd "$dir/out" || exit 1

# $1: the flags' names as the refusal says them; the rest: the command.
refused() {
  names=$1; shift
  rm -f n.json
  "$ws" "$@" >"$dir/log" 2>&1; rc=$?
  [ $rc -eq 2 ] || fail "exit $rc, not 2: $* ($(tail -3 "$dir/log"))"
  grep -qF -- "$names name the same file" "$dir/log" || fail "no refusal naming $names: $* ($(tail -3 "$dir/log"))"
  [ -e n.json ] && fail "a refused command wrote n.json: $*"
  return 0
}

refused "--json and --repro" sim --scenario join --mutant late_is_blocked_lock --seeds 0..3000 \
  --json n.json --repro ../out/n.json
refused "--trace-out and --html" sim --scenario join --mutant late_is_blocked_lock --seeds 0..3000 \
  --trace-out ./n.json --html "$dir/out/n.json"
refused "--json and --svg" scoreboard --runs 1 --budget 50 --strategies pct --mutants late_is_blocked_lock \
  --json n.json --svg ../out/n.json --quiet
refused "--json and --html" mutants check --only none --engine sim-sc --max-seconds 0.5 \
  --json n.json --html ../out/n.json
if "$ws" relacy --list >/dev/null 2>&1; then
  refused "--json and --trace-out" relacy --model inject --mutant no_inject_fence_acq_rel \
    --json n.json --trace-out ../out/n.json
fi
exit 0
