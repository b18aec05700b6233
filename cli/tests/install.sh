#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The tool installed: `cmake --install` of a build tree into a
# scratch prefix, then the .deb that `cpack -G DEB` makes of it, unpacked into
# a scratch root (no root needed). From each, the installed wsstress must run
# `smoke`, find its installed fuzz targets, seed corpus and Relacy runner, and
# the man page and completions must be where Debian looks for them.
# Usage: install.sh BUILD_DIR SCRATCH_DIR
set -euo pipefail
build=$1 scratch=$2
rm -rf "$scratch"
mkdir -p "$scratch"

fail() { echo "install: $*" >&2; exit 1; }
quiet() {
  local log
  log=$(mktemp)
  if ! "$@" >"$log" 2>&1; then cat "$log" >&2; rm -f "$log"; fail "failed: $*"; fi
  rm -f "$log"
}

# Checks one installed tree whose prefix is $1.
check_prefix() {
  local p=$1 f
  for f in bin/wsstress share/man/man1/wsstress.1 share/bash-completion/completions/wsstress \
           share/zsh/vendor-completions/_wsstress libexec/wsstress/fuzz/program_fuzzer \
           libexec/wsstress/fuzz/oracle_fuzzer \
           libexec/wsstress/fuzz/schedule_fuzzer share/wsstress/fuzz/program.dict \
           share/wsstress/fuzz/corpus/program include/wsstress/pool.hpp; do
    [ -e "$p/$f" ] || fail "$p/$f is missing"
  done
  local out
  out=$("$p/bin/wsstress" smoke --threads 2 --fib 20 --rounds 3) || fail "smoke failed from $p: $out"
  [[ $out == *"smoke: ok"* ]] || fail "smoke from $p printed no 'smoke: ok': $out"
  # The fuzz command from the installed layout: its targets, corpus and dictionary.
  out=$("$p/bin/wsstress" fuzz --target program --runs 20 --max-seconds 30 --out "$scratch/fz-$(basename "$p")" 2>&1) ||
    fail "fuzz failed from $p: $out"
  [[ $out == *"no finding"* ]] || fail "fuzz from $p found something or did not run: $out"
  # The differential target finds rayon-core's runner in the installed libexec folder.
  if [ -e "$p/libexec/wsstress/wsstress-rayon-oracle" ]; then
    out=$("$p/bin/wsstress" fuzz --target oracle --runs 20 --max-seconds 30 --out "$scratch/fzo-$(basename "$p")" 2>&1) ||
      fail "fuzz --target oracle failed from $p: $out"
    [[ $out == *"no finding"* ]] || fail "fuzz --target oracle from $p found something or did not run: $out"
  fi
  if [ -e "$p/libexec/wsstress/wsstress-relacy" ]; then
    out=$("$p/bin/wsstress" relacy --model inject --executions 100 2>&1) || fail "relacy failed from $p: $out"
    [[ $out == *"every model passed"* ]] || fail "relacy from $p did not run its model: $out"
  fi
  echo "ok: $p"
}

echo "== cmake --install into $scratch/prefix"
quiet cmake --install "$build" --prefix "$scratch/prefix"
check_prefix "$scratch/prefix"

echo "== cpack -G DEB"
quiet cpack -G DEB --config "$build/CPackConfig.cmake" -B "$scratch/cpack"
deb=$(ls "$scratch"/cpack/*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
[[ $depends == *libboost-context* && $depends == *libstdc++6* ]] ||
  fail "the .deb's Depends lack the runtime packages: $depends"
dpkg-deb -x "$deb" "$scratch/root"
check_prefix "$scratch/root/usr"
echo "install: ok"
