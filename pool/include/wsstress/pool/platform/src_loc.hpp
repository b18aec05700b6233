// SPDX-License-Identifier: MIT OR Apache-2.0
// The source-location hook shared by every platform.
//
// Instrumented platforms (the simulator, Relacy, the noisy stress platform) give
// their atomic, fence and lock operations a trailing `SrcLoc loc = SrcLoc::here()`
// parameter. A default argument is evaluated at the call site, so the location
// recorded is the line of the pool's algorithm that performed the operation, and
// the algorithm itself never mentions locations. StdPlatform uses plain std
// types, which take no such parameter, so production pays nothing.
//
// clang-14 with libstdc++ 12 has no std::source_location; both compilers have the
// builtins used here.
#pragma once

namespace wsstress::pool {

struct SrcLoc {
  const char* file = "";
  unsigned line = 0;

  static constexpr SrcLoc here(const char* file = __builtin_FILE(), unsigned line = __builtin_LINE()) noexcept {
    return SrcLoc{file, line};
  }
};

}  // namespace wsstress::pool
