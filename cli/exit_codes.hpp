// The exit codes of `wsstress`, documented in the README. Every subcommand
// returns one of these.
#pragma once

namespace wsstress::cli {

enum ExitCode : int {
  kOk = 0,           // the run finished and found nothing wrong
  kFailed = 1,       // the run found a problem (a wrong result, a failed check)
  kUsage = 2,        // bad command line: unknown flag, bad value, value out of range
  kEnvironment = 3,  // the machine refused something (a pool could not be built)
  kHang = 4,         // the watchdog fired: something stopped making progress
};

}  // namespace wsstress::cli
