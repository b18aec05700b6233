// SPDX-License-Identifier: MIT OR Apache-2.0
// The explainer's pieces that its two files share (explain.cpp tells each
// sleeper's story, explain_rules.cpp finds the loss and the rule it breaks):
// a worker's way to sleep as its events show it, what a publisher or setter
// did right after its event, and how many jobs a queue still holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "wsstress/explain/explain.hpp"

namespace wsstress::explain::detail {

using pool::Event;
using pool::EventKind;

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// A worker's way to sleep, from its announce to its registration.
struct Sleeper {
  const void* registry = nullptr;
  std::uint32_t worker = 0;
  std::uint32_t fiber = 0;
  std::uint64_t latch = 0;
  std::uint64_t terminate_latch = 0;  // from its ThreadStart
  std::size_t idle = kNone;           // its start_looking (ThreadIdle): injections and broadcasts count from here
  std::size_t announce = kNone, sleeping = kNone;
  std::size_t gate[6] = {kNone, kNone, kNone, kNone, kNone, kNone};
  std::size_t exited = kNone;  // its ThreadTerminate
};

// What a publisher or setter did right after its event: the counters it read
// and the wake-ups it tried.
struct Decision {
  bool counted = false;
  std::uint64_t idle = 0, sleepers = 0;
  std::vector<std::pair<std::size_t, bool>> attempts;  // (event, woke) per wake_specific_thread
};

inline bool is_publication(EventKind k) {
  return k == EventKind::JobPushed || k == EventKind::JobsInjected || k == EventKind::JobBroadcast ||
         k == EventKind::LatchSet || k == EventKind::CountLatchSet;
}

struct Diagnosis {
  std::string pair, rule;
  bool found = true;  // false: nothing recorded should have woken the sleeper
};

enum class Queue { Injector, Deque, Broadcast };

// The counters read and wake-ups tried by event i's fiber right after it.
Decision decision_after(const std::vector<RecordedEvent>& ev, std::size_t i);
// Jobs still queued at event `upto` (exclusive) in the injector of `registry`,
// worker w's deque or its broadcast queue.
long long queued(const std::vector<RecordedEvent>& ev, std::size_t upto, const void* registry, Queue q,
                 std::uint32_t w);
// The first event that counts for sleeper s: its start_looking (else its announce), plus one.
std::size_t first_candidate(const Sleeper& s);
// Whether event i could have woken sleeper s.
bool relevant(const std::vector<RecordedEvent>& ev, std::size_t i, const Sleeper& s);
// What publication or latch set e did, for sleeper s ("injected 1 job(s) ...").
std::string what_happened(const Event& e, const Sleeper& s);
// A waker's decision ("; read 0 sleeping, 1 idle; woke nobody").
std::string decision_text(const std::vector<RecordedEvent>& ev, const Decision& d);
std::string step_of(const std::vector<RecordedEvent>& ev, std::size_t i);
// The first loss the events show for sleeper s, and the rule it breaks.
Diagnosis diagnose(const std::vector<RecordedEvent>& ev, const Sleeper& s, const StallContext& ctx);

}  // namespace wsstress::explain::detail
