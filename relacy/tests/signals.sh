#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# The first SIGINT or SIGTERM kills
# the search in progress and ends the command with what finished (exit 128 +
# the signal, a summary naming it, JSON stopped_by), and no search child is
# left running. Usage: signals.sh WSSTRESS
ws=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
children() {  # the children of $parent, from /proc
  for s in /proc/[0-9]*/stat; do
    set -- $(cat "$s" 2>/dev/null) && [ "$4" = "$parent" ] && echo "$1"
  done
}
for sig in INT TERM; do
  # A shell starts background jobs with SIGINT ignored; env restores it.
  env --default-signal=INT "$ws" relacy --model latch --search bound --bound 3 --max-seconds 60 \
    --json "$dir/r.json" >"$dir/r.out" 2>&1 &
  parent=$!
  sleep 1.5
  [ -n "$(children)" ] || fail "no search child was running after 1.5 s"
  kill -$sig $parent
  wait $parent; rc=$?
  want=$([ $sig = INT ] && echo 130 || echo 143)
  [ $rc -eq "$want" ] || fail "relacy after SIG$sig exited $rc, not $want: $(cat "$dir/r.out")"
  grep -q "stopped by SIG$sig after 0 of 1 searches" "$dir/r.out" || fail "summary: $(cat "$dir/r.out")"
  grep -q "\"stopped_by\": \"SIG$sig\"" "$dir/r.json" || fail "the JSON lacks stopped_by"
  [ -z "$(children)" ] || fail "a search child survived SIG$sig"
done
echo "ok: SIGINT and SIGTERM end relacy with 130 and 143, no child left"
