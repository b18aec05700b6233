#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# A seed corpus holds fuzzer inputs, not reproducers. The
# parser corpus's inputs in the reproducer format are there for the parser
# (some malformed, some recorded by older builds: their schedules diverge
# when replayed), so none is named .repro, the suffix `wsstress replay`
# files carry; they are named .parser-input, and they are still there.
#   corpus_names.sh SOURCE_DIR
corpus=$1/fuzz/corpus
fail() { echo "FAIL: $*"; exit 1; }
[ -d "$corpus/parser" ] || fail "no $corpus/parser"
named=$(find "$corpus" -type f -name '*.repro')
[ -z "$named" ] || fail "corpus inputs named as reproducers: $named"
n=0
for f in "$corpus"/parser/*.parser-input; do
  [ -f "$f" ] || continue
  head -n 1 "$f" | grep -q '^wsstress-repro ' || fail "$f is not in the reproducer format"
  n=$((n + 1))
done
[ "$n" -ge 5 ] || fail "$n .parser-input files in $corpus/parser, expected the 5 in the reproducer format"
exit 0
