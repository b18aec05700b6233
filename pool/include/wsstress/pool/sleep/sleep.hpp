// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// Sleep: when idle workers go to sleep and who wakes them (sleep/mod.rs).
//
// An idle worker calls no_work_found once per fruitless search round: it yields
// for 32 rounds, announces itself sleepy on the 32nd (making the JEC even and
// remembering it), searches once more, and on round 33 calls sleep(), which
// blocks only after passing five gates in order (sleep/README.md §2):
//   1. latch.get_sleepy()        - the latch it waits on is not set yet;
//   2. lock is_blocked           - taken before registering, held until wait();
//   3. latch.fall_asleep()       - the latch is still not set, under the lock;
//   4. JEC unchanged, and the CAS that adds a sleeping thread succeeds;
//   5. SeqCst fence, then no job in this worker's broadcast queue or the injector.
// sleep/README.md names every race in which a wake-up could be lost, the gate
// or fence that stops it, the mutant that removes it and the engine that shows
// it: a latch set (§3), an injected job (§4, with what the two SeqCst fences
// protect), a push to a worker's own deque (§5), broadcasts and termination
// (§6), the wake rules (§7), and waiters outside the pool or in another (§8).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>

#include "wsstress/pool/job.hpp"
#include "wsstress/pool/latch.hpp"
#include "wsstress/pool/mutants.hpp"
#include "wsstress/pool/sleep/counters.hpp"
#include "wsstress/pool/trace.hpp"

namespace wsstress::pool {

inline constexpr std::uint32_t ROUNDS_UNTIL_SLEEPY = 32;
inline constexpr std::uint32_t ROUNDS_UNTIL_SLEEPING = ROUNDS_UNTIL_SLEEPY + 1;

// Created when a worker starts looking for work, consumed when it finds some.
struct IdleState {
  std::size_t worker_index;
  // Fruitless search rounds so far.
  std::uint32_t rounds;
  // The JEC announced when the thread became sleepy; dummy() otherwise.
  JobsEventCounter jobs_counter;

  // Back to the start: a full 33 rounds before the next sleep attempt.
  void wake_fully() noexcept {
    rounds = 0;
    jobs_counter = JobsEventCounter::dummy();
  }
  // Back to just before announcing sleepy: one more search, then sleep again.
  void wake_partly(std::uint32_t rounds_until_sleepy = ROUNDS_UNTIL_SLEEPY) noexcept {
    rounds = rounds_until_sleepy;
    jobs_counter = JobsEventCounter::dummy();
  }
};

// What a state dump reports about one worker's sleep state.
enum class SleepPhase { Active, Idle, Sleepy, Sleeping };

template <class P, class M = NoMutants>
class Sleep {
  using Mutex = typename P::Mutex;
  // rayon's 32 and 33; a model may shorten the idle spin (M::kRoundsUntilSleepy).
  static constexpr std::uint32_t kRoundsUntilSleepy = M::kRoundsUntilSleepy;
  static constexpr std::uint32_t kRoundsUntilSleeping = kRoundsUntilSleepy + 1;

 public:
  using CountersT = AtomicCounters<P, M>;

  explicit Sleep(std::size_t n_threads, const void* registry_id = nullptr)
      : n_threads_(n_threads), registry_id_(registry_id),
        worker_sleep_states_(std::make_unique<WorkerSleepState[]>(n_threads)) {
    if (n_threads > kThreadsMax) throw std::logic_error("assertion failed: n_threads <= THREADS_MAX");
  }

  IdleState start_looking(std::size_t worker_index, const CoreLatch<P, M>& latch) noexcept {
    trace<P>([&] { return ev(EventKind::ThreadIdle, worker_index, addr(latch)); });
    counters_.add_inactive_thread();
    return IdleState{worker_index, 0, JobsEventCounter::dummy()};
  }

  void work_found(const IdleState& idle_state) noexcept {
    trace<P>([&] { return ev(EventKind::ThreadFoundWork, idle_state.worker_index, idle_state.rounds); });
    // If we were the last idle thread and others still sleep, wake some: the
    // work we found may have company.
    const std::uint64_t threads_to_wake = counters_.sub_inactive_thread();
    wake_any_threads(static_cast<std::uint32_t>(threads_to_wake));
  }

