#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# A crash of the pool is a finding on real threads too:
# `wsstress run` over a mutant that aborts the process prints the FAILED line
# with the signal, the replay command and the verdict, writes the JSON report,
# and exits 1, with --keep-going as well (a crashed process cannot go on).
# Usage: run_crash.sh WSSTRESS SCENARIO MUTANT SEEDS
ws=$1 scenario=$2 mutant=$3 seeds=$4
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
for extra in "" --keep-going; do
  out=$("$ws" run --scenario "$scenario" --mutant "$mutant" --seeds "$seeds" --json "$dir/r.json" $extra 2>&1); rc=$?
  [ "$rc" -eq 1 ] || { printf 'run %s: exit %s, expected 1 (a crash is a failure):\n%s\n' "$extra" "$rc" "$out"; exit 1; }
  case "$out" in *"FAILED seed "*": crash: killed by SIG"*) ;; *) printf 'run %s, no crash line:\n%s\n' "$extra" "$out"; exit 1;; esac
  case "$out" in *"replay: wsstress run --scenario $scenario --seed "*) ;; *) printf 'run %s, no replay command:\n%s\n' "$extra" "$out"; exit 1;; esac
  case "$out" in *"verdict: crash"*) ;; *) printf 'run %s, no verdict line:\n%s\n' "$extra" "$out"; exit 1;; esac
  grep -q '"verdict": "crash"' "$dir/r.json" || { printf 'JSON without the crash:\n'; cat "$dir/r.json"; exit 1; }
  rm -f "$dir/r.json"
done
echo ok
