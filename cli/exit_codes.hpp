// SPDX-License-Identifier: MIT OR Apache-2.0
// A verdict's and a sweep's exit code, among the tool's exit codes
// (wsstress/exit_code.hpp, which the engines share).
#pragma once

#include <cstdint>

#include "wsstress/core/exit_code.hpp"
#include "wsstress/core/scenario.hpp"

namespace wsstress::cli {

// As cli:: names too, for code that reaches them through wsstress::cli (main.cpp).
using enum wsstress::ExitCode;

// The exit code of a verdict.
inline int exit_code_for(core::VerdictKind k) noexcept {
  switch (k) {
    case core::VerdictKind::Pass: return kOk;
    case core::VerdictKind::Bug: return kFailed;
    case core::VerdictKind::Crash: return kFailed;
    case core::VerdictKind::Hang: return kHang;
    case core::VerdictKind::Internal: return kInternal;
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
inline SweepVerdict sweep_verdict(core::VerdictKind k, std::uint64_t runs, int stopped_by_signal) noexcept {
  if (k != core::VerdictKind::Pass) return {core::verdict_name(k), exit_code_for(k)};
  const char* word = runs == 0 ? "empty" : "pass";
  if (stopped_by_signal != 0) return {word, 128 + stopped_by_signal};
  return {word, runs == 0 ? static_cast<int>(kEmpty) : static_cast<int>(kOk)};
}

}  // namespace wsstress::cli
