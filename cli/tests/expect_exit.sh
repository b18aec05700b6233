#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Runs a command and passes only if it exits with the expected code and its
# output (stdout and stderr together) contains the expected text ("-": any):
#   expect_exit.sh CODE TEXT -- COMMAND...
code=$1; text=$2; shift 3
out=$("$@" 2>&1); rc=$?
if [ "$rc" -ne "$code" ]; then printf 'exit %s, expected %s; output:\n%s\n' "$rc" "$code" "$out"; exit 1; fi
[ "$text" = "-" ] && exit 0
case "$out" in *"$text"*) exit 0;; esac
printf "output lacks '%s':\n%s\n" "$text" "$out"; exit 1
