// SPDX-License-Identifier: MIT OR Apache-2.0
// The platform policy: everything the pool's algorithms need from the machine.
//
// The algorithms (deque, latches, sleep, registry) are templates over a platform
// P and touch threads and shared memory only through it, in the manner of folly's
// DeterministicSchedule and of loom. It has four: StdPlatform (production),
// NoisyPlatform for stress runs on real threads (stress/noise.hpp), SimPlatform,
// the Boost.Context fiber simulator (sim/sim.hpp), and RelacyPlatform. This concept lists the contract so that a new
// platform fails to compile with a readable message instead of deep in the pool.
//
// Contract, beyond what the concept can express:
// - `Atomic<T>` offers load, store, exchange, compare_exchange_strong/weak (with
//   both orders given), fetch_add and fetch_sub, each taking an explicit
//   std::memory_order. The pool never uses operators or default orders.
// - `Cell<T>` holds plain memory that crosses threads ordered by the pool's
//   atomics (a job's closure and result): `write()` and `read()` return T&
//   (platform/cell.hpp); Relacy's checks each access for a race.
// - `CondVar::wait` takes a `std::unique_lock<Mutex>&` and may wake spuriously;
//   every wait in the pool sits in a loop.
// - `thread_local_slot<Tag, T>()` returns the calling thread's (or fiber's) own
//   value-initialised T, one per (Tag, T).
// - `spawn_thread(options, body)` starts `body` on a new thread (or fiber) or
//   returns an error code and drops `body`.
#pragma once

#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>

#include "wsstress/pool/platform/cell.hpp"
#include "wsstress/pool/platform/src_loc.hpp"

namespace wsstress::pool {

struct Event;

// What a worker thread is started with (rayon's ThreadBuilder name/stack_size).
struct ThreadOptions {
  std::optional<std::string> name;
  std::optional<std::size_t> stack_size;
};

template <class P>
concept Platform = requires {
  typename P::template Atomic<std::size_t>;
  typename P::template Atomic<void*>;
  typename P::Mutex;
  typename P::CondVar;
  typename P::template Cell<int>;
  { P::kTraced } -> std::convertible_to<bool>;
  { P::kCheckInvariants } -> std::convertible_to<bool>;
  { P::kCheckSyncInvariants } -> std::convertible_to<bool>;
}
&&requires(std::memory_order order, const Event& event, SrcLoc loc, typename P::template Atomic<std::size_t>& a,
           std::unique_lock<typename P::Mutex>& lock, typename P::CondVar& cv) {
  P::fence(order);
  P::yield_now();
  { P::next_rng_seed() } -> std::same_as<std::uint64_t>;
  { P::default_num_threads() } -> std::same_as<std::size_t>;
  { P::template thread_local_slot<struct ConceptTag, int>() } -> std::same_as<int&>;
  P::on_event(event, loc);
  P::invariant_failed("", loc);
  P::abort_pool("", loc);
  { a.load(order) } -> std::same_as<std::size_t>;
  a.store(std::size_t{0}, order);
  { a.fetch_add(std::size_t{1}, order) } -> std::same_as<std::size_t>;
  cv.wait(lock);
  cv.notify_one();
  cv.notify_all();
};

// Checks an internal invariant on platforms that ask for it (the simulator and
// the test platforms). A macro, so that on StdPlatform not even the condition's
// loads are evaluated: `if constexpr` discards the whole statement.
#define WSSTRESS_CHECK_IF(enabled, P, cond, what)                                 \
  do {                                                                            \
    if constexpr (enabled) {                                                      \
      if (!(cond)) P::invariant_failed((what), ::wsstress::pool::SrcLoc::here()); \
    }                                                                             \
  } while (0)
#define WSSTRESS_CHECK(P, cond, what) WSSTRESS_CHECK_IF(P::kCheckInvariants, P, cond, what)

// A check whose condition executes atomics (a load, a pop): on the engines'
// platforms it would add a happens-before edge and a scheduling point that
// release-build rayon-core does not have (an Acquire load synchronising with
// terminate_count's last RMW can hide a missing edge). Evaluated
// only where P::kCheckSyncInvariants (the unit tests' platform, outside any
// engine); off in the simulator, the noisy stress platform and Relacy.
#define WSSTRESS_CHECK_SYNC(P, cond, what) WSSTRESS_CHECK_IF(P::kCheckSyncInvariants, P, cond, what)

}  // namespace wsstress::pool
