// Injector: the global queue that threads outside a pool push jobs into, and
// JobFifo, the per-worker queue behind spawn_fifo (crossbeam's Injector in
// rayon-core).
//
// Deviation: crossbeam's Injector is a lock-free list of blocks; ours is a
// mutex-protected std::deque plus an atomic length that lets idle workers and
// gate 5 test for emptiness without taking the lock. The sleep protocol only
// relies on two facts, which hold here: a push is an atomic write (the length
// store) that the injecting thread makes before its SeqCst fence, and
// `is_empty` is an atomic read a sleepy thread makes after its own SeqCst
// fence. Injection is the cold path (microseconds including the wake-up), so the
// lock costs little; its benefit is a queue whose correctness is obvious, leaving
// the interesting races to the sleep module.
#pragma once

#include <cstddef>
#include <deque>
#include <mutex>

#include "wsstress/pool/deque.hpp"
#include "wsstress/pool/job.hpp"

namespace wsstress::pool {

template <class P>
class Injector {
 public:
  Injector() : len_(0) {}
  Injector(const Injector&) = delete;
  Injector& operator=(const Injector&) = delete;

  void push(JobRef job) {
    std::unique_lock<typename P::Mutex> lock(mutex_);
    jobs_.push_back(job);
    len_.store(jobs_.size(), std::memory_order_relaxed);
  }

  Steal steal() {
    if (len_.load(std::memory_order_acquire) == 0) return Steal{StealKind::Empty, JobRef()};
    std::unique_lock<typename P::Mutex> lock(mutex_);
    if (jobs_.empty()) return Steal{StealKind::Empty, JobRef()};
    JobRef job = jobs_.front();
    jobs_.pop_front();
    len_.store(jobs_.size(), std::memory_order_relaxed);
    return Steal{StealKind::Success, job};
  }

  bool is_empty() const noexcept { return len_.load(std::memory_order_seq_cst) == 0; }
  std::size_t len_relaxed() const noexcept { return len_.load(std::memory_order_relaxed); }

 private:
  typename P::Mutex mutex_;
  std::deque<JobRef> jobs_;
  typename P::template Atomic<std::size_t> len_;
};

// Gives spawn_fifo jobs FIFO order on their worker: the job itself goes into this
// queue and the worker's deque receives a JobRef to the queue, so however the
// deque hands out its entries (popped LIFO or stolen FIFO), each run of that
// JobRef takes the oldest queued job.
template <class P>
class JobFifo : public JobHeader {
 public:
  JobFifo() : JobHeader{&JobFifo::execute} {}

  JobRef push(JobRef job) {
    inner_.push(job);
    return JobRef(this);
  }

 private:
  static void execute(JobHeader* header) noexcept {
    auto* self = static_cast<JobFifo*>(header);
    Steal s = self->inner_.steal();
    if (s.kind != StealKind::Success) abort_with("FIFO is empty");
    s.job.execute();
  }

  Injector<P> inner_;
};

}  // namespace wsstress::pool
