// SPDX-License-Identifier: MIT OR Apache-2.0
// Shared helpers for the pool's unit tests.
//
// Most tests instantiate the pool over CheckedPlatform: StdPlatform with the
// internal invariant checks (counter bounds, is_blocked, rounds) switched on,
// so a broken invariant aborts the test at the line that broke it. A few tests
// also run the production instantiation to show the two behave alike.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "wsstress/pool.hpp"
#include "wsstress/pool/platform/splitmix64.hpp"

namespace wsstress::test {

struct CheckedPlatform : pool::StdPlatform {
  static constexpr bool kCheckInvariants = true;
  static constexpr bool kCheckSyncInvariants = true;  // WSSTRESS_CHECK_SYNC (concept.hpp)
};

using P = CheckedPlatform;
using M = pool::NoMutants;
using Pool = pool::BasicThreadPool<P, M>;
using Builder = pool::BasicThreadPoolBuilder<P, M>;
using Worker = pool::WorkerThread<P, M>;

// Polls `done` until it holds or `timeout` passes; a hang becomes a failure.
inline bool eventually(const std::function<bool()>& done,
                       std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// Distinct fake jobs for the queue tests; only their addresses matter.
struct Jobs {
  explicit Jobs(std::size_t n) : headers(n) {}
  pool::JobRef at(std::size_t i) { return pool::JobRef(&headers[i]); }
  std::size_t index(pool::JobRef j) const { return static_cast<std::size_t>(j.header() - headers.data()); }
  std::vector<pool::JobHeader> headers;
};

// Deterministic generator for random test shapes.
using TestRng = wsstress::SplitMix64;

// Counts a pool's workers that have started and exited, through its handlers.
struct LifeCounter {
  std::atomic<int> started{0};
  std::atomic<int> exited{0};
  Builder& attach(Builder& b) {
    b.start_handler([this](std::size_t) { started.fetch_add(1); });
    b.exit_handler([this](std::size_t) { exited.fetch_add(1); });
    return b;
  }
};

}  // namespace wsstress::test
