// The exit codes of `wsstress`, documented in the README. Every subcommand
// returns one of these.
#pragma once

namespace wsstress::cli {

enum ExitCode : int {
  kOk = 0,        // the run finished and found nothing wrong
  kFailed = 1,    // a bug found: wrong result, lost or duplicated job, lost exception, broken invariant
  kUsage = 2,     // bad command line: unknown flag, bad value or range, unusable file
  kInternal = 3,  // internal or environment error: the tool itself failed (a pool could not be
                  // built, a file could not be written, a child could not be started)
  kHang = 4,      // the watchdog fired: something stopped making progress
};

}  // namespace wsstress::cli