  template <class HasInjectedJobs>
  void no_work_found(IdleState& idle_state, CoreLatch<P, M>& latch, HasInjectedJobs&& has_injected_jobs) {
    trace<P>([&] { return ev(EventKind::ThreadIdleRound, idle_state.worker_index, idle_state.rounds); });
    if (idle_state.rounds < kRoundsUntilSleepy) {
      P::yield_now();
      idle_state.rounds += 1;
    } else if (idle_state.rounds == kRoundsUntilSleepy) {
      idle_state.jobs_counter = announce_sleepy(idle_state.worker_index);
      idle_state.rounds += 1;
      P::yield_now();
    } else if (idle_state.rounds < kRoundsUntilSleeping) {
      // Unreachable with SLEEPING = SLEEPY + 1; kept, as upstream keeps it, so
      // the constants can be moved apart.
      idle_state.rounds += 1;
      P::yield_now();
    } else {
      WSSTRESS_CHECK(P, idle_state.rounds == kRoundsUntilSleeping, "rounds past ROUNDS_UNTIL_SLEEPING");
      sleep(idle_state, latch, has_injected_jobs);
    }
  }

  // The latch a worker may sleep on was set: wake it if it is blocked.
  void notify_worker_latch_is_set(std::size_t target_worker_index) noexcept {
    wake_specific_thread(target_worker_index);
  }

  // `num_jobs` jobs were injected from outside the pool. The fence pairs with
  // the one before gate 5 (sleep/README.md §4 says when either matters).
  void new_injected_jobs(std::size_t source_worker_index, std::uint32_t num_jobs, bool queue_was_empty) noexcept {
    if (!M::kNoInjectFence) P::fence(std::memory_order_seq_cst);
    new_jobs(source_worker_index, num_jobs, queue_was_empty);
  }

  // `num_jobs` jobs were pushed on a worker's own deque. No fence: a sleeper that
  // misses this job costs a helper, not the job (sleep/README.md §5).
  void new_internal_jobs(std::size_t source_worker_index, std::uint32_t num_jobs, bool queue_was_empty) noexcept {
    if (M::kInternalPushNoJec) {
      // Mutant: the push is not announced to sleepy workers (the JEC keeps its
      // value), so one passes gate 4 and sleeps beside the job.
      const auto counters = counters_.load(std::memory_order_seq_cst);
      if (counters.sleeping_threads() == 0) return;
      return wake_for_new_jobs(num_jobs, queue_was_empty, counters.awake_but_idle_threads(),
                               counters.sleeping_threads());
    }
    new_jobs(source_worker_index, num_jobs, queue_was_empty);
  }

  // ---- introspection for state dumps (never on a hot path) ----
  std::size_t num_threads() const noexcept { return n_threads_; }
  Counters<M> counters_snapshot() const noexcept { return counters_.load(std::memory_order_seq_cst); }
  bool is_blocked(std::size_t index) {
    WorkerSleepState& s = worker_sleep_states_[index];
    std::unique_lock<Mutex> lock(s.mutex);
    return s.is_blocked.read();
  }
  // For a watchdog's dump: never blocks; nullopt if the lock is held (as it is
  // by a worker between gates 2 and its wait, or by a waker).
  std::optional<bool> try_is_blocked(std::size_t index) {
    WorkerSleepState& s = worker_sleep_states_[index];
    std::unique_lock<Mutex> lock(s.mutex, std::try_to_lock);
    if (!lock.owns_lock()) return std::nullopt;
    return s.is_blocked.read();
  }

 private:
  // One per worker, padded to its own cache lines.
  struct alignas(128) WorkerSleepState {
    Mutex mutex;
    // True while the worker waits on `condvar`; cleared by the waker. Plain
    // memory under `mutex` (rayon's Mutex<bool>): a platform cell, so Relacy
    // checks that every access holds the lock.
    typename P::template Cell<bool> is_blocked{false};
    typename P::CondVar condvar;
  };

  Event ev(EventKind kind, std::size_t worker, std::uint64_t a = 0, std::uint64_t b = 0) const noexcept {
    return Event{kind, registry_id_, static_cast<std::uint32_t>(worker), a, b};
  }
  static std::uint64_t addr(const void* p) noexcept { return reinterpret_cast<std::uintptr_t>(p); }
  static std::uint64_t addr(const CoreLatch<P, M>& l) noexcept { return addr(static_cast<const void*>(&l)); }

