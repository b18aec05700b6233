// The exit codes of `wsstress`, documented in the README. Every subcommand
// returns one of these.
#pragma once

#include "wsstress/stress/scenario.hpp"

namespace wsstress::cli {

enum ExitCode : int {
  kOk = 0,        // the run finished and found nothing wrong
  kFailed = 1,    // a bug found: wrong result, lost or duplicated job, lost exception, broken invariant
  kUsage = 2,     // bad command line: unknown flag, bad value or range, unusable file
  kInternal = 3,  // internal or environment error: the tool itself failed (a pool could not be
                  // built, a file could not be written, a child could not be started)
  kHang = 4,      // the watchdog fired: something stopped making progress
};

// The exit code of a verdict.
inline int exit_code_for(stress::VerdictKind k) noexcept {
  switch (k) {
    case stress::VerdictKind::Pass: return kOk;
    case stress::VerdictKind::Bug: return kFailed;
    case stress::VerdictKind::Hang: return kHang;
    case stress::VerdictKind::Internal: return kInternal;
  }
  return kInternal;
}

// The exit code of a sweep: a sweep stopped by a signal that found nothing
// exits as shells report a process the signal ended (128 + its number: 130
// SIGINT, 143 SIGTERM, 129 SIGHUP); a failure found before it keeps its code.
inline int sweep_exit_code(stress::VerdictKind k, int stopped_by_signal) noexcept {
  return k == stress::VerdictKind::Pass && stopped_by_signal != 0 ? 128 + stopped_by_signal : exit_code_for(k);
}

}  // namespace wsstress::cli
