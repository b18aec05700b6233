// SPDX-License-Identifier: MIT OR Apache-2.0
// The sleep handshake below the registry, for the handshake models
// (models/handshake.cpp): the pool's own Sleep, AtomicCounters, CoreLatches,
// Injector, worker deques and broadcast queues over RelacyPlatform, with the
// worker half and the publisher halves from pool/handshake.hpp — the code
// Registry and WorkerThread run. What the rig leaves out is what makes the
// registry-level models too big for an exhaustive search: thread start-up and
// exit, reference counts, the terminate count, StackJobs and their results.
// Each model thread plays a worker (rig.wait on its latch) or a publisher.
// The rig reports the pool events that Registry and WorkerThread report
// around these calls (a push, an injection, a broadcast, a latch set, a job
// taken, a worker's start), so that a failure's explanation
// (explain_failure.hpp) reads the same story as for the registry.
#pragma once

#include <array>
#include <cstddef>

#include "harness.hpp"
#include "wsstress/pool/handshake.hpp"

namespace wsstress::relacy {

template <class M, std::size_t W>
class HandshakeRig {
 public:
  using MK = ModelKnobs<M>;
  using SleepT = pool::Sleep<RP, MK>;
  using DequeT = pool::Deque<RP, MK>;
  using LatchT = pool::CoreLatch<RP, MK>;

  // A job that sets worker `owner`'s latch, as join's stolen B half does, and
  // counts its runs (a Relacy variable: a run the waiter cannot see is a race).
  struct LatchJob : pool::JobHeader {
    HandshakeRig* rig = nullptr;
    LatchT* latch = nullptr;
    std::size_t owner = 0;
    rl::var<int> runs;
    LatchJob() {
      execute_fn = &run;
      runs($) = 0;
    }
    void bind(HandshakeRig& r, LatchT& l, std::size_t o) {
      rig = &r;
      latch = &l;
      owner = o;
    }
    pool::JobRef ref() { return pool::JobRef(this); }
    static void run(pool::JobHeader* h) noexcept {
      auto* self = static_cast<LatchJob*>(h);
      self->runs($) = self->runs($) + 1;
      self->rig->set_latch(*self->latch, self->owner);
    }
  };

  HandshakeRig() : sleep(W) {
    for (std::size_t i = 0; i < W; ++i) {
      deques[i] = new DequeT(DequeT::Flavor::Lifo);
      broadcasts[i] = new DequeT(DequeT::Flavor::Fifo);
    }
  }
  ~HandshakeRig() {
    for (std::size_t i = 0; i < W; ++i) {
      delete deques[i];
      delete broadcasts[i];
    }
  }
  HandshakeRig(const HandshakeRig&) = delete;
  HandshakeRig& operator=(const HandshakeRig&) = delete;

  // Worker i's side: the pool's idle loop until `latch` is set.
  void wait(std::size_t i, LatchT& latch) {
    pool::handshake::wait_until_cold(
        sleep, i, latch, [this, i]() noexcept { return find_work(i); },
        [this, i]() noexcept { return pool::handshake::has_injected_job(*broadcasts[i], injector); });
  }

  // WorkerThread::wait_until (registry.hpp): the latch probed once before the
  // idle loop, so a latch already set costs no counters RMW (and gives the
  // waiter no happens-before edge through the counters).
  void wait_until(std::size_t i, LatchT& latch) {
    if (!latch.probe()) wait(i, latch);
  }

  // Registry::main_loop's worker: ThreadStart names its terminate latch,
  // then it waits on that latch until the pool terminates (without
  // wait_until's probe, which the model never had: its searches stay as measured).
  void main_loop(std::size_t i, pool::CountLatch<RP, MK>& terminate_latch) {
    LatchT& latch = terminate_latch.as_core_latch();
    event(pool::EventKind::ThreadStart, static_cast<std::uint32_t>(i), reinterpret_cast<std::uintptr_t>(&latch));
    wait(i, latch);
    event(pool::EventKind::ThreadTerminate, static_cast<std::uint32_t>(i));
  }

