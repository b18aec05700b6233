#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# fuzz/build.sh as OSS-Fuzz and ClusterFuzzLite run it: their
# environment ($CC, $CXX, $CXXFLAGS with the sanitizer and coverage flags,
# $LIB_FUZZING_ENGINE, $OUT, $WORK, $SRC) into scratch folders; then $OUT must
# hold each target, its seed-corpus zip (every corpus file), dictionary and
# options file, and each target must replay its unzipped seed corpus and run
# a few fuzzed inputs with its options.
# Usage: oss_fuzz_build.sh SOURCE_DIR SCRATCH_DIR CXX_COMPILER
set -euo pipefail
src=$1 scratch=$2 cxx=$3
rm -rf "$scratch"
mkdir -p "$scratch/out" "$scratch/work"
fail() { echo "oss_fuzz_build: $*" >&2; exit 1; }

export CXX=$cxx CC=${cxx/clang++/clang}
export CXXFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
export LIB_FUZZING_ENGINE=-fsanitize=fuzzer
export OUT=$scratch/out WORK=$scratch/work SRC=$src/..
log=$scratch/build.log
"$src/fuzz/build.sh" >"$log" 2>&1 || { tail -40 "$log" >&2; fail "fuzz/build.sh failed (log: $log)"; }

export ASAN_OPTIONS=detect_leaks=0
targets="program schedule parser"
# oracle_fuzzer, where build.sh found rayon-core 1.10.1's runner (Debian's
# librust-rayon-core-dev, as on this machine): then the runner is beside it.
if [ -e /usr/share/cargo/registry/rayon-core-1.10.1 ] && command -v cargo >/dev/null; then
  [ -x "$OUT/wsstress-rayon-oracle" ] || fail "$OUT/wsstress-rayon-oracle is missing (cargo and rayon-core 1.10.1 are here)"
  targets="$targets oracle"
fi
for t in $targets; do
  corpus=$t
  [ "$t" = oracle ] && corpus=program
  target=$OUT/${t}_fuzzer
  [ -x "$target" ] || fail "$target is missing"
  for f in "${t}_fuzzer.dict" "${t}_fuzzer.options" "${t}_fuzzer_seed_corpus.zip"; do
    [ -s "$OUT/$f" ] || fail "$OUT/$f is missing or empty"
  done
  grep -q '^\[libfuzzer\]' "$OUT/${t}_fuzzer.options" || fail "${t}_fuzzer.options has no [libfuzzer] section"
  in_zip=$(unzip -Z1 "$OUT/${t}_fuzzer_seed_corpus.zip" | wc -l)
  in_src=$(find "$src/fuzz/corpus/$corpus" -type f | wc -l)
  [ "$in_zip" -eq "$in_src" ] || fail "${t}_fuzzer_seed_corpus.zip holds $in_zip files, the corpus $in_src"
  seeds=$scratch/seeds-$t
  unzip -q "$OUT/${t}_fuzzer_seed_corpus.zip" -d "$seeds"
  # The options file's settings, as ClusterFuzz passes them.
  opts=$(sed -n 's/^\([a-z_]*\) = \(.*\)$/-\1=\2/p' "$OUT/${t}_fuzzer.options" | tr '\n' ' ')
  # shellcheck disable=SC2086
  "$target" $opts -dict="$OUT/${t}_fuzzer.dict" -runs=0 "$seeds" >"$scratch/replay-$t.log" 2>&1 ||
    { tail -20 "$scratch/replay-$t.log" >&2; fail "${t}_fuzzer failed replaying its seed corpus"; }
  mkdir -p "$scratch/corpus-$t"
  # -runs counts the seed corpus's replay too: 50 mutated inputs past it.
  runs=$((in_zip + 50))
  # shellcheck disable=SC2086
  "$target" $opts -dict="$OUT/${t}_fuzzer.dict" -runs=$runs -seed=1 "$scratch/corpus-$t" "$seeds" \
    >"$scratch/run-$t.log" 2>&1 || { tail -20 "$scratch/run-$t.log" >&2; fail "${t}_fuzzer failed fuzzing"; }
  grep -q "Done $runs runs" "$scratch/run-$t.log" || fail "${t}_fuzzer did not run $runs inputs"
  echo "ok: ${t}_fuzzer ($in_zip seeds, options: $opts)"
done
echo "oss_fuzz_build: ok"
