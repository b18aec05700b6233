#!/bin/bash -eu
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
cmake --build "$build" --target program_fuzzer schedule_fuzzer parser_fuzzer
for t in program schedule parser; do
  cp "$build/fuzz/${t}_fuzzer" "$OUT/"
  cp "$src/fuzz/$t.dict" "$OUT/${t}_fuzzer.dict"
  (cd "$src/fuzz/corpus/$t" && zip -q -j "$OUT/${t}_fuzzer_seed_corpus.zip" ./*)
done
# Inputs past these sizes decode to nothing more (program: 48 nodes).
printf '[libfuzzer]\nmax_len = 256\ntimeout = 60\n' > "$OUT/program_fuzzer.options"
printf '[libfuzzer]\nmax_len = 4096\ntimeout = 60\n' > "$OUT/schedule_fuzzer.options"
printf '[libfuzzer]\nmax_len = 16384\ntimeout = 60\n' > "$OUT/parser_fuzzer.options"
