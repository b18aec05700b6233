// SPDX-License-Identifier: MIT OR Apache-2.0
// broadcast, spawn_broadcast, spawn and spawn_fifo on the core: every worker
// gets its broadcast job (even asleep: gate 5 looks at the broadcast queue),
// spawned exceptions reach the panic handler, FIFO order holds.
#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace {
using namespace wsstress::pool;
using namespace wsstress::test;

TEST(Broadcast, RunsOnceOnEveryWorkerInIndexOrder) {
  Pool pool(Builder().num_threads(4));
  auto r = pool.broadcast([](BroadcastContext<P, M> ctx) {
    EXPECT_EQ(ctx.num_threads(), 4u);
    return std::make_pair(ctx.index(), *current_thread_index<P, M>());
  });
  ASSERT_EQ(r.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(r[i], std::make_pair(i, i));
}

TEST(Broadcast, ReachesAPoolThatIsFastAsleep) {
  Pool pool(Builder().num_threads(3));
  for (int round = 0; round < 20; ++round) {
    ASSERT_TRUE(eventually([&] { return pool.registry().sleep().counters_snapshot().sleeping_threads() == 3; }));
    auto r = pool.broadcast([](BroadcastContext<P, M> ctx) { return ctx.index() * 10; });
    EXPECT_EQ(r, (std::vector<std::size_t>{0, 10, 20}));
  }
}

TEST(Broadcast, RacingOutsideThreadsAndSleep) {
  Pool pool(Builder().num_threads(2));
  std::vector<std::thread> ts;
  std::atomic<long> total{0};
  for (int t = 0; t < 4; ++t) {
    ts.emplace_back([&] {
      for (int i = 0; i < 100; ++i) {
        auto r = pool.broadcast([](BroadcastContext<P, M> ctx) { return long(ctx.index() + 1); });
        total.fetch_add(r[0] + r[1]);
        if (i % 10 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    });
  }
  for (auto& t : ts) t.join();
  EXPECT_EQ(total.load(), 4L * 100 * 3);
}

TEST(Broadcast, ExceptionIsRethrownAfterAllRan) {
  Pool pool(Builder().num_threads(3));
  std::atomic<int> ran{0};
  try {
    pool.broadcast([&](BroadcastContext<P, M> ctx) {
      ran.fetch_add(1);
      if (ctx.index() == 1) throw std::runtime_error("one");
      return 0;
    });
    ADD_FAILURE();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "one");
  }
  EXPECT_EQ(ran.load(), 3);
}

TEST(SpawnBroadcast, RunsEverywhereAndKeepsThePoolAlive) {
  auto seen = std::make_shared<std::atomic<int>>(0);
  LifeCounter life;
  {
    Builder b;
    b.num_threads(3);
    life.attach(b);
    Pool pool(std::move(b));
    pool.spawn_broadcast([seen](BroadcastContext<P, M> ctx) { seen->fetch_or(1 << ctx.index()); });
  }
  ASSERT_TRUE(eventually([&] { return life.exited.load() == 3; }));
  EXPECT_EQ(seen->load(), 0b111);
}

TEST(Spawn, ExceptionGoesToThePanicHandler) {
  std::mutex m;
  std::vector<std::string> caught;
  std::atomic<int> handled{0};
  Builder b;
  b.num_threads(2).panic_handler([&](std::exception_ptr e) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& ex) {
      std::lock_guard<std::mutex> g(m);
      caught.emplace_back(ex.what());
    }
    handled.fetch_add(1);
  });
  Pool pool(std::move(b));
  for (int i = 0; i < 10; ++i) pool.spawn([i] { throw std::runtime_error("spawn " + std::to_string(i)); });
  ASSERT_TRUE(eventually([&] { return handled.load() == 10; }));
  std::set<std::string> got(caught.begin(), caught.end());
  EXPECT_EQ(got.size(), 10u);  // each exactly once
}

TEST(Spawn, FifoOrderOnOneWorker) {
  Pool pool(Builder().num_threads(1));
  std::vector<int> order;
  std::atomic<bool> done{false};
  pool.install([&] {
    for (int i = 0; i < 10; ++i) pool.spawn_fifo([&order, i] { order.push_back(i); });
    pool.spawn_fifo([&] { done = true; });
  });
  ASSERT_TRUE(eventually([&] { return done.load(); }));
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(Spawn, LifoOrderOnOneWorker) {
  Pool pool(Builder().num_threads(1));
  std::vector<int> order;
  std::atomic<bool> done{false};
  pool.install([&] {
    pool.spawn([&] { done = true; });  // runs last: pushed first
    for (int i = 0; i < 5; ++i) pool.spawn([&order, i] { order.push_back(i); });
  });
  ASSERT_TRUE(eventually([&] { return done.load(); }));
  EXPECT_EQ(order, (std::vector<int>{4, 3, 2, 1, 0}));
}

TEST(Spawn, FromOutsideIntoASleepingPool) {
  Pool pool(Builder().num_threads(2));
  for (int round = 0; round < 20; ++round) {
    ASSERT_TRUE(eventually([&] { return pool.registry().sleep().counters_snapshot().sleeping_threads() == 2; }));
    std::atomic<bool> ran{false};
    pool.spawn([&] { ran = true; });
    ASSERT_TRUE(eventually([&] { return ran.load(); })) << "round " << round;
  }
}

TEST(BreadthFirst, WorkerPopsItsDequeFifo) {
  Builder b;
  b.num_threads(1).breadth_first();
  Pool pool(std::move(b));
  std::vector<int> order;
  std::atomic<bool> done{false};
  pool.install([&] {
    for (int i = 0; i < 5; ++i) pool.spawn([&order, i] { order.push_back(i); });
    pool.spawn([&] { done = true; });
  });
  ASSERT_TRUE(eventually([&] { return done.load(); }));
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

}  // namespace
