#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Every wake arrow of a Perfetto trace has both ends (a
# flow start "s" at the notify or unlock, a flow end "f" at the woken fiber's
# next run). The failure is a lost wake-up found by PCT at a fixed seed range,
# whose trace has fibers woken twice before they run.
# Usage: perfetto_flows.sh WSSTRESS SCRATCH_DIR
ws=$1; dir=$2
mkdir -p "$dir" && rm -f "$dir/t.json"
"$ws" sim --scenario join --mutant late_is_blocked_lock --strategy pct --seeds 0..2000 --trace-out "$dir/t.json" -q
rc=$?
[ "$rc" -eq 4 ] || { echo "sim exited $rc, expected 4 (a hang)"; exit 1; }
starts=$(grep -o '"ph":"s"' "$dir/t.json" | wc -l)
ends=$(grep -o '"ph":"f"' "$dir/t.json" | wc -l)
[ "$starts" -gt 0 ] || { echo "no wake arrows at all"; exit 1; }
[ "$starts" -eq "$ends" ] || { echo "$starts wake arrows start, $ends end"; exit 1; }
echo "ok: $starts wake arrows, each with its end"
