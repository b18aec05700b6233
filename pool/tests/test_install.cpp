// SPDX-License-Identifier: MIT OR Apache-2.0
// install and the three in_worker paths: same pool (direct), cold (from outside
// any pool), cross (from another pool's worker); many outside threads at once;
// cross-pool chains A -> B -> A with one-thread pools.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "test_support.hpp"

namespace {
using namespace wsstress::pool;
using namespace wsstress::test;

TEST(Install, ColdPathRunsOnAWorkerAndReturnsTheValue) {
  Pool pool(Builder().num_threads(2));
  const auto caller = std::this_thread::get_id();
  auto [value, tid, index] =
      pool.install([] { return std::make_tuple(42, std::this_thread::get_id(), current_thread_index<P, M>()); });
  EXPECT_EQ(value, 42);
  EXPECT_NE(tid, caller);
  ASSERT_TRUE(index.has_value());
  EXPECT_LT(*index, 2u);
  EXPECT_FALSE(pool.current_thread_index().has_value());  // the caller is no worker
}

TEST(Install, SamePoolNestedInstallRunsDirectly) {
  Pool pool(Builder().num_threads(2));
  auto same = pool.install([&] {
    const auto outer = std::this_thread::get_id();
    return pool.install([&] { return std::this_thread::get_id() == outer; });
  });
  EXPECT_TRUE(same);
}

TEST(Install, CrossPoolRunsInTheTargetPool) {
  Pool a(Builder().num_threads(1));
  Pool b(Builder().num_threads(2));
  auto [inner_threads, inner_is_b_worker, back_threads, same_thread] = a.install([&] {
    const auto outer = std::this_thread::get_id();
    auto r = b.install([&] {
      return std::make_tuple(current_num_threads<P, M>(), b.current_thread_index().has_value(),
                             std::this_thread::get_id() == outer);
    });
    return std::make_tuple(std::get<0>(r), std::get<1>(r), current_num_threads<P, M>(), std::get<2>(r));
  });
  EXPECT_EQ(inner_threads, 2u);
  EXPECT_TRUE(inner_is_b_worker);
  EXPECT_EQ(back_threads, 1u);
  EXPECT_FALSE(same_thread);
}

TEST(Install, ExceptionsCrossEveryPath) {
  Pool a(Builder().num_threads(1));
  Pool b(Builder().num_threads(1));
  EXPECT_THROW(a.install([]() -> int { throw std::out_of_range("cold"); }), std::out_of_range);
  EXPECT_THROW(a.install([&] { a.install([] { throw std::out_of_range("same"); }); }), std::out_of_range);
  EXPECT_THROW(a.install([&] { b.install([] { throw std::out_of_range("cross"); }); }), std::out_of_range);
  // The pools still work afterwards.
  EXPECT_EQ(a.install([&] { return b.install([] { return 5; }); }), 5);
}

TEST(Install, ManyOutsideThreadsEnterOnePoolAtOnce) {
  for (std::size_t threads : {1u, 2u, 4u}) {
    Pool pool(Builder().num_threads(threads));
    constexpr int kCallers = 16, kCalls = 200;
    std::atomic<long> total{0};
    std::vector<std::thread> callers;
    for (int c = 0; c < kCallers; ++c) {
      callers.emplace_back([&, c] {
        for (int i = 0; i < kCalls; ++i) {
          // Alternate a bare install with a join inside it.
          long v = (i % 2 == 0) ? pool.install([&] { return long{c}; }) : pool.install([&] {
            auto [x, y] = join<P, M>([&] { return long{c}; }, [] { return 0L; });
            return x + y;
          });
          total.fetch_add(v);
        }
      });
    }
    for (auto& t : callers) t.join();
    EXPECT_EQ(total.load(), long{kCalls} * (kCallers * (kCallers - 1) / 2)) << threads << " threads";
  }
}

TEST(Install, OutsideThreadsEnterAPoolThatFellAsleep) {
  Pool pool(Builder().num_threads(3));
  for (int round = 0; round < 20; ++round) {
    // Let every worker reach the condvar before the next entry.
    ASSERT_TRUE(eventually([&] { return pool.registry().sleep().counters_snapshot().sleeping_threads() == 3; }));
    EXPECT_EQ(pool.install([round] { return round * 2; }), round * 2);
  }
}

// Outside threads enter at random moments of the workers' sleep cycle: right
// after the last job, mid-yield, just after announcing sleepy, or asleep. A lost
// wake-up here leaves an install blocked forever (ctest's timeout fails it).
TEST(Install, EntriesAtRandomMomentsOfTheSleepCycle) {
  Pool pool(Builder().num_threads(2));
  TestRng rng(99);
  for (int i = 0; i < 3000; ++i) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(rng.below(60));
    while (std::chrono::steady_clock::now() < until) {
    }
    switch (i % 3) {
      case 0: ASSERT_EQ(pool.install([i] { return i; }), i); break;
      case 1: {
        std::atomic<bool> ran{false};
        pool.spawn([&] { ran.store(true); });
        ASSERT_TRUE(eventually([&] { return ran.load(); }));
        break;
      }
      default: ASSERT_EQ(pool.broadcast([](BroadcastContext<P, M> c) { return c.index(); }).size(), 2u);
    }
  }
}

// A -> B -> A -> B ... with one thread each: each worker, waiting for the other
// pool, must run its own pool's injected work (in_worker_cross), or the chain
// deadlocks (rayon 36577d6).
int ping(Pool& here, Pool& there, int depth) {
  if (depth == 0) return 0;
  return 1 + there.install([&] { return ping(there, here, depth - 1); });
}

TEST(Install, CrossPoolChainABAWithOneThreadPools) {
  Pool a(Builder().num_threads(1));
  Pool b(Builder().num_threads(1));
  EXPECT_EQ(a.install([&] { return ping(a, b, 10); }), 10);
}

TEST(Install, CrossPoolChainsFromManyThreadsAtOnce) {
  Pool a(Builder().num_threads(2));
  Pool b(Builder().num_threads(1));
  Pool c(Builder().num_threads(2));
  std::vector<std::thread> ts;
  std::atomic<int> sum{0};
  for (int t = 0; t < 6; ++t) {
    ts.emplace_back([&, t] {
      Pool* pools[3] = {&a, &b, &c};
      for (int i = 0; i < 30; ++i) {
        // A diamond: a worker of X joins two installs into Y and Z, each of
        // which installs back into X.
        Pool& x = *pools[(t + i) % 3];
        Pool& y = *pools[(t + i + 1) % 3];
        Pool& z = *pools[(t + i + 2) % 3];
        int v = x.install([&] {
          auto [p, q] = join<P, M>([&] { return y.install([&] { return x.install([] { return 1; }); }); },
                                   [&] { return z.install([&] { return x.install([] { return 2; }); }); });
          return p + q;
        });
        sum.fetch_add(v);
      }
    });
  }
  for (auto& t : ts) t.join();
  EXPECT_EQ(sum.load(), 6 * 30 * 3);
}

TEST(Install, CurrentThreadHasPendingTasks) {
  Pool pool(Builder().num_threads(1));
  EXPECT_FALSE(pool.current_thread_has_pending_tasks().has_value());
  pool.install([&] {
    EXPECT_EQ(pool.current_thread_has_pending_tasks(), std::optional<bool>(false));
    pool.spawn([] {});  // pushed on our own deque
    EXPECT_EQ(pool.current_thread_has_pending_tasks(), std::optional<bool>(true));
  });
}

}  // namespace
