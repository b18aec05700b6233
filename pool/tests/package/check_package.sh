#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The pool as a package: installs the `pool` component of a build
# tree into a scratch prefix and builds consumer.cpp three ways - find_package
# from that prefix, pkg-config from it, and add_subdirectory of the source with
# every package but Threads hidden from CMake - and runs each.
# Usage: check_package.sh SOURCE_DIR BUILD_DIR SCRATCH_DIR CXX_COMPILER
set -euo pipefail
src=$1 build=$2 scratch=$3 cxx=$4
here=$src/pool/tests/package
rm -rf "$scratch"
mkdir -p "$scratch"
prefix=$scratch/prefix

step() { echo "== $*"; }
# Runs a command quietly; on failure prints its output and the step it failed.
quiet() {
  local log
  log=$(mktemp)
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    echo "check_package: failed: $*" >&2
    rm -f "$log"
    exit 1
  fi
  rm -f "$log"
}
run_consumer() {
  local out
  out=$("$1")
  echo "$out"
  [[ $out == "consumer: ok"* ]] || { echo "check_package: $2: the consumer's answer is wrong" >&2; exit 1; }
}

step "install the pool component into $prefix"
quiet cmake --install "$build" --component pool --prefix "$prefix"
for f in include/wsstress/pool.hpp; do
  [ -f "$prefix/$f" ] || { echo "check_package: $f was not installed" >&2; exit 1; }
done
config=$(find "$prefix" -name wsstressConfig.cmake)
pc=$(find "$prefix" -name wsstress.pc)
[ -n "$config" ] && [ -n "$pc" ] || { echo "check_package: no wsstressConfig.cmake or wsstress.pc" >&2; exit 1; }
if find "$prefix" -type f | grep -Ev '/(include/wsstress/|lib[^/]*/(libwsstress_pool\.a|cmake/wsstress/|pkgconfig/wsstress\.pc))' ; then
  echo "check_package: the pool component installed the files above, which are not the pool's" >&2
  exit 1
fi

step "find_package(wsstress) from the prefix"
quiet cmake -S "$here/find_package" -B "$scratch/find" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
      -DCMAKE_PREFIX_PATH="$prefix"
quiet cmake --build "$scratch/find"
run_consumer "$scratch/find/consumer" find_package

step "pkg-config --cflags --libs wsstress"
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs wsstress)
echo "flags: $flags"
# shellcheck disable=SC2086
quiet "$cxx" -std=c++20 -O1 "$here/consumer.cpp" $flags -o "$scratch/pc_consumer"
run_consumer "$scratch/pc_consumer" pkg-config

step "add_subdirectory of the source, only Threads available"
hidden=()
for p in GTest benchmark nlohmann_json Boost CLI11 TBB; do hidden+=("-DCMAKE_DISABLE_FIND_PACKAGE_$p=ON"); done
quiet cmake -S "$here/subdirectory" -B "$scratch/sub" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
      -DWSSTRESS_SOURCE_DIR="$src" "${hidden[@]}"
quiet cmake --build "$scratch/sub"
run_consumer "$scratch/sub/consumer" add_subdirectory
echo "check_package: ok"