  // The publishers, as the pool's (with the events Registry and WorkerThread report).
  void push_internal(std::size_t i, pool::JobRef job) {
    event(pool::EventKind::JobPushed, static_cast<std::uint32_t>(i));
    pool::handshake::push_internal(*deques[i], sleep, i, job);
  }
  void inject(pool::JobRef job) {
    event(pool::EventKind::JobsInjected, pool::Event::kNoWorker, 1);
    pool::handshake::inject(injector, sleep, pool::Event::kNoWorker, job);
  }
  template <class JobRefFor>
  void inject_broadcast(JobRefFor&& job_ref_for) {
    event(pool::EventKind::JobBroadcast, pool::Event::kNoWorker, W);
    pool::handshake::inject_broadcast(
        broadcasts_mutex, W, [this](std::size_t i) -> DequeT& { return *broadcasts[i]; }, job_ref_for, sleep);
  }
  // SpinLatch::set's order: the set, its event, the wake-up.
  void set_latch(LatchT& latch, std::size_t owner) {
    const bool owner_slept = latch.set();
    event(pool::EventKind::LatchSet, static_cast<std::uint32_t>(owner), reinterpret_cast<std::uintptr_t>(&latch),
          owner_slept);
    pool::handshake::wake_latch_owner<MK>(owner_slept, sleep, owner);
  }
  void terminate(pool::CountLatch<RP, MK>& terminate_latch, std::size_t owner) {
    pool::handshake::terminate_worker(terminate_latch, sleep, owner);
  }

  // Moves the JEC from its initial sleepy value to active, as a publication
  // does (one with no jobs: nobody is asleep to wake). Called before the
  // model's threads start.
  void make_jec_active() { sleep.new_injected_jobs(pool::Event::kNoWorker, 0, false); }

  // A worker that turns sleepy once and then finds work: its announce moves
  // the jobs event counter, so with a one-bit JEC a publisher's bump and this
  // announce roll it back to what another sleeper remembered.
  void turn_sleepy_then_busy(std::size_t i, LatchT& latch) {
    pool::IdleState idle = sleep.start_looking(i, latch);
    for (unsigned r = 0; r <= MK::kRoundsUntilSleepy; ++r) sleep.no_work_found(idle, latch, [] { return false; });
    sleep.work_found(idle);
  }

  SleepT sleep;
  pool::Injector<RP, MK> injector;
  std::array<DequeT*, W> deques{};
  std::array<DequeT*, W> broadcasts{};
  RP::Mutex broadcasts_mutex;

 private:
  // WorkerThread's order: own deque, own broadcast queue, the other workers'
  // deques, the injector; a lost race (Steal::Retry) tries the same queue again.
  pool::JobRef find_work(std::size_t i) noexcept {
    const auto me = static_cast<std::uint32_t>(i);
    if (pool::JobRef job = deques[i]->pop()) {
      event(pool::EventKind::JobPopped, me);
      return job;
    }
    if (pool::JobRef job = steal_from(*broadcasts[i])) {
      event(pool::EventKind::BroadcastJobTaken, me);
      return job;
    }
    for (std::size_t k = 1; k < W; ++k) {
      if (pool::JobRef job = steal_from(*deques[(i + k) % W])) {
        event(pool::EventKind::JobStolen, me, (i + k) % W);
        return job;
      }
    }
    pool::JobRef job = steal_from(injector);
    if (job) event(pool::EventKind::JobUninjected, me);
    return job;
  }
  // The rig's Sleep has no registry (its events carry a null one): so do these.
  static void event(pool::EventKind kind, std::uint32_t worker, std::uint64_t a = 0, std::uint64_t b = 0,
                    pool::SrcLoc loc = pool::SrcLoc::here()) noexcept {
    pool::trace<RP>([&] { return pool::Event{kind, nullptr, worker, a, b}; }, loc);
  }
  template <class Q>
  static pool::JobRef steal_from(Q& queue) noexcept {
    for (;;) {
      pool::Steal s = queue.steal();
      if (s.kind == pool::StealKind::Success) return s.job;
      if (s.kind == pool::StealKind::Empty) return pool::JobRef();
    }
  }
};

}  // namespace wsstress::relacy
