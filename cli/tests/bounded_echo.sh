#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# An error quotes a user value by its first bytes and its
# length, so a 100 KB argument or reproducer token is still a short line.
#   bounded_echo.sh WSSTRESS
ws=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
big=$(head -c 102400 /dev/zero | tr '\0' 7)
check() {  # check WHAT EXPECTED-TEXT: the last command's output in $dir/out
  [ "$rc" -eq 2 ] || fail "$1: exit $rc, not 2"
  [ "$(wc -l <"$dir/out")" -eq 1 ] || fail "$1: not one line: $(head -c 400 "$dir/out")"
  [ "$(wc -c <"$dir/out")" -lt 400 ] || fail "$1: $(wc -c <"$dir/out") bytes: $(head -c 400 "$dir/out")"
  grep -q -- "$2" "$dir/out" || fail "$1: lacks '$2': $(cat "$dir/out")"
}
"$ws" sim --seeds "$big" >"$dir/out" 2>&1; rc=$?
check "--seeds of 100 KB" "(102400 bytes) is not a seed"
"$ws" sim --threads "$big" >"$dir/out" 2>&1; rc=$?
check "--threads of 100 KB" "(102400 bytes) is not a whole number"
"$ws" sim "--$big" >"$dir/out" 2>&1; rc=$?
check "an unknown flag of 100 KB" "(102402 bytes)"
# A reproducer whose version token is 100 KB (read before its checksum).
printf 'wsstress-repro %s\n' "$big" >"$dir/big.repro"
"$ws" replay "$dir/big.repro" >"$dir/out" 2>&1; rc=$?
check "a 100 KB reproducer token" "(102400 bytes) is not supported"
echo "bounded echo: ok"
