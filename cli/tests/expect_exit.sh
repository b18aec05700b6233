#!/bin/sh
# Runs a command and passes only if it exits with the expected code and its
# stderr contains the expected text: expect_exit.sh CODE TEXT -- COMMAND...
code=$1; text=$2; shift 3
err=$("$@" 2>&1 >/dev/null); rc=$?
if [ "$rc" -ne "$code" ]; then echo "exit $rc, expected $code; stderr: $err"; exit 1; fi
case "$err" in *"$text"*) exit 0;; esac
echo "stderr lacks '$text': $err"; exit 1
