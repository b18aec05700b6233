#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Which functions of pool/ each Relacy model executes.

Builds the Relacy runner with gcc's --coverage in a build directory of its
own, runs every model on the clean pool with the search it runs in CI (one
model at a time, the counters cleared in between), reads gcov's JSON and
prints a table: for each function of the pool's headers that some model
instantiates, the bounded models (context-bound or full search, so
"executed" is a property of the whole bounded search) and the random-search
models that execute it. Functions no bounded model executes are listed first.

Usage: relacy/coverage.py [--wsstress PATH] [--build-dir DIR] [--markdown FILE] [--no-build]
The client is an ordinary wsstress (default build/default/cli/wsstress); the
instrumented runner is handed to it through WSSTRESS_RELACY_RUNNER.
"""
import argparse
import collections
import glob
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
POOL = os.path.join(ROOT, "pool", "include", "wsstress", "pool") + os.sep
# Not the pool's protocol: the platform policy for real threads, option
# parsing and the trace vocabulary.
SKIP = ("platform" + os.sep, "parse_usize.hpp", "trace.hpp", "builder.hpp", "mutants.hpp", "mutant_list.hpp")


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, **kw)


def build(build_dir):
    run(["cmake", "-S", ROOT, "-B", build_dir, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=None", "-DBUILD_TESTING=OFF",
         "-DCMAKE_CXX_FLAGS=-O0 -g0 --coverage", "-DCMAKE_EXE_LINKER_FLAGS=--coverage"], stdout=subprocess.DEVNULL)
    run(["cmake", "--build", build_dir, "--target", "wsstress-relacy"], stdout=subprocess.DEVNULL)


def models(wsstress, env):
    """(name, bounded) for every model, from `wsstress relacy --list`."""
    out = run([wsstress, "relacy", "--list"], env=env, capture_output=True).stdout
    result, name = [], None
    for line in out.splitlines():
        if line and not line.startswith(" "):
            name = line.strip()
        elif line.strip().startswith("search:") and name:
            result.append((name, "random" not in line))
    return result


def short_name(demangled):
    """wsstress::pool::Sleep<...>::sleep(...) -> Sleep::sleep"""
    s = demangled.replace("wsstress::pool::", "").replace("wsstress::relacy::", "")
    prev = None
    while prev != s:  # drop template arguments, innermost first
        prev = s
        s = re.sub(r"<[^<>]*>", "", s)
    s = s.split("(")[0]
    for prefix in ("void ", "bool ", "auto ", "static "):
        if s.startswith(prefix):
            s = s[len(prefix):]
    return s.split(" ")[-1] or demangled


def executed_functions(build_dir):
    """{(file, line): (name, executed)} over every translation unit of the runner."""
    objdir = os.path.join(build_dir, "relacy", "CMakeFiles", "wsstress_relacy_files.dir", "src")
    funcs = {}
    with tempfile.TemporaryDirectory() as tmp:
        # src/ (the table) and src/models/, each read into a folder of its own.
        for i, d in enumerate([objdir, os.path.join(objdir, "models")]):
            gcdas = glob.glob(os.path.join(d, "*.gcda"))
            if gcdas:
                out = os.path.join(tmp, str(i))
                os.mkdir(out)
                run(["gcov", "-j", "-m", "-o", d] + gcdas, cwd=out, stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL)
        for path in glob.glob(os.path.join(tmp, "*", "*.gcov.json.gz")):
            with gzip.open(path, "rt") as f:
                data = json.load(f)
            for entry in data["files"]:
                src = os.path.normpath(os.path.join(data.get("current_working_directory", ""), entry["file"]))
                if not src.startswith(POOL) or any(k in src[len(POOL):] for k in SKIP):
                    continue
                rel = src[len(POOL):]
                for fn in entry.get("functions", []):
                    key = (rel, fn["start_line"])
                    name = short_name(fn.get("demangled_name", fn["name"]))
                    was = funcs.get(key, (name, False))
                    funcs[key] = (was[0], was[1] or fn["execution_count"] > 0)
    return funcs


def clear_counters(build_dir):
    for path in glob.glob(os.path.join(build_dir, "**", "*.gcda"), recursive=True):
        os.remove(path)


def table(universe, by_model, bounded):
    rows = []
    for key in sorted(universe, key=lambda k: (k[0], k[1])):
        name = universe[key]
        b = [m for m in bounded if key in by_model[m]]
        r = [m for m in by_model if m not in bounded and key in by_model[m]]
        rows.append((key, name, b, r))
    lines = ["| function | file:line | bounded models | random-search models |", "|---|---|---|---|"]
    outside = [row for row in rows if not row[2]]
    inside = [row for row in rows if row[2]]
    for (f, l), name, b, r in outside + inside:
        lines.append(f"| `{name}` | {f}:{l} | {', '.join(b) or '**none**'} | {', '.join(r) or '-'} |")
    summary = (f"{len(inside)} of {len(rows)} functions of the pool's protocol that the models instantiate are "
               f"executed by a bounded search; {len(outside)} only by random searches or by none")
    per_file = collections.OrderedDict()
    for (f, _), _, b, r in rows:
        n = per_file.setdefault(f, [0, 0, 0, 0])
        n[0] += 1
        n[1] += 1 if b else 0
        n[2] += 1 if not b and r else 0
        n[3] += 1 if not b and not r else 0
    files = ["| file | functions | bounded | random only | none |", "|---|---|---|---|---|"]
    for f, (total, b, r, none) in per_file.items():
        files.append(f"| {f} | {total} | {b} | {r} | {none} |")
    return summary + "\n\n" + "\n".join(files), "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wsstress", default=os.path.join(ROOT, "build", "default", "cli", "wsstress"))
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build", "relacy-coverage"))
    ap.add_argument("--markdown", help="also write the table to this file")
    ap.add_argument("--no-build", action="store_true")
    a = ap.parse_args()
    if not os.access(a.wsstress, os.X_OK):
        sys.exit(f"relacy/coverage.py: no wsstress at {a.wsstress} (build the default preset, or pass --wsstress)")
    if not a.no_build:
        build(a.build_dir)
    env = dict(os.environ, WSSTRESS_RELACY_RUNNER=os.path.join(a.build_dir, "cli", "wsstress-relacy"))
    by_model, bounded, universe = {}, [], {}
    for name, is_bounded in models(a.wsstress, env):
        clear_counters(a.build_dir)
        proc = subprocess.run([a.wsstress, "relacy", "--model", name, "--quiet"], env=env, text=True,
                              capture_output=True)
        verdict = proc.stdout.strip().splitlines()[0] if proc.stdout.strip() else proc.stderr.strip()
        print(f"coverage: {verdict}", file=sys.stderr)
        funcs = executed_functions(a.build_dir)
        for key, (fname, _) in funcs.items():
            universe.setdefault(key, fname)
        by_model[name] = {k for k, (_, ex) in funcs.items() if ex}
        if is_bounded:
            bounded.append(name)
    summary, text = table(universe, by_model, bounded)
    out = summary + "\n\n" + text + "\n"
    print(out)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(out)


if __name__ == "__main__":
    main()
