#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# `wsstress scoreboard`, small and deterministic: 3 runs x
# 200 schedules of two strategies (the random walk and a portfolio spec, whose
# comma does not split --strategies) on two mutants and the clean pool, in two
# worker processes, on --seed 1. Every run's first seed must be the one --seed
# derives (high 32 bits of splitmix64's mix(1), plus r), every schedule count
# what a direct `wsstress sim` sweep of that run's seeds gives - the failing
# seed's offset + 1, or the 200 seeds of a miss - and every quantile what the
# nearest rank of those counts is; misses must be counted (some runs miss
# here), the clean pool must miss in every run, the SVG must parse as XML with
# one line per strategy and model, and the HTML must hold the plot. A second
# board of every registered strategy (the default) must find
# self_install_blocks in every run under every model and pass the clean
# `join` scenario (--scenarios).
# Usage: scoreboard.sh WSSTRESS SCRATCH_DIR
set -uo pipefail
ws=$1 scratch=$2
rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch" || exit 1
fail() { echo "scoreboard: $*" >&2; exit 1; }

"$ws" scoreboard --runs 3 --budget 200 --strategies random,portfolio:pos=1,pct=2 --memory sc,tso \
  --mutants none,late_is_blocked_lock,latch_set_no_wake --jobs 2 --quiet --seed 1 \
  --json board.json --svg board.svg --html board.html >board.txt 2>board.err
rc=$?
[ "$rc" -eq 0 ] || fail "exit $rc, expected 0: $(cat board.err board.txt | head -c 2000)"
grep -q "| late_is_blocked_lock | sc " board.txt || fail "the text table lacks late_is_blocked_lock's sc row"
grep -q "summary (targets expected to fail):" board.txt || fail "the text lacks the summary"

python3 - "$ws" <<'EOF' || exit 1
import json, math, subprocess, sys, xml.etree.ElementTree as ET
ws = sys.argv[1]
b = json.load(open("board.json"))
assert b["schema"] == "wsstress.scoreboard/1", b["schema"]
assert len(b["cells"]) == 3 * 2 * 2, len(b["cells"])
assert b["strategies"] == ["random", "portfolio:pos=1,pct=2"], b["strategies"]
def mix(z):
    m = (1 << 64) - 1
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & m
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & m
    return z ^ (z >> 31)
assert b["seed"] == 1 and b["budget"] == 200, (b["seed"], b["budget"])
misses = 0
for c in b["cells"]:
    t = next(t for t in b["targets"] if t["name"] == c["target"])
    counts = []
    for r, run in enumerate(c["runs"]):
        first = (((mix(1) >> 32) + r) % (1 << 32)) << 32
        assert run["first_seed"] == first, (c["target"], r, run["first_seed"])
        args = [ws, "sim", "--scenario", t["scenario"], "--mutant", t["mutant"], "--strategy", c["strategy"],
                "--memory", c["memory"], "--seeds", f"{first}..{first + 199}", "--quiet", "--json", "sim.json",
                "--repro", "sim.repro"]
        subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        s = json.load(open("sim.json"))
        failures = s["failures"]
        if failures:
            want = failures[0]["seed"] - first + 1
            assert run["found"] and run["schedules"] == want and run["seed"] == failures[0]["seed"], (c, r, want)
            assert run["replay"].startswith("wsstress sim ") and f"--seed {run['seed']}" in run["replay"], run["replay"]
            counts.append(want)
        else:
            assert not run["found"] and run["schedules"] == 200 == s["runs"], (c, r, s["runs"])
            misses += 1
    assert c["misses"] == 3 - len(counts), c
    def rank(q):
        k = max(1, math.ceil(q * 3))
        return sorted(counts)[k - 1] if k <= len(counts) else None
    assert c["median"] == rank(0.5) and c["p90"] == rank(0.9), (c["median"], c["p90"], counts)
    if t["expect"] == "passes":
        assert c["misses"] == 3 and c["median"] is None, c
