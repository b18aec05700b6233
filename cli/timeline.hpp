// SPDX-License-Identifier: MIT OR Apache-2.0
// Renderings of a simulated run's trace: plain text (one scheduling point a
// line, with source locations) and Chrome trace-event JSON for Perfetto (one
// lane per fiber, runs and blocked spans as slices, wake-ups as flows, pool
// events as instants), both of the Perfetto trace and the HTML report
// (html.hpp) drawn from one Timeline.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wsstress/sim/sim.hpp"

namespace wsstress::cli {

// A run's trace as lanes (one per fiber) on a step axis: what the Perfetto
// and HTML renderers draw. A blocked span runs from the step after a Wait,
// Join or Sleep to the fiber's next point; one that lasts to the run's end
// (`to_end`) is a fiber nothing woke. A wake arrow ends at the woken fiber's
// next point, if it ran again.
struct Timeline {
  struct Lane {
    std::string name;
    std::string sleep_state;  // the last sleep-module event (the gate it reached), "" if none
  };
  struct Run {
    std::uint32_t fiber;
    std::uint64_t step;
    std::string what;  // op and source location
  };
  struct Blocked {
    std::uint32_t fiber;
    std::uint64_t from, to;
    std::string op;
    bool to_end;
  };
  struct Wake {
    std::uint32_t from, to;
    std::uint64_t step, arrives;
    bool arrived;
  };
  struct Instant {
    std::uint32_t fiber;
    std::uint64_t step;
    std::string name, at;
  };
  std::vector<Lane> lanes;
  std::vector<Run> runs;
  std::vector<Blocked> blocked;
  std::vector<Wake> wakes;
  std::vector<Instant> events;
  // Marks: a wake-up tried on a thread that was not blocked (ThreadNotifyMissed,
  // on the waker's lane), and a preemption (the strategy switched away from a
  // fiber that could have gone on: on the preempted fiber's lane).
  struct Mark {
    std::uint32_t fiber;
    std::uint64_t step;
  };
  std::vector<Mark> missed_wakes, preemptions;
  std::uint64_t end = 0;  // the last step
};
Timeline build_timeline(const sim::SimResult& r);

std::string trace_text(const sim::SimResult& r);
std::string trace_perfetto(const sim::SimResult& r);

}  // namespace wsstress::cli
