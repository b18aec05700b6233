// SPDX-License-Identifier: MIT OR Apache-2.0
// Progress: the count of signs of life the hang watchdog reads. Scenarios tick
// it as leaves finish, the noisy platform as workers take jobs; kept apart from
// noise.hpp so that platform-generic scenarios include no platform.
#pragma once

#include <cstdint>

namespace wsstress::core {

// Counts signs of life: jobs taken by workers, leaves finished by scenarios.
struct Progress {
  static void tick() noexcept;
  static std::uint64_t read() noexcept;
};

}  // namespace wsstress::core
