// SPDX-License-Identifier: MIT OR Apache-2.0
// What every family of scenarios shares: the types a scenario over <P, M>
// names (WSSTRESS_SCENARIO_TYPES, spelled once for the three families) and the
// exception scenarios throw on purpose. See scenarios.hpp for the registry.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "wsstress/core/progress.hpp"
#include "wsstress/core/scenario.hpp"

namespace wsstress::core {

// The names a scenario family over pool<P, M> uses.
#define WSSTRESS_SCENARIO_TYPES(P, M)                    \
  using C = Ctx<P, M>;                                   \
  using Pool = pool::BasicThreadPool<P, M>;              \
  using Builder = pool::BasicThreadPoolBuilder<P, M>;    \
  using Scope = pool::Scope<P, M>;                       \
  using ScopeFifo = pool::ScopeFifo<P, M>;               \
  using BroadcastContext = pool::BroadcastContext<P, M>; \
  using E = Env<P>;

// An exception a scenario throws on purpose, identified by its id.
struct Thrown {
  std::uint64_t id;
};

}  // namespace wsstress::core