  // rayon's JobsEventCounter::is_sleepy, through the mutant policy (c3a5304
  // masked the parity with 0, so every value looked sleepy).
  static bool jec_is_sleepy(JobsEventCounter jec) noexcept {
    if (M::kIsSleepyAlwaysTrue) {
      return (jec.as_u64() & 0) == 0;
    } else {
      return jec.is_sleepy();
    }
  }

  JobsEventCounter announce_sleepy(std::size_t worker_index) noexcept {
    const auto counters =
        counters_.increment_jobs_event_counter_if([](JobsEventCounter jec) { return !jec_is_sleepy(jec); });
    const JobsEventCounter jobs_counter = counters.jobs_counter();
    trace<P>([&] { return ev(EventKind::ThreadSleepy, worker_index, jobs_counter.as_u64()); });
    return jobs_counter;
  }

  template <class HasInjectedJobs>
  void sleep(IdleState& idle_state, CoreLatch<P, M>& latch, HasInjectedJobs& has_injected_jobs) {
    const std::size_t worker_index = idle_state.worker_index;

    // Gate 1: the latch was set while we searched; our caller will see it.
    trace<P>([&] { return ev(EventKind::ThreadSleepGate, worker_index, 1); });
    if (!latch.get_sleepy()) {
      trace<P>([&] { return ev(EventKind::ThreadSleepInterruptedByLatch, worker_index, addr(latch)); });
      return;
    }

    // Gate 2: take the lock before registering as sleeping (gate 4) and hold it
    // until wait() releases it, so a waker never sees us registered but not yet
    // blocked (sleep/README.md §3).
    WorkerSleepState& sleep_state = worker_sleep_states_[worker_index];
    std::unique_lock<Mutex> is_blocked(sleep_state.mutex, std::defer_lock);
    trace<P>([&] { return ev(EventKind::ThreadSleepGate, worker_index, 2, addr(&sleep_state.mutex)); });
    if (!M::kLateIsBlockedLock) is_blocked.lock();

    // Gate 3: the latch was set after gate 1.
    trace<P>([&] { return ev(EventKind::ThreadSleepGate, worker_index, 3); });
    if (!latch.fall_asleep()) {
      trace<P>([&] { return ev(EventKind::ThreadSleepInterruptedByLatch, worker_index, addr(latch)); });
      idle_state.wake_fully();
      return;
    }

    // Gate 4: if the JEC moved since we announced, someone posted work we did not
    // find; search once more (wake_partly) instead of sleeping.
    trace<P>([&] { return ev(EventKind::ThreadSleepGate, worker_index, 4); });
    for (;;) {
      const auto counters = counters_.load(std::memory_order_seq_cst);
      // Raw parity, independent of is_sleepy (whose mutant this catches).
      WSSTRESS_CHECK(P, (idle_state.jobs_counter.as_u64() & 1) == 0, "sleeping without a sleepy (even) JEC");
      if (!(counters.jobs_counter() == idle_state.jobs_counter)) {
        trace<P>([&] { return ev(EventKind::ThreadSleepInterruptedByJob, worker_index); });
        idle_state.wake_partly(kRoundsUntilSleepy);
        latch.wake_up();
        return;
      }
      if (counters_.try_add_sleeping_thread(counters)) break;
    }

    trace<P>([&] { return ev(EventKind::ThreadSleeping, worker_index, addr(latch), addr(&sleep_state.condvar)); });
    if (M::kLateIsBlockedLock) {
      // The bug: a waker that read the sleeping count (or saw SLEEPING in our
      // latch) before this point finds is_blocked false and leaves.
      is_blocked.lock();
    }
    WSSTRESS_CHECK(P, !sleep_state.is_blocked.read(), "is_blocked already true when going to sleep");

    // Gate 5: pairs with the fence in new_injected_jobs (sleep/README.md §4).
    // Also checks this worker's broadcast queue (rayon-core be12615, §6):
    // inject_broadcast bumps no JEC, and its wake-up is only seen through the
    // is_blocked lock we hold.
    trace<P>([&] { return ev(EventKind::ThreadSleepGate, worker_index, 5); });
    if (!M::kNoSleepFence) P::fence(std::memory_order_seq_cst);
    bool injected = false;
    if (!M::kNoGate5) injected = has_injected_jobs();
    if (injected) {
      // Nobody will wake us, so we undo our own registration. The code resets
      // fully here (rounds = 0); the upstream README says "as if the JEC had
      // changed", i.e. partly. We follow the code.
      trace<P>([&] { return ev(EventKind::ThreadSleepInterruptedByInjected, worker_index); });
      counters_.sub_sleeping_thread();
    } else {
      // Only a waker clearing the flag ends the wait; spurious wake-ups loop.
      sleep_state.is_blocked.write() = true;
      while (sleep_state.is_blocked.read()) sleep_state.condvar.wait(is_blocked);
    }

    idle_state.wake_fully();
    latch.wake_up();
    trace<P>([&] { return ev(EventKind::ThreadAwoken, worker_index, addr(latch)); });
  }