assert misses > 6, f"only {misses} misses: the clean pool alone has 12; the test wants some on the mutants"
svg = ET.parse("board.svg").getroot()
paths = svg.findall("{http://www.w3.org/2000/svg}path")
assert len(paths) == 2 * 2, len(paths)
html = open("board.html").read()
assert "<svg" in html and "late_is_blocked_lock" in html and "http" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
assert "; 36 runs, 2 jobs" in html, "the page's header counts the runs"
print(f"scoreboard: {len(b['cells'])} cells match their direct sim sweeps; {misses} misses")
EOF

"$ws" scoreboard --runs 2 --budget 20 --mutants none,self_install_blocks --scenarios join --quiet \
  --json every.json >every.txt 2>every.err || fail "every strategy: exit $?: $(head -c 2000 every.err)"
python3 - <<'EOF' || exit 1
import json
b = json.load(open("every.json"))
assert {"random", "pct", "dfs", "sleep-first", "portfolio", "pos"} <= set(b["strategies"]), b["strategies"]
assert b["memories"] == ["sc", "tso", "cpp"], b["memories"]
for c in b["cells"]:
    if c["target"] == "self_install_blocks":
        assert c["misses"] == 0 and c["median"] is not None, c
    else:
        assert c["target"] in ("none", "join") and c["found"] == 0, c
assert len(b["cells"]) == 3 * 3 * len(b["strategies"]), len(b["cells"])
print(f"scoreboard: every one of {len(b['strategies'])} strategies finds self_install_blocks in every run")
EOF

# External programs: each row of external_programs.hpp says whether it must
# fail and its one model, so 'ext_moby*' is a buggy program and its twin under sc only.
"$ws" scoreboard --runs 2 --budget 5 --strategies random --memory sc,cpp --mutants '' --scenarios 'ext_moby*' --quiet \
  --json ext.json >ext.txt 2>ext.err || fail "external programs: exit $?: $(head -c 2000 ext.err)"
python3 - <<'EOF' || exit 1
import json
b = json.load(open("ext.json"))
expect = {t["name"]: t["expect"] for t in b["targets"]}
assert expect == {"ext_moby25384": "fails", "ext_moby25384_fixed": "passes"}, expect
cells = sorted((c["target"], c["memory"]) for c in b["cells"])
assert cells == [("ext_moby25384", "sc"), ("ext_moby25384_fixed", "sc")], cells
for c in b["cells"]:
    assert c["misses"] == (0 if c["target"] == "ext_moby25384" else 2), c
print("scoreboard: the external programs take their expectation and model from their rows")
EOF

# Usage errors: one line, exit 2.
"$ws" scoreboard --scenarios ext_wsq_fixed:fails >err.txt 2>&1; [ $? -eq 2 ] && grep -q "is a fixed twin: it must pass" err.txt ||
  fail "a twin said to fail: $(cat err.txt)"
"$ws" scoreboard --strategies frob >err.txt 2>&1; [ $? -eq 2 ] && grep -q "unknown strategy 'frob'" err.txt ||
  fail "an unknown strategy: $(cat err.txt)"
"$ws" scoreboard --strategies pos,portfolio:pos=1,frob=2 >err.txt 2>&1; [ $? -eq 2 ] &&
  grep -q "^wsstress: error: --strategies: bad portfolio 'portfolio:pos=1,frob=2': unknown member 'frob' (members: " err.txt &&
  [ "$(wc -l <err.txt)" -eq 1 ] || fail "a bad portfolio spec: $(cat err.txt)"
"$ws" scoreboard --memory sc,arm >err.txt 2>&1; [ $? -eq 2 ] && grep -q "unknown memory model 'arm'" err.txt ||
  fail "an unknown model: $(cat err.txt)"
"$ws" scoreboard --mutants caught,late_is_blocked_lock >err.txt 2>&1; [ $? -eq 2 ] && grep -q "is given twice" err.txt ||
  fail "a mutant twice: $(cat err.txt)"
"$ws" scoreboard --scenarios 'zz*' >err.txt 2>&1; [ $? -eq 2 ] && grep -q "no scenario starts with 'zz'" err.txt ||
  fail "an unknown scenario family: $(cat err.txt)"
echo "scoreboard: ok"
