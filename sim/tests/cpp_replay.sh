#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# The C++ memory model end to end: a sweep finds deque_pop_no_fence
# (the owner's pop without its fence) as a data race on a job, the shrunk
# reproducer replays to the same trace hash, and the trace shows the stale
# reads that made both take the last job (the thief's load of `back`, the
# owner's load of `front`).
# Usage: cpp_replay.sh WSSTRESS
ws=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
out=$("$ws" sim --scenario join --mutant deque_pop_no_fence --memory cpp --seeds 0..1000 --shrink \
      --repro "$dir/f.repro" 2>&1); rc=$?
[ "$rc" -eq 1 ] || { printf 'sim: exit %s, expected 1 (a bug):\n%s\n' "$rc" "$out"; exit 1; }
case "$out" in *"data race"*) ;; *) printf 'sim: no data race:\n%s\n' "$out"; exit 1;; esac
grep -q '^memory cpp$' "$dir/f.repro" || { echo "the reproducer does not record memory cpp"; exit 1; }
out=$("$ws" replay "$dir/f.repro" --trace 2>&1); rc=$?
[ "$rc" -eq 1 ] || { printf 'replay: exit %s, expected 1:\n%s\n' "$rc" "$out"; exit 1; }
case "$out" in *"same as the recorded one"*) ;; *) printf 'replay:\n%s\n' "$out"; exit 1;; esac
case "$out" in *"stale read"*"deque.hpp"*"back in modification order"*) ;; *) printf 'replay trace shows no stale read in the deque:\n%s\n' "$out"; exit 1;; esac
echo "ok"
