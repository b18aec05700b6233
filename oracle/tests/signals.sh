#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# A signal stops `wsstress oracle` after the program in
# progress, with the partial report (programs run, agree, differ, hang) in the
# text and the JSON, exit 128 + the signal (130 SIGINT, 143 SIGTERM), and no
# rayon-core runner left. The signal comes once the runner is up (it starts
# with the first program), so the sweep is running.
#   signals.sh WSSTRESS
ws=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
children() {  # the children of $parent, from /proc (read, not cat: a process per file is slow)
  for s in /proc/[0-9]*/stat; do
    read -r pid comm state ppid rest 2>/dev/null <"$s" && [ "$ppid" = "$parent" ] && echo "$pid"
  done
}
for sig in INT TERM; do
  # A shell starts background jobs with SIGINT ignored; env restores it.
  env --default-signal=INT "$ws" oracle --seeds 0..1000000000 --keep-going --out "$dir" --json "$dir/o.json" \
    >"$dir/o.out" 2>&1 &
  parent=$!
  i=0
  while [ -z "$(children)" ]; do
    kill -0 $parent 2>/dev/null || fail "oracle ended before its runner started: $(cat "$dir/o.out")"
    i=$((i + 1))
    [ $i -le 600 ] || fail "no rayon-core runner after 60 s: $(cat "$dir/o.out")"
    sleep 0.1
  done
  kill -$sig $parent
  wait $parent; rc=$?
  want=$([ $sig = INT ] && echo 130 || echo 143)
  [ $rc -eq "$want" ] || fail "oracle after SIG$sig exited $rc, not $want: $(cat "$dir/o.out")"
  grep -q "^oracle: [0-9]* programs: [0-9]* agree, 0 differ, 0 hang, stopped by SIG$sig " "$dir/o.out" \
    || fail "no partial report naming SIG$sig: $(cat "$dir/o.out")"
  grep -q "\"stopped_by\": \"SIG$sig\"" "$dir/o.json" || fail "the JSON lacks stopped_by SIG$sig: $(cat "$dir/o.json")"
  grep -q '"schema": "wsstress.oracle/1"' "$dir/o.json" || fail "the JSON lacks its schema"
  [ -z "$(children)" ] || fail "a rayon-core runner survived SIG$sig"
done
echo "ok: SIGINT and SIGTERM stop oracle with its partial report, 130 and 143"
