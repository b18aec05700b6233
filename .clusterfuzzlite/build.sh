#!/bin/bash -eu
# SPDX-License-Identifier: MIT OR Apache-2.0
# ClusterFuzzLite's build step: the repository's OSS-Fuzz build script, which
# reads $CXX, $CXXFLAGS, $LIB_FUZZING_ENGINE and $OUT from the environment.
"$SRC/wsstress/fuzz/build.sh"
