#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# A pool whose threads cannot all start is a build error
# named with its thread count (exit 3), not a silent pile-up (ctest's timeout
# catches a hang).
# The thread limit is RLIMIT_NPROC, which root ignores: as root the command
# runs as `nobody`. Usage: thread_limit.sh WSSTRESS
ws=$1
if [ "$(id -u)" -eq 0 ]; then
  run_as="setpriv --reuid=65534 --regid=65534 --clear-groups"
  base=0
else
  run_as=""
  base=$(ps -L -u "$(id -u)" --no-headers | wc -l)  # the limit counts the user's threads
fi
limit=$((base + 100))  # the first pool of 64 starts, the second cannot
out=$(RAYON_NUM_THREADS=64 $run_as prlimit --nproc=$limit "$ws" smoke --fib 10 --rounds 1 2>&1); rc=$?
[ "$rc" -eq 3 ] || { printf 'exit %s, expected 3:\n%s\n' "$rc" "$out"; exit 1; }
case "$out" in *"cannot build a pool of 64 threads"*"limit on threads"*) ;; *) printf 'message:\n%s\n' "$out"; exit 1;; esac
echo "ok: $out"