  // Inlined into every push (join's fast path): the JEC check and the common
  // "nobody sleeps" exit cost a load and two tests here; only the wake-up
  // decision is out of line. (rayon-core gets the same from rustc's inliner.)
  [[gnu::always_inline]] void new_jobs(std::size_t source_worker_index, std::uint32_t num_jobs,
                                       bool queue_was_empty) noexcept {
    // Make the JEC odd if a thread got sleepy since the last post, so that thread
    // sees it moved at gate 4.
    const auto counters =
        counters_.increment_jobs_event_counter_if([](JobsEventCounter jec) { return jec_is_sleepy(jec); });
    WSSTRESS_CHECK(P, counters.sleeping_threads() <= counters.inactive_threads(),
                   "new_jobs: more sleeping than inactive threads");
    const std::uint64_t num_awake_but_idle = counters.awake_but_idle_threads();
    const std::uint64_t num_sleepers = counters.sleeping_threads();
    trace<P>([&] { return ev(EventKind::JobThreadCounts, source_worker_index, num_awake_but_idle, num_sleepers); });
    if (num_sleepers == 0) return;
    wake_for_new_jobs(num_jobs, queue_was_empty, num_awake_but_idle, num_sleepers);
  }

  [[gnu::noinline]] void wake_for_new_jobs(std::uint32_t num_jobs, bool queue_was_empty,
                                           std::uint64_t num_awake_but_idle, std::uint64_t num_sleepers) noexcept {
    // A queue that already held work shows the idle threads are not keeping up:
    // wake one per job. Otherwise wake only what the idle threads cannot cover.
    if (!queue_was_empty) {
      wake_any_threads(static_cast<std::uint32_t>(std::min<std::uint64_t>(num_jobs, num_sleepers)));
    } else if (num_awake_but_idle < num_jobs) {
      wake_any_threads(
          static_cast<std::uint32_t>(std::min<std::uint64_t>(num_jobs - num_awake_but_idle, num_sleepers)));
    }
  }

  void wake_any_threads(std::uint32_t num_to_wake) noexcept {
    if (num_to_wake == 0) return;
    for (std::size_t i = 0; i < n_threads_; ++i) {
      if (wake_specific_thread(i)) {
        if (--num_to_wake == 0) return;
      }
    }
  }

  bool wake_specific_thread(std::size_t index) noexcept {
    WorkerSleepState& sleep_state = worker_sleep_states_[index];
    std::unique_lock<Mutex> is_blocked(sleep_state.mutex);
    if (sleep_state.is_blocked.read()) {
      sleep_state.is_blocked.write() = false;
      sleep_state.condvar.notify_one();
      // The waker, not the sleeper, takes the thread off the sleeping count, so
      // publishers stop counting it as asleep right away.
      counters_.sub_sleeping_thread();
      trace<P>([&] { return ev(EventKind::ThreadNotify, index); });
      return true;
    }
    // Not blocked: awake, or registered but not yet waiting (which gate 2's
    // lock rules out): the explanation of a lost wake-up reads this.
    trace<P>([&] { return ev(EventKind::ThreadNotifyMissed, index); });
    return false;
  }

  const std::size_t n_threads_;
  const void* registry_id_;
  std::unique_ptr<WorkerSleepState[]> worker_sleep_states_;
  CountersT counters_;
};

}  // namespace wsstress::pool
