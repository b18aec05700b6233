#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The offline HTML reports: a lost wake-up found by the simulator
# (PCT, a fixed seed range) written with --html, opened in headless Chromium
# from disk: the page draws its timeline and, opened with #selftest, reads
# its own pixels back - every fiber's lane drawn, the fiber nothing woke
# marked in red. A screenshot must be a real PNG. The page refers to nothing
# outside itself. The mutant matrix's --html table colours each cell.
# Usage: html_report.sh WSSTRESS SCRATCH_DIR
set -uo pipefail
ws=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail() { echo "html_report: $*" >&2; exit 1; }
browser=$(command -v chromium || command -v chromium-browser) || fail "no chromium (scripts/setup installs it)"
headless() { "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars "$@" 2>/dev/null; }

"$ws" sim --scenario join --mutant late_is_blocked_lock --strategy pct --seeds 0..2000 --repro r.repro --html r.html -q
rc=$?
[ "$rc" -eq 4 ] || fail "sim exited $rc, expected 4 (a lost wake-up)"
[ -s r.html ] || fail "no r.html"
if grep -Eq '(src|href)="?(https?:)?//' r.html; then fail "r.html loads something from a network"; fi
grep -q "verdict: hang" r.html || fail "r.html does not state the verdict"
grep -q "wsstress replay r.repro" r.html || fail "r.html does not say how to replay the run"

dom=$(headless --dump-dom "file://$dir/r.html#selftest")
line=$(printf '%s' "$dom" | grep -o 'selftest: lanes drawn [0-9][^<]*') || fail "the page ran no self-test: $(printf '%s' "$dom" | head -c 300)"
echo "$line"
read -r drawn of stuck red < <(printf '%s' "$line" | sed -E 's/.*drawn ([0-9]+) of ([0-9]+); never woken ([0-9]+); red pixels ([0-9]+).*/\1 \2 \3 \4/')
[ "$of" -ge 2 ] && [ "$drawn" -eq "$of" ] || fail "lanes drawn: $drawn of $of"
[ "$stuck" -ge 1 ] || fail "the lost wake-up's fiber is not marked (never woken: $stuck)"
[ "$red" -gt 50 ] || fail "the never-woken mark is not drawn ($red red pixels)"

headless --screenshot="$dir/r.png" --window-size=1400,330 "file://$dir/r.html"
file r.png | grep -q "PNG image data, 1400 x 330" || fail "no 1400x330 screenshot: $(file r.png)"

# The same report from the reproducer.
"$ws" replay r.repro --html replay.html >/dev/null; [ $? -eq 4 ] || fail "replay did not reproduce the hang"
grep -q "never woken" replay.html || fail "replay.html has no timeline script"

# The matrix: cells coloured by outcome, catches with their replay command.
"$ws" mutants check --engine sim-sc --only none,cross_is_cold --max-seconds 5 --html m.html >/dev/null ||
  fail "mutants check failed"
grep -q '<td class="caught">hang' m.html || fail "m.html has no caught cell"
grep -q '<td class="clean">' m.html || fail "m.html has no clean cell"
grep -q '<code>wsstress sim ' m.html || fail "m.html has no replay command"

# An output it cannot write: one line, exit 2, before any run.
out=$("$ws" sim --scenario join --seeds 0..1 --html /nonexistent/dir/x.html 2>&1); rc=$?
[ "$rc" -eq 2 ] && [[ $out == *"--html"* ]] || fail "an unwritable --html exited $rc: $out"
echo "html_report: ok"
