#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Output files never replace what was not ours to
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
grep -q '"schema": "wsstress.run/2"' "$dir/target.json" || fail "the symlink's target has no report"

# A FIFO is written in place (a reader gets the report), never renamed over.
mkfifo "$dir/fifo"
cat "$dir/fifo" > "$dir/from_fifo" &
"$ws" run --seeds 0..0 --quiet --json "$dir/fifo" >/dev/null || fail "run with a FIFO --json"
wait
[ -p "$dir/fifo" ] || fail "the FIFO was replaced"
grep -q '"schema": "wsstress.run/2"' "$dir/from_fifo" || fail "the FIFO's reader got no report"

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

# Paths that cannot take a report are refused before any
# work (exit 2, one line): a symlink loop, a symlink to a file whose folder
# does not exist, a kernel file system, a name too long.
ln -s "$dir/loop_b" "$dir/loop_a"; ln -s "$dir/loop_a" "$dir/loop_b"
"$ws" run --seeds 0..0 --json "$dir/loop_a" >/dev/null 2>"$dir/err"; rc=$?
[ $rc -eq 2 ] && grep -q "loop of symbolic links" "$dir/err" || fail "a symlink loop as --json: exit $rc"
ln -s "$dir/nowhere/x.json" "$dir/dangling.json"
"$ws" run --seeds 0..0 --json "$dir/dangling.json" >/dev/null 2>"$dir/err"; rc=$?
[ $rc -eq 2 ] && grep -q "symbolic link to nothing that can be written" "$dir/err" || fail "a dangling symlink as --json: exit $rc"
[ -L "$dir/dangling.json" ] || fail "the dangling symlink was replaced"
"$ws" sim --seeds 0..0 --json /proc/self/comm >/dev/null 2>"$dir/err"; rc=$?
[ $rc -eq 2 ] && grep -q "kernel file system" "$dir/err" || fail "/proc as --json: exit $rc"
long=$(printf 'x%.0s' $(seq 1 300))
"$ws" sim --seeds 0..0 --json "$dir/$long.json" >/dev/null 2>"$dir/err"; rc=$?
[ $rc -eq 2 ] && grep -q "name is too long" "$dir/err" || fail "a 300-byte name as --json: exit $rc"
# The default reproducer path is checked up front too (a found hang's
# reproducer is never lost to an unwritable folder); root may write a
# read-only folder, so this part runs only as another user.
mkdir "$dir/ro" && chmod 555 "$dir/ro"
if [ "$(id -u)" -ne 0 ]; then
  (cd "$dir/ro" && "$ws" sim --scenario join --mutant late_is_blocked_lock --seeds 0..0 >/dev/null 2>"$dir/err"); rc=$?
  [ $rc -eq 2 ] && grep -q "default reproducer path" "$dir/err" || fail "sim in a read-only folder: exit $rc"
fi
chmod 755 "$dir/ro"

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
