// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// Events the pool reports to its platform, after rayon-core's `log::Event`.
//
// The algorithms call `trace<P>([&] { return Event{...}; })`. When the platform
// sets `kTraced = false` (StdPlatform) the lambda is never called and the whole
// statement compiles to nothing; instrumented platforms receive the event with
// the source location of the call, which the simulator turns into a trace and
// the noisy platform turns into a place to inject a yield.
#pragma once

#include <cstdint>

#include "wsstress/pool/platform/src_loc.hpp"

namespace wsstress::pool {

enum class EventKind : std::uint8_t {
  ThreadStart,                       // worker entered its main loop (a = terminate latch)
  ThreadTerminate,                   // worker left its main loop
  ThreadIdle,                        // start_looking (a = latch waited on)
  ThreadFoundWork,                   // work_found (a = rounds spent idle)
  ThreadSawLatchSet,                 // wait_until_cold returned (a = latch)
  ThreadIdleRound,                   // no_work_found, before the round's action (a = rounds so far)
  ThreadSleepy,                      // announce_sleepy (a = JEC remembered)
  ThreadSleepGate,                   // sleep() is about to pass gate a (1..5); gate 2: b = is_blocked's mutex
  ThreadSleepInterruptedByLatch,     // gate 1 or gate 3 stopped the sleep (a = latch)
  ThreadSleepInterruptedByJob,       // gate 4: the JEC moved
  ThreadSleepInterruptedByInjected,  // gate 5: a job in the injector/broadcast queue
  ThreadSleeping,                    // registered as sleeping, about to wait (a = latch, b = is_blocked's condvar)
  ThreadAwoken,                      // returned from the condvar wait (a = latch)
  ThreadNotify,                      // wake_specific_thread woke `worker`
  JobPushed,                         // pushed on the local deque
  JobPopped,                         // popped from the local deque
  JobStolen,                         // stolen (a = victim)
  JobsInjected,                      // injected from outside (a = count)
  JobUninjected,                     // taken from the injector
  JobBroadcast,                      // inject_broadcast (a = count)
  JobThreadCounts,                   // new_jobs read the counters (a = idle, b = sleepers)
  LatchSet,                          // a latch was set (a = latch, b = 1 if its owner slept)
  StealRetry,                        // a steal lost a race and is tried again (a = StealRetryFrom)
  // Added for the explanation of a stall; last, so that the kinds
  // above keep the numbers stored reproducers' trace hashes were made with.
  ThreadNotifyMissed,  // wake_specific_thread found `worker` not blocked: no notify
  CountLatchSet,       // a CountLatch reached zero: its core latch set (a, b as LatchSet)
  BroadcastJobTaken,   // a worker took a job from its own broadcast queue
};

// Which queue a StealRetry came from.
enum class StealRetryFrom : std::uint8_t { Injector, Deque, BroadcastQueue, JobFifo };

const char* event_kind_name(EventKind kind) noexcept;

// What gate `gate` (1..5) of Sleep::sleep() checks (sleep/README.md §2), for
// traces and explanations: "gate 4 (the JEC is unchanged since the announce;
// register as sleeping)".
const char* gate_name(std::uint64_t gate) noexcept;

// `worker` is the worker index or kNoWorker for a thread outside the pool;
// `registry` identifies the pool.
struct Event {
  static constexpr std::uint32_t kNoWorker = 0xffffffffu;

  EventKind kind;
  const void* registry = nullptr;
  std::uint32_t worker = kNoWorker;
  std::uint64_t a = 0;  // the payload, named by the accessors below
  std::uint64_t b = 0;

  std::uint64_t latch() const noexcept {
    return a;
  }                                                      // ThreadIdle, ThreadSawLatchSet, ThreadSleeping,
                                                         // ThreadAwoken, ThreadSleepInterruptedByLatch,
                                                         // LatchSet, CountLatchSet
  std::uint64_t rounds() const noexcept { return a; }    // ThreadFoundWork, ThreadIdleRound
  std::uint64_t jec() const noexcept { return a; }       // ThreadSleepy
  std::uint64_t gate() const noexcept { return a; }      // ThreadSleepGate
  std::uint64_t victim() const noexcept { return a; }    // JobStolen
  std::uint64_t count() const noexcept { return a; }     // JobsInjected, JobBroadcast
  std::uint64_t idle() const noexcept { return a; }      // JobThreadCounts
  std::uint64_t sleepers() const noexcept { return b; }  // JobThreadCounts
  bool owner_slept() const noexcept { return b != 0; }   // LatchSet, CountLatchSet
  StealRetryFrom retry_from() const noexcept { return static_cast<StealRetryFrom>(a); }  // StealRetry
};

// Reports an event to platform P if it listens; a no-op otherwise.
template <class P, class MakeEvent>
inline void trace(const MakeEvent& make_event, SrcLoc loc = SrcLoc::here()) noexcept {
  if constexpr (P::kTraced) {
    P::on_event(make_event(), loc);
  } else {
    (void)make_event;
    (void)loc;
  }
}

inline const char* event_kind_name(EventKind kind) noexcept {
  switch (kind) {
    case EventKind::ThreadStart: return "ThreadStart";
    case EventKind::ThreadTerminate: return "ThreadTerminate";
    case EventKind::ThreadIdle: return "ThreadIdle";
    case EventKind::ThreadFoundWork: return "ThreadFoundWork";
    case EventKind::ThreadSawLatchSet: return "ThreadSawLatchSet";
    case EventKind::ThreadIdleRound: return "ThreadIdleRound";
    case EventKind::ThreadSleepy: return "ThreadSleepy";
    case EventKind::ThreadSleepGate: return "ThreadSleepGate";
    case EventKind::ThreadSleepInterruptedByLatch: return "ThreadSleepInterruptedByLatch";
    case EventKind::ThreadSleepInterruptedByJob: return "ThreadSleepInterruptedByJob";
    case EventKind::ThreadSleepInterruptedByInjected: return "ThreadSleepInterruptedByInjected";
    case EventKind::ThreadSleeping: return "ThreadSleeping";
    case EventKind::ThreadAwoken: return "ThreadAwoken";
    case EventKind::ThreadNotify: return "ThreadNotify";
    case EventKind::ThreadNotifyMissed: return "ThreadNotifyMissed";
    case EventKind::JobPushed: return "JobPushed";
    case EventKind::JobPopped: return "JobPopped";
    case EventKind::JobStolen: return "JobStolen";
    case EventKind::JobsInjected: return "JobsInjected";
    case EventKind::JobUninjected: return "JobUninjected";
    case EventKind::JobBroadcast: return "JobBroadcast";
    case EventKind::BroadcastJobTaken: return "BroadcastJobTaken";
    case EventKind::JobThreadCounts: return "JobThreadCounts";
    case EventKind::LatchSet: return "LatchSet";
    case EventKind::CountLatchSet: return "CountLatchSet";
    case EventKind::StealRetry: return "StealRetry";
  }
  return "?";
}

inline const char* gate_name(std::uint64_t gate) noexcept {
  switch (gate) {
    case 1: return "gate 1 (the latch is not set: get_sleepy)";
    case 2: return "gate 2 (take is_blocked's lock before registering)";
    case 3: return "gate 3 (under the lock, the latch is still not set: fall_asleep)";
    case 4: return "gate 4 (the JEC is unchanged since the announce; register as sleeping)";
    case 5: return "gate 5 (SeqCst fence, then no job in the broadcast queue or the injector)";
  }
  return "gate ?";
}

}  // namespace wsstress::pool
