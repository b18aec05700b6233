#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Issue #39 items 3 and 6: `sim --keep-going --repro F` writes one reproducer
# per failing seed, named by seed, and cites each (text and JSON), each of
# which replays; a run that writes no F removes an earlier run's F (ours) and
# says so, and leaves a file that is not ours.
#   sim_outputs.sh WSSTRESS
ws=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
bug="--scenario cross --mutant cross_is_cold"

# 3: one reproducer per failing seed.
"$ws" sim $bug --seeds 0..9 --keep-going --repro "$dir/one.repro" --json "$dir/r.json" >"$dir/out" 2>&1; rc=$?
[ $rc -eq 4 ] || fail "keep-going sweep exited $rc: $(tail -5 "$dir/out")"
[ -e "$dir/one.repro" ] && fail "--keep-going wrote one.repro itself"
n=$(ls "$dir"/one.seed-*.repro 2>/dev/null | wc -l)
f=$(grep -c '^FAILED seed' "$dir/out")
[ "$n" -ge 2 ] && [ "$n" -eq "$f" ] || fail "$n reproducers for $f failing seeds"
for seed in $(sed -n 's/^FAILED seed \([0-9]*\):.*/\1/p' "$dir/out"); do
  r="$dir/one.seed-$seed.repro"
  grep -q "^seed $seed\$" "$r" || fail "$r is not seed $seed's"
  grep -q "replay: wsstress replay $r" "$dir/out" || fail "the text does not cite $r"
  grep -q "\"reproducer\": \"$r\"" "$dir/r.json" || fail "the JSON does not cite $r"
done
r=$(ls "$dir"/one.seed-*.repro | head -1)
"$ws" replay "$r" >"$dir/replay.out" 2>&1; rc=$?
[ $rc -eq 4 ] || fail "replay $r exited $rc: $(tail -3 "$dir/replay.out")"

# 6: a failing run writes F; a passing run then removes it and says so.
"$ws" sim $bug --seed 1 --repro "$dir/f.repro" --html "$dir/f.html" --trace-out "$dir/f.json" --quiet >/dev/null 2>&1
[ -s "$dir/f.repro" ] && [ -s "$dir/f.html" ] && [ -s "$dir/f.json" ] || fail "the failing run wrote no outputs"
echo "not ours" >"$dir/mine.html"
"$ws" sim --scenario cross --seed 1 --repro "$dir/f.repro" --html "$dir/f.html" --trace-out "$dir/f.json" \
  >"$dir/pass.out" 2>&1; rc=$?
[ $rc -eq 0 ] || fail "the passing run exited $rc: $(cat "$dir/pass.out")"
for f in f.repro f.html f.json; do
  [ -e "$dir/$f" ] && fail "a passing run left an earlier run's $f"
  grep -q "$f'*: this run wrote none; the file left there by an earlier run was removed" "$dir/pass.out" ||
    fail "the removal of $f is not said: $(cat "$dir/pass.out")"
done
"$ws" sim --scenario cross --seed 1 --html "$dir/mine.html" >"$dir/pass2.out" 2>&1; rc=$?
[ $rc -eq 0 ] || fail "the second passing run exited $rc"
grep -q "not ours" "$dir/mine.html" || fail "a file wsstress did not write was removed"
grep -q "not a wsstress output, left as it was" "$dir/pass2.out" || fail "the file left is not said: $(cat "$dir/pass2.out")"
echo "sim outputs: ok"
