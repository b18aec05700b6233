// SPDX-License-Identifier: MIT OR Apache-2.0
// The exit codes of `wsstress`, documented in the README: every subcommand
// returns one of these. Here, in the shared base, because the engines speak
// them too (the Relacy engine's verdict over its searches, a fuzz target's
// child that cannot start); cli/exit_codes.hpp maps verdicts onto them.
#pragma once

namespace wsstress {

enum ExitCode : int {
  kOk = 0,        // the run finished and found nothing wrong
  kFailed = 1,    // a bug found: wrong result, lost or duplicated job, lost exception, broken invariant
  kUsage = 2,     // bad command line: unknown flag, bad value or range, unusable file
  kInternal = 3,  // internal or environment error: the tool itself failed (a pool could not be
                  // built, a file could not be written, a child could not be started)
  kHang = 4,      // the watchdog fired: something stopped making progress
  kEmpty = 5,     // nothing was tested: no seed ran (an empty shard, a budget spent before the first)
};

}  // namespace wsstress
