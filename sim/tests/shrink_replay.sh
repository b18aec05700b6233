#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# A shrunk reproducer records what its own run showed: replaying it gives the
# recorded verdict and trace hash (a stale hash would make replay exit 3).
# Usage: shrink_replay.sh WSSTRESS
ws=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
out=$("$ws" sim --scenario join --mutant late_is_blocked_lock --strategy pct --seeds 0..5000 --shrink \
      --repro "$dir/f.repro" 2>&1); rc=$?
[ "$rc" -eq 4 ] || { printf 'sim: exit %s, expected 4 (a hang):\n%s\n' "$rc" "$out"; exit 1; }
out=$("$ws" replay "$dir/f.repro" 2>&1); rc=$?
[ "$rc" -eq 4 ] || { printf 'replay: exit %s, expected 4:\n%s\n' "$rc" "$out"; exit 1; }
case "$out" in *"same as the recorded one"*) ;; *) printf 'replay:\n%s\n' "$out"; exit 1;; esac
echo "ok"
