// SPDX-License-Identifier: MIT OR Apache-2.0
// The real-thread parallelism figure: per-pool counts kept from the pool's
// events, a sampler thread, and the test that compares a run with its control.
// See parallelism.hpp.
#include "wsstress/threads/parallelism.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace wsstress::threads {

namespace {

using pool::EventKind;

// One pool's counts. Events of one job can arrive out of order (a thief's
// JobStolen before the owner's JobPushed is counted), so a count may dip
// below zero for a moment; the sampler reads "> 0".
struct PoolCounts {
  std::atomic<const void*> registry{nullptr};
  std::atomic<std::int64_t> queued{0};
  std::atomic<std::int64_t> asleep{0};
};

// A handful of pools live at once in any scenario; a pool whose address is
// reused by a later one inherits counts that its events left balanced.
constexpr std::size_t kSlots = 64;
PoolCounts g_pools[kSlots];

PoolCounts* counts_of(const void* registry) noexcept {
  for (PoolCounts& c : g_pools) {
    if (c.registry.load(std::memory_order_acquire) == registry) return &c;
  }
  for (PoolCounts& c : g_pools) {
    const void* expected = nullptr;
    if (c.registry.compare_exchange_strong(expected, registry, std::memory_order_acq_rel)) return &c;
    if (expected == registry) return &c;
  }
  return nullptr;  // more pools than slots: this one goes unmeasured
}

}  // namespace

void parallelism_event(const pool::Event& e) noexcept {
  std::int64_t dq = 0, da = 0;
  switch (e.kind) {
    case EventKind::JobPushed: dq = 1; break;
    case EventKind::JobsInjected: dq = static_cast<std::int64_t>(e.a); break;
    case EventKind::JobPopped:
    case EventKind::JobStolen:
    case EventKind::JobUninjected: dq = -1; break;
    case EventKind::ThreadSleeping: da = 1; break;
    case EventKind::ThreadAwoken: da = -1; break;
    default: return;
  }
  if (e.registry == nullptr) return;
  PoolCounts* c = counts_of(e.registry);
  if (c == nullptr) return;
  if (dq != 0) c->queued.fetch_add(dq, std::memory_order_relaxed);
  if (da != 0) c->asleep.fetch_add(da, std::memory_order_relaxed);
}

bool asleep_beside_work_now() noexcept {
  for (const PoolCounts& c : g_pools) {
    if (c.registry.load(std::memory_order_acquire) == nullptr) continue;
    if (c.queued.load(std::memory_order_relaxed) > 0 && c.asleep.load(std::memory_order_relaxed) > 0) return true;
  }
  return false;
}

void reset_parallelism_counts() noexcept {
  for (PoolCounts& c : g_pools) {
    c.queued.store(0, std::memory_order_relaxed);
    c.asleep.store(0, std::memory_order_relaxed);
    c.registry.store(nullptr, std::memory_order_release);
  }
}

bool rate_above(const ParallelismFigure& run, const ParallelismFigure& control, double alpha, double* p) {
  if (p) *p = 1;
  if (run.samples == 0 || control.samples == 0) return false;
  const double lambda = static_cast<double>(run.samples) * static_cast<double>(control.windows + 1) /
                        static_cast<double>(control.samples);
  const std::uint64_t k = run.windows;
  if (static_cast<double>(k) <= lambda) return false;
  // P(X >= k) = 1 - sum_{i<k} e^-lambda lambda^i / i!, each term in log space.
  double below = 0;
  for (std::uint64_t i = 0; i < k; ++i) {
    below += std::exp(-lambda + static_cast<double>(i) * std::log(lambda) - std::lgamma(static_cast<double>(i) + 1));
  }
  const double tail = std::max(0.0, 1 - below);
  if (p) *p = tail;
  return tail < alpha;
}

struct ParallelismSampler::State {
  std::mutex m;
  std::condition_variable cv;
  bool stop = false;
  ParallelismFigure fig;
  std::thread thread;
};

ParallelismSampler::ParallelismSampler(unsigned period_us) : s_(std::make_unique<State>()) {
  State* s = s_.get();
  s->thread = std::thread([s, period_us] {
    std::uint64_t run = 0;
    std::unique_lock<std::mutex> lock(s->m);
    while (!s->cv.wait_for(lock, std::chrono::microseconds(period_us), [s] { return s->stop; })) {
      ++s->fig.samples;
      if (asleep_beside_work_now()) {
        ++s->fig.asleep_beside_work;
        if (run++ == 0) ++s->fig.windows;
        s->fig.longest = std::max(s->fig.longest, run);
      } else {
        run = 0;
      }
    }
  });
}

ParallelismFigure ParallelismSampler::finish() {
  if (s_->thread.joinable()) {
    {
      std::lock_guard<std::mutex> g(s_->m);
      s_->stop = true;
    }
    s_->cv.notify_all();
    s_->thread.join();
  }
  return s_->fig;
}

ParallelismSampler::~ParallelismSampler() { finish(); }

}  // namespace wsstress::threads
