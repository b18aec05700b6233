// SPDX-License-Identifier: MIT OR Apache-2.0
// Progress (progress.hpp): one process-wide count of signs of life, ticked by
// scenarios and platforms alike and read by the real-thread watchdog.
#include "wsstress/core/progress.hpp"

#include <atomic>

namespace wsstress::core {

namespace {
std::atomic<std::uint64_t> g_progress{0};
}  // namespace

void Progress::tick() noexcept { g_progress.fetch_add(1, std::memory_order_relaxed); }
std::uint64_t Progress::read() noexcept { return g_progress.load(std::memory_order_relaxed); }

}  // namespace wsstress::core
