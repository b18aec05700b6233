// The exit codes of `wsstress`, documented in the README. Every subcommand
// returns one of these.
#pragma once

#include <cstdint>

#include "wsstress/stress/scenario.hpp"

namespace wsstress::cli {

enum ExitCode : int {
  kOk = 0,        // the run finished and found nothing wrong
  kFailed = 1,    // a bug found: wrong result, lost or duplicated job, lost exception, broken invariant
  kUsage = 2,     // bad command line: unknown flag, bad value or range, unusable file
  kInternal = 3,  // internal or environment error: the tool itself failed (a pool could not be
                  // built, a file could not be written, a child could not be started)
  kHang = 4,      // the watchdog fired: something stopped making progress
  kEmpty = 5,     // nothing was tested: no seed ran (an empty shard, a budget spent before the first)
};

// The exit code of a verdict.
inline int exit_code_for(stress::VerdictKind k) noexcept {
  switch (k) {
    case stress::VerdictKind::Pass: return kOk;
    case stress::VerdictKind::Bug: return kFailed;
    case stress::VerdictKind::Crash: return kFailed;
    case stress::VerdictKind::Hang: return kHang;
    case stress::VerdictKind::Internal: return kInternal;
  }
  return kInternal;
}

// A sweep's verdict word and exit code. A sweep stopped by a signal that
// found nothing exits as shells report a process the signal ended (128 + its
// number: 130 SIGINT, 143 SIGTERM, 129 SIGHUP); a failure found before it
// keeps its code. A sweep that ran no seed tested nothing: not a pass but
// `empty`, exit 5.
struct SweepVerdict {
  const char* word;
  int code;
};
inline SweepVerdict sweep_verdict(stress::VerdictKind k, std::uint64_t runs, int stopped_by_signal) noexcept {
  if (k != stress::VerdictKind::Pass) return {stress::to_string(k), exit_code_for(k)};
  const char* word = runs == 0 ? "empty" : "pass";
  if (stopped_by_signal != 0) return {word, 128 + stopped_by_signal};
  return {word, runs == 0 ? static_cast<int>(kEmpty) : static_cast<int>(kOk)};
}

}  // namespace wsstress::cli
