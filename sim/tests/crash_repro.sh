#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# A crash of the pool under test is a finding in the simulator (issue #18
# point 1): a sweep over a mutant that crashes the pool prints a FAILED line
# with the signal, counts the seed, writes the reproducer and the JSON report,
# and replaying the reproducer crashes the same way and says so (exit 1).
# Usage: crash_repro.sh WSSTRESS SCENARIO MUTANT SEEDS
ws=$1 scenario=$2 mutant=$3 seeds=$4
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
out=$("$ws" sim --scenario "$scenario" --mutant "$mutant" --seeds "$seeds" --repro "$dir/f.repro" \
      --json "$dir/r.json" 2>&1); rc=$?
[ "$rc" -eq 1 ] || { printf 'sim: exit %s, expected 1 (a crash is a failure):\n%s\n' "$rc" "$out"; exit 1; }
case "$out" in *"FAILED seed "*": crash: killed by SIG"*) ;; *) printf 'sim, no crash line:\n%s\n' "$out"; exit 1;; esac
case "$out" in *"verdict: crash"*) ;; *) printf 'sim, no verdict line:\n%s\n' "$out"; exit 1;; esac
[ -s "$dir/f.repro" ] || { printf 'no reproducer written:\n%s\n' "$out"; exit 1; }
grep -q '"verdict": "crash"' "$dir/r.json" || { printf 'JSON without the crash:\n'; cat "$dir/r.json"; exit 1; }
grep -q '^verdict crash$' "$dir/f.repro" || { printf 'reproducer without the crash:\n'; cat "$dir/f.repro"; exit 1; }
signal=$(sed -n 's/.*: crash: killed by \(SIG[A-Z]*\).*/\1/p' <<EOT | head -n 1
$out
EOT
)
[ -n "$signal" ] || { printf 'no signal name in the crash line:\n%s\n' "$out"; exit 1; }
out=$("$ws" replay "$dir/f.repro" 2>&1); rc=$?
[ "$rc" -eq 1 ] || { printf 'replay: exit %s, expected 1:\n%s\n' "$rc" "$out"; exit 1; }
case "$out" in *"replay: crash: killed by $signal"*) ;; *) printf 'replay, not the same crash (%s):\n%s\n' "$signal" "$out"; exit 1;; esac
echo "ok: $signal"
