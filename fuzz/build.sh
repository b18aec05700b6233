#!/bin/bash -eu
# SPDX-License-Identifier: MIT OR Apache-2.0
# Builds the fuzz targets the way OSS-Fuzz and ClusterFuzzLite expect: with
# their $CC, $CXX, $CXXFLAGS (sanitizer and coverage flags) and
# $LIB_FUZZING_ENGINE, and puts in $OUT each target, its seed corpus
# (<target>_seed_corpus.zip), its dictionary (<target>.dict) and its options
# (<target>.options). The image needs: cmake ninja-build
# libboost-context-dev nlohmann-json3-dev zip (see README, "Fuzzing at scale").
# Run locally: CC=clang-14 CXX=clang++-14 CXXFLAGS='-fsanitize=address,fuzzer-no-link'
#              LIB_FUZZING_ENGINE=-fsanitize=fuzzer OUT=/tmp/out fuzz/build.sh
src=$(cd "$(dirname "$0")/.." && pwd)
build=${WORK:-/tmp}/wsstress-fuzz-build
: "${OUT:?set OUT to the folder for the fuzz targets}"
: "${LIB_FUZZING_ENGINE:?set LIB_FUZZING_ENGINE (e.g. -fsanitize=fuzzer)}"
mkdir -p "$OUT"
cmake -S "$src" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="${CXX:-c++}" \
  -DCMAKE_CXX_FLAGS="${CXXFLAGS:-}" -DCMAKE_EXE_LINKER_FLAGS="${CXXFLAGS:-}" \
  -DBUILD_TESTING=OFF -DWSSTRESS_RELACY=OFF -DWSSTRESS_FUZZ_TARGETS_ONLY=ON \
  -DWSSTRESS_FUZZ_ENGINE="$LIB_FUZZING_ENGINE"
cmake --build "$build" --target program_fuzzer oracle_fuzzer schedule_fuzzer parser_fuzzer
targets="program schedule parser"
# oracle_fuzzer needs rayon-core 1.10.1's runner beside it, which CMake builds
# only where cargo and Debian's librust-rayon-core-dev (1.10.1) are: not in
# ClusterFuzzLite's Ubuntu 24.04 image, whose rayon-core is another version.
if [ -x "$build/cli/wsstress-rayon-oracle" ]; then
  cp "$build/cli/wsstress-rayon-oracle" "$OUT/"
  targets="$targets oracle"
else
  echo "fuzz/build.sh: no rayon-core 1.10.1 runner (cargo, librust-rayon-core-dev): oracle_fuzzer left out" >&2
fi
for t in $targets; do
  corpus=$t
  [ "$t" = oracle ] && corpus=program  # the same programs, the same dictionary
  cp "$build/fuzz/${t}_fuzzer" "$OUT/"
  cp "$src/fuzz/$corpus.dict" "$OUT/${t}_fuzzer.dict"
  (cd "$src/fuzz/corpus/$corpus" && zip -q -j "$OUT/${t}_fuzzer_seed_corpus.zip" ./*)
done
# Inputs past these sizes decode to nothing more (program: 48 nodes).
printf '[libfuzzer]\nmax_len = 256\ntimeout = 60\n' > "$OUT/program_fuzzer.options"
printf '[libfuzzer]\nmax_len = 256\ntimeout = 60\n' > "$OUT/oracle_fuzzer.options"
printf '[libfuzzer]\nmax_len = 4096\ntimeout = 60\n' > "$OUT/schedule_fuzzer.options"
printf '[libfuzzer]\nmax_len = 16384\ntimeout = 60\n' > "$OUT/parser_fuzzer.options"
