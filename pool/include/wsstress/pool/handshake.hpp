// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// The sleep handshake's two halves as free functions over its pieces (a
// Sleep, the waiting worker's CoreLatch, the job queues), so that Registry and
// WorkerThread, and the Relacy handshake models below the registry
// (relacy/src/models/handshake.cpp), run one source.
//
// The worker half is registry.rs's `wait_until_cold` (the idle loop through
// start_looking / no_work_found / sleep's five gates / work_found) and gate 5's
// question (`has_injected_job`). The publisher halves put work where a worker
// looks and then tell the sleep module, in rayon's order: a worker's own push
// (new_internal_jobs, no fence), an injection from outside (new_injected_jobs,
// with its SeqCst fence), a broadcast (a push per worker under the lock, then
// a direct wake-up of each), a latch set (wake the owner if it slept), and
// termination (each worker's terminate latch, rayon #200's wake-up). The
// mutants that break these steps live here, once.
#pragma once

#include <cstddef>
#include <mutex>

#include "wsstress/pool/deque.hpp"
#include "wsstress/pool/injector.hpp"
#include "wsstress/pool/job.hpp"
#include "wsstress/pool/latch.hpp"
#include "wsstress/pool/mutants.hpp"
#include "wsstress/pool/sleep/sleep.hpp"

namespace wsstress::pool::handshake {

// registry.rs's WorkerThread::wait_until_cold: runs jobs from find_work() until
// `latch` is set, going through the idle rounds and to sleep when there are
// none. has_injected_job() is gate 5's question.
template <class P, class M, class FindWork, class HasInjectedJob>
void wait_until_cold(Sleep<P, M>& sleep, std::size_t index, CoreLatch<P, M>& latch, FindWork&& find_work,
                     HasInjectedJob&& has_injected_job) noexcept {
  IdleState idle_state = sleep.start_looking(index, latch);
  while (!latch.probe()) {
    if (JobRef job = find_work()) {
      sleep.work_found(idle_state);
      job.execute();
      idle_state = sleep.start_looking(index, latch);
    } else {
      sleep.no_work_found(idle_state, latch, has_injected_job);
    }
  }
  // We are busy again with whatever our caller was doing.
  sleep.work_found(idle_state);
}

// Gate 5: is there work from outside the pool for the owner of `broadcast`?
// The broadcast half is rayon-core be12615: inject_broadcast bumps no JEC.
template <class P, class M>
bool has_injected_job(const Deque<P, M>& broadcast, const Injector<P, M>& injected) noexcept {
  if (M::kGate5IgnoresBroadcasts) return !injected.is_empty();
  return !broadcast.stealer_is_empty() || !injected.is_empty();
}

// A worker pushes on its own deque (no fence: a sleeper that misses this job
// costs a helper, not a deadlock, since the pusher will run it). Always
// inlined: it is on join's fast path (rayon's push is #[inline]).
template <class P, class M>
[[gnu::always_inline]] inline void push_internal(Deque<P, M>& deque, Sleep<P, M>& sleep, std::size_t index,
                                                 JobRef job) noexcept {
  const bool queue_was_empty = deque.owner_is_empty();
  deque.push(job);
  sleep.new_internal_jobs(index, 1, queue_was_empty);
}

// A thread outside the pool injects (the fence in new_injected_jobs pairs with
// the one before gate 5).
template <class P, class M>
void inject(Injector<P, M>& injected, Sleep<P, M>& sleep, std::size_t source_index, JobRef job) noexcept {
  const bool queue_was_empty = injected.is_empty();
  injected.push(job);
  sleep.new_injected_jobs(source_index, 1, queue_was_empty);
}

// One job into each of `n` workers' broadcast queues, pushed under `mutex` with
// job_ref_for(i) called just before push i (rayon's lazy iterator); then every
// worker is woken directly. No JEC bump: a worker about to sleep finds its job
// at gate 5, holding the is_blocked lock the wake-up takes.
template <class P, class M, class QueueFor, class JobRefFor>
void inject_broadcast(typename P::Mutex& mutex, std::size_t n, QueueFor&& queue_for, JobRefFor&& job_ref_for,
                      Sleep<P, M>& sleep) noexcept {
  {
    std::unique_lock<typename P::Mutex> lock(mutex);
    for (std::size_t i = 0; i < n; ++i) queue_for(i).push(job_ref_for(i));
  }
  for (std::size_t i = 0; i < n; ++i) sleep.notify_worker_latch_is_set(i);
}

// After a latch's CoreLatch::set: wake its owner if it had gone to sleep on it.
// `registry` is anything with notify_worker_latch_is_set (a Registry, a Sleep).
template <class M, class R>
void wake_latch_owner(bool owner_slept, R& registry, std::size_t target_worker_index) noexcept {
  if (owner_slept && !M::kLatchSetNoWake) registry.notify_worker_latch_is_set(target_worker_index);
}

// The last terminate count dropped: set worker `index`'s terminate latch and
// wake it if it sleeps on it (rayon #200: without the wake-up it never exits).
template <class P, class M, class R>
void terminate_worker(CountLatch<P, M>& terminate, R& registry, std::size_t index) noexcept {
  if (M::kTerminateNoWake) {
    terminate.set();
  } else {
    terminate.set_and_tickle_one(registry, index);
  }
}

}  // namespace wsstress::pool::handshake
