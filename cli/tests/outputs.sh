#!/bin/sh
# Issue #17 points 1 and 6: output files never replace what was not ours to
# replace, "-" is standard output, and a write that fails after the run says
# so without losing the run's own exit code or leaving a temporary file.
#   outputs.sh WSSTRESS
ws=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# A symlink is written through, and stays a symlink.
ln -s "$dir/target.json" "$dir/link.json"
"$ws" run --seeds 0..0 --quiet --json "$dir/link.json" >/dev/null || fail "run with a symlinked --json"
[ -L "$dir/link.json" ] || fail "the symlink was replaced by a regular file"
grep -q '"schema": "wsstress.run/1"' "$dir/target.json" || fail "the symlink's target has no report"

# A FIFO is written in place (a reader gets the report), never renamed over.
mkfifo "$dir/fifo"
cat "$dir/fifo" > "$dir/from_fifo" &
"$ws" run --seeds 0..0 --quiet --json "$dir/fifo" >/dev/null || fail "run with a FIFO --json"
wait
[ -p "$dir/fifo" ] || fail "the FIFO was replaced"
grep -q '"schema": "wsstress.run/1"' "$dir/from_fifo" || fail "the FIFO's reader got no report"

# "-": the JSON alone on stdout, the text report on stderr.
"$ws" sim --seeds 0..1 --json - 2>"$dir/err" >"$dir/out" || fail "sim --json -"
head -c 1 "$dir/out" | grep -q '{' || fail "stdout does not start with the JSON report"
grep -q '"schema": "wsstress.sim/1"' "$dir/out" || fail "stdout lacks the JSON report"
grep -q 'verdict: pass' "$dir/err" || fail "the text report did not move to stderr"
"$ws" sim --seeds 0..1 --json - --repro - >/dev/null 2>"$dir/err"; rc=$?
[ $rc -eq 2 ] && grep -q "only one output can be standard output" "$dir/err" || fail "two '-' outputs: exit $rc"

# A directory is refused before any work.
"$ws" run --seeds 0..0 --json "$dir" >/dev/null 2>"$dir/err"; rc=$?
[ $rc -eq 2 ] && grep -q "is a directory" "$dir/err" || fail "a directory as --json: exit $rc"

# A write that fails after the run: the hang's exit code 4 stands, the error
# names the file, and no temporary file is left.
if [ -w /dev/full ]; then
  "$ws" sim --scenario join --mutant late_is_blocked_lock --strategy pct --seeds 1173..1173 --quiet \
    --repro "$dir/hang.repro" --json /dev/full >/dev/null 2>"$dir/err"; rc=$?
  [ $rc -eq 4 ] || fail "a found hang with an unwritable --json exited $rc, not 4"
  grep -q "cannot write /dev/full" "$dir/err" || fail "the failed write was not named"
  [ -c /dev/full ] || fail "/dev/full was replaced"
  "$ws" run --seeds 0..0 --quiet --json /dev/full >/dev/null 2>&1; rc=$?
  [ $rc -eq 3 ] || fail "a passing run with an unwritable --json exited $rc, not 3"
fi
ls "$dir" | grep -q '\.json\.' && fail "a temporary file was left: $(ls "$dir")"
echo "outputs: ok"
