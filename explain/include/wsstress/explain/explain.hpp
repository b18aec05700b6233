// SPDX-License-Identifier: MIT OR Apache-2.0
// Why a stalled run's sleeping worker was never woken, read from the pool's
// own events (after rayon-core's log.rs, where one function turns events into
// thread state): the sleeper's announce and the gates of sleep() it passed,
// every event after the announce that should have woken it (a job published,
// its latch set, a wake-up tried) with what the waker decided, the pair of
// steps whose order lost the wake-up, and the rule of sleep/README.md that
// pair breaks. One explainer for two engines: the simulator keeps the events
// in a ring (src/sim/scheduler.hpp) and calls this once, when a run stalls;
// the Relacy runner records the failing execution's events through its
// platform and calls it after a DEADLOCK or LIVELOCK (relacy/src/explain_failure.cpp),
// steps being the numbers of Relacy's history. The library wsstress_explain
// (this header and src/sim/explain.cpp) links into both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "wsstress/pool/platform/src_loc.hpp"
#include "wsstress/pool/trace.hpp"

namespace wsstress::explain {

struct RecordedEvent {
  std::uint64_t step;   // the simulator's scheduling point; Relacy's history number
  std::uint32_t fiber;  // the simulator's fiber id; Relacy's thread index
  pool::Event event;
  pool::SrcLoc loc;
};

// One event as a reader wants it: the kind and what its payload means
// ("ThreadSleepGate: gate 4 (...)", "ThreadNotifyMissed: worker 1 not blocked").
std::string event_text(const pool::Event& e);

// The same text into `buf`, without allocating (Relacy writes it into its
// history inside an execution, where an allocation would count as the
// model's); `with_worker` puts " (worker N)" after the kind where the rest of
// the text does not name the worker, for a history that names no workers.
void format_event(char* buf, std::size_t size, const pool::Event& e, bool with_worker) noexcept;

struct StallContext {
  std::function<std::string(std::uint32_t)> fiber_name;
  std::function<bool(std::uint32_t)> blocked;       // the fiber is blocked for good
  std::function<std::string(std::uint32_t)> where;  // "blocked on a condvar at file:line"
  bool window_complete = true;                      // the ring still holds the run's first event
};

// The explanation's lines: each sleeper's story, then each worker blocked
// outside sleep() (it cannot run its pool's jobs); empty when only outside
// threads are blocked.
std::vector<std::string> explain_stall(const std::vector<RecordedEvent>& events, const StallContext& ctx);

}  // namespace wsstress::explain
