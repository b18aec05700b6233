#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# A Relacy runner whose searches never end: it lists the real runner's models
# ($WSSTRESS_REAL_RELACY_RUNNER), and every search sleeps until the client
# stops it at its limit. For matrix_incomplete.sh: a stopped search, whatever
# the machine's speed.
case "$1" in
  list) exec "$WSSTRESS_REAL_RELACY_RUNNER" list ;;
  *) exec sleep 600 ;;
esac
