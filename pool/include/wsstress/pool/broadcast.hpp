// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// broadcast and spawn_broadcast (broadcast/mod.rs): run an operation once on
// every worker of a pool.
//
// Each worker gets one job in its own broadcast queue, which only it takes
// (before stealing, after its own deque). inject_broadcast wakes every worker
// directly instead of bumping the JEC, which is why gate 5 of sleep() must look
// at the broadcast queue too (rayon-core be12615).
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "wsstress/pool/registry.hpp"

namespace wsstress::pool {

// What a broadcast operation learns about where it runs.
template <class P, class M>
class BroadcastContext {
 public:
  std::size_t index() const noexcept { return worker_->index(); }
  std::size_t num_threads() const noexcept { return worker_->registry().num_threads(); }

  // rayon asserts it runs on a worker: a panic, which a broadcast's StackJob
  // hands to the caller and a spawn_broadcast's job to the panic handler.
  template <class F>
  static decltype(auto) with(F&& f) {
    WorkerThread<P, M>* worker = WorkerThread<P, M>::current();
    if (worker == nullptr) throw std::logic_error("assertion failed: !worker_thread.is_null()");
    return std::forward<F>(f)(BroadcastContext(*worker));
  }

 private:
  explicit BroadcastContext(WorkerThread<P, M>& worker) noexcept : worker_(&worker) {}
  WorkerThread<P, M>* worker_;
};

namespace detail {
// A fixed-capacity array of jobs constructed in place in one allocation; the
// jobs never move.
template <class P, class Job>
class FixedJobs {
 public:
  explicit FixedJobs(std::size_t capacity) : jobs_(std::allocator<Job>().allocate(capacity)), capacity_(capacity) {}
  FixedJobs(const FixedJobs&) = delete;
  FixedJobs& operator=(const FixedJobs&) = delete;
  ~FixedJobs() {
    std::destroy_n(jobs_, size_);
    std::allocator<Job>().deallocate(jobs_, capacity_);
  }

  template <class... Args>
  void emplace_back(Args&&... args) {
    if (size_ == capacity_) abort_with<P>("FixedJobs overflow");
    std::construct_at(jobs_ + size_, std::forward<Args>(args)...);
    ++size_;
  }

  Job* begin() noexcept { return jobs_; }
  Job* end() noexcept { return jobs_ + size_; }
  Job& operator[](std::size_t i) noexcept { return jobs_[i]; }

 private:
  Job* jobs_;
  std::size_t capacity_;
  std::size_t size_ = 0;
};
}  // namespace detail

// Runs op on every worker of `registry` and returns the results by worker index.
// If any throws, the first exception in index order is rethrown after all ran.
template <class P, class M, class OP>
auto broadcast_in(OP&& op, Registry<P, M>& registry)
    -> std::vector<ValueOrUnit<std::invoke_result_t<OP&, BroadcastContext<P, M>>>> {
  using R = std::invoke_result_t<OP&, BroadcastContext<P, M>>;
  auto f = [&op](bool) -> R { return BroadcastContext<P, M>::with(op); };
  using Job = StackJob<P, LatchRef<ScopeLatch<P, M>>, decltype(f), R>;

  const std::size_t n_threads = registry.num_threads();
  WorkerThread<P, M>* current_thread = WorkerThread<P, M>::current();
  ScopeLatch<P, M> latch(n_threads, current_thread);
  // One allocation for the jobs, as rayon's Vec<StackJob> (a std::deque took a
  // map and a block, and a vector of JobRefs a third): StackJobs cannot move
  // once their JobRef is out, so they are built in place and never moved.
  detail::FixedJobs<P, Job> jobs(n_threads);
  for (std::size_t i = 0; i < n_threads; ++i) jobs.emplace_back(f, LatchRef<ScopeLatch<P, M>>(latch));
  registry.inject_broadcast([&jobs](std::size_t i) noexcept { return jobs[i].as_job_ref(); });
  latch.wait(current_thread);

  std::vector<ValueOrUnit<R>> results;
  results.reserve(n_threads);
  for (Job& job : jobs) results.push_back(job.into_result());
  return results;
}

// Runs op on every worker without waiting; each copy holds a terminate count.
template <class P, class M, class OP>
void spawn_broadcast_in(OP&& op, Registry<P, M>& registry) {
  auto body = [registry = RegistryRef<P, M>(&registry), op = std::forward<OP>(op)]() noexcept {
    registry->catch_unwind([&] { BroadcastContext<P, M>::with(op); });
    registry->terminate();
  };
  auto* job = new ArcJob<P, M, decltype(body)>(std::move(body));
  registry.inject_broadcast([&](std::size_t) noexcept {
    // Ensure that registry cannot terminate until this job has executed on
    // each thread; given back by the terminate() in the body.
    registry.increment_terminate_count();
    return job->new_job_ref();
  });
  // Our own reference goes last, as rayon's Arc leaves scope after the injection.
  job->release_creator();
}

template <class P, class M, class OP>
auto broadcast(OP&& op) {
  return broadcast_in<P, M>(std::forward<OP>(op), *Registry<P, M>::current());
}

template <class P, class M, class OP>
void spawn_broadcast(OP&& op) {
  spawn_broadcast_in<P, M>(std::forward<OP>(op), *Registry<P, M>::current());
}

}  // namespace wsstress::pool
