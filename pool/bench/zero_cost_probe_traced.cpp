// SPDX-License-Identifier: MIT OR Apache-2.0
// The control for the zero-cost check: the same probe over a platform with
// tracing and invariant checks on, whose hooks are out-of-line functions. The
// check must find those hooks referenced here, which shows that its search
// would notice them in the production probe too.
#include "wsstress/pool.hpp"

namespace probe {
void on_event_hook(const wsstress::pool::Event& e, wsstress::pool::SrcLoc loc) noexcept;
[[noreturn]] void invariant_failed_hook(const char* what, wsstress::pool::SrcLoc loc) noexcept;

struct TracedPlatform : wsstress::pool::StdPlatform {
  static constexpr bool kTraced = true;
  static constexpr bool kCheckInvariants = true;
  static void on_event(const wsstress::pool::Event& e, wsstress::pool::SrcLoc loc) noexcept { on_event_hook(e, loc); }
  [[noreturn]] static void invariant_failed(const char* what, wsstress::pool::SrcLoc loc) noexcept {
    invariant_failed_hook(what, loc);
  }
};
}  // namespace probe

extern "C" int wsstress_probe_join_traced() {
  auto [a, b] =
      wsstress::pool::join<probe::TracedPlatform, wsstress::pool::NoMutants>([] { return 1; }, [] { return 2; });
  return a + b;
}
