#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Runs a fuzz target on an input that must crash it and passes only if it did
# (any exit but 0 and 2, a usage error: the standalone driver dies of the
# signal, libFuzzer exits 77 or 1) and its output contains the expected text:
#   expect_crash.sh TEXT -- COMMAND...
text=$1; shift 2
out=$("$@" 2>&1); rc=$?
if [ "$rc" -eq 0 ] || [ "$rc" -eq 2 ]; then printf 'exit %s, expected a crash; output:\n%s\n' "$rc" "$out"; exit 1; fi
case "$out" in *"$text"*) exit 0;; esac
printf "output lacks '%s':\n%s\n" "$text" "$out"; exit 1
