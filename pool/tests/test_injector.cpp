// SPDX-License-Identifier: MIT OR Apache-2.0
// The Injector (crossbeam-deque 0.8.1's): FIFO order, blocks crossed and freed,
// exactly-once delivery under concurrent pushes and steals, and Steal::Retry.
//
// Retry needs a second thief to move the head between a thief's load and its
// CAS. HookPlatform makes that deterministic on one thread: its atomics call a
// hook before every load, and the test's hook runs a nested steal exactly
// there, so the outer steal's CAS must fail.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace {
using namespace wsstress::pool;
using namespace wsstress::test;

// Four indices a block (three jobs): a handful of pushes crosses blocks.
struct SmallLap : NoMutants {
  static constexpr std::size_t kInjectorLap = 4;
};

TEST(Injector, FifoOrderFromOneProducer) {
  Injector<P> q;
  Jobs jobs(5);
  EXPECT_TRUE(q.is_empty());
  for (int i = 0; i < 5; ++i) q.push(jobs.at(i));
  EXPECT_FALSE(q.is_empty());
  EXPECT_EQ(q.len_relaxed(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(q.steal().job, jobs.at(i));
  EXPECT_EQ(q.steal().kind, StealKind::Empty);
  EXPECT_TRUE(q.is_empty());
}

// 100 jobs through 3-slot blocks: every block boundary on both ends, in order.
TEST(Injector, CrossesBlocksInOrder) {
  Injector<P, SmallLap> q;
  Jobs jobs(100);
  for (std::size_t round = 0; round < 2; ++round) {
    for (std::size_t i = 0; i < 100; ++i) q.push(jobs.at(i));
    EXPECT_EQ(q.len_relaxed(), 100u);
    for (std::size_t i = 0; i < 100; ++i) ASSERT_EQ(q.steal().job, jobs.at(i)) << "round " << round << " job " << i;
    EXPECT_TRUE(q.is_empty());
  }
}

// Jobs left in it when it is dropped: its blocks are freed (ASan's leak check).
TEST(Injector, DropWithJobsLeftFreesBlocks) {
  Jobs jobs(10);
  Injector<P, SmallLap> q;
  for (std::size_t i = 0; i < 10; ++i) q.push(jobs.at(i));
  EXPECT_EQ(q.steal().job, jobs.at(0));
}

template <class Q>
void exactly_once(Q& q, std::size_t per_producer) {
  constexpr int kProducers = 2, kConsumers = 2;
  Jobs jobs(per_producer * kProducers);
  std::vector<std::atomic<int>> taken(jobs.headers.size());
  std::atomic<int> producers_left{kProducers};
  std::vector<std::thread> ts;
  for (int t = 0; t < kProducers; ++t) {
    ts.emplace_back([&, t] {
      for (std::size_t i = 0; i < per_producer; ++i) q.push(jobs.at(t * per_producer + i));
      producers_left.fetch_sub(1);
    });
  }
  for (int t = 0; t < kConsumers; ++t) {
    ts.emplace_back([&] {
      while (producers_left.load() > 0 || !q.is_empty()) {
        Steal s = q.steal();
        if (s.kind == StealKind::Success) taken[jobs.index(s.job)].fetch_add(1);
      }
    });
  }
  for (auto& t : ts) t.join();
  EXPECT_TRUE(q.is_empty());
  for (auto& c : taken) ASSERT_EQ(c.load(), 1);
}

TEST(Injector, MultiProducerMultiConsumerExactlyOnce) {
  Injector<P> q;
  exactly_once(q, 20000);
}

// Small blocks: pushers wait for block installation, thieves for the next block.
TEST(Injector, MultiProducerMultiConsumerSmallBlocks) {
  Injector<P, SmallLap> q;
  exactly_once(q, 20000);
}

// ---- Steal::Retry, deterministically ----

// Runs `fn` just before the n-th atomic load from now (1: the next one).
struct Hook {
  static inline std::function<void()> fn;
  static inline int countdown = 0;
  static void arm(int n, std::function<void()> f) {
    countdown = n;
    fn = std::move(f);
  }
  static void before_load() {
    if (fn && --countdown == 0) std::exchange(fn, nullptr)();
  }
};

template <class T>
class HookedAtomic {
 public:
  HookedAtomic() noexcept : a_() {}
  HookedAtomic(T v) noexcept : a_(v) {}  // NOLINT: mirrors std::atomic
  T load(std::memory_order o) const {
    Hook::before_load();
    return a_.load(o);
  }
  void store(T v, std::memory_order o) noexcept { a_.store(v, o); }
  T exchange(T v, std::memory_order o) noexcept { return a_.exchange(v, o); }
  bool compare_exchange_strong(T& e, T d, std::memory_order s, std::memory_order f) noexcept {
    return a_.compare_exchange_strong(e, d, s, f);
  }
  bool compare_exchange_weak(T& e, T d, std::memory_order s, std::memory_order f) noexcept {
    return a_.compare_exchange_weak(e, d, s, f);
  }
  T fetch_add(T v, std::memory_order o) noexcept { return a_.fetch_add(v, o); }
  T fetch_sub(T v, std::memory_order o) noexcept { return a_.fetch_sub(v, o); }

 private:
  std::atomic<T> a_;
};

struct HookPlatform : CheckedPlatform {
  template <class T>
  using Atomic = HookedAtomic<T>;
};
static_assert(Platform<HookPlatform>);

// The hook fires at the outer steal's third load (the tail index, after the
// head index and block): a nested steal takes job 0 there, so the outer
// steal's CAS on the head fails and it returns Retry; trying again, as
// rayon's loops do, yields job 1.
TEST(Injector, LostRaceIsRetry) {
  Injector<HookPlatform> q;
  Jobs jobs(2);
  q.push(jobs.at(0));
  q.push(jobs.at(1));
  Steal nested{StealKind::Empty, JobRef()};
  Hook::arm(3, [&] { nested = q.steal(); });
  Steal outer = q.steal();
  EXPECT_EQ(nested.kind, StealKind::Success);
  EXPECT_EQ(nested.job, jobs.at(0));
  EXPECT_EQ(outer.kind, StealKind::Retry);
  EXPECT_EQ(q.steal().job, jobs.at(1));
  EXPECT_EQ(q.steal().kind, StealKind::Empty);
}

// The same race on the deque: at the thief's second load (`back`, after
// `front`) another thief takes job 0, so the CAS on `front` fails.
TEST(Deque, LostRaceIsRetry) {
  Deque<HookPlatform> d;
  Jobs jobs(2);
  d.push(jobs.at(0));
  d.push(jobs.at(1));
  Steal nested{StealKind::Empty, JobRef()};
  Hook::arm(2, [&] { nested = d.steal(); });
  Steal outer = d.steal();
  EXPECT_EQ(nested.job, jobs.at(0));
  EXPECT_EQ(outer.kind, StealKind::Retry);
  EXPECT_EQ(d.steal().job, jobs.at(1));
}

// JobFifo: every run of its JobRef takes the oldest job, across blocks.
TEST(JobFifo, RunsOldestFirst) {
  struct Rec : JobHeader {
    Rec(std::vector<int>* l, int i) : JobHeader{&Rec::run}, log(l), id(i) {}
    static void run(JobHeader* h) noexcept {
      auto* r = static_cast<Rec*>(h);
      r->log->push_back(r->id);
    }
    std::vector<int>* log;
    int id;
  };
  std::vector<int> log;
  std::vector<Rec> recs;
  for (int i = 0; i < 10; ++i) recs.emplace_back(&log, i);
  JobFifo<P, SmallLap> fifo;
  std::vector<JobRef> refs;
  for (auto& r : recs) refs.push_back(fifo.push(JobRef(&r)));
  // Run the fifo's JobRefs newest first, as a LIFO deque would pop them.
  for (auto it = refs.rbegin(); it != refs.rend(); ++it) it->execute();
  EXPECT_EQ(log, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

}  // namespace
