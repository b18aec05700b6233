#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# The option names issue #17 replaced are not accepted any more
# (docs/design/versioning.md): each is a usage error, exit 2, with one line
# that names it. Usage: old_spelling.sh WSSTRESS
ws=$1
check() {  # OLD_NAME ARGS...
  name=$1; shift
  out=$("$ws" "$@" 2>&1); rc=$?
  [ "$rc" -eq 2 ] || { printf 'wsstress %s: exit %s, expected 2:\n%s\n' "$*" "$rc" "$out"; exit 1; }
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || { printf 'wsstress %s: more than one line:\n%s\n' "$*" "$out"; exit 1; }
  case "$out" in *"$name"*) ;; *) printf "wsstress %s: the line does not name %s: %s\n" "$*" "$name" "$out"; exit 1;; esac
}
check --timeout run --scenario join --iterations 1 --timeout 5 --quiet
check --timeout smoke --timeout 5
check --budget mutants check --budget 5
check --time fuzz --time 5
check --seed fuzz --seed 3
check --time-limit relacy --time-limit 5
check --iterations relacy --iterations 5
echo "ok: every old spelling is a usage error naming it"
