// SPDX-License-Identifier: MIT OR Apache-2.0
// The latch family: CoreLatch's state machine, LockLatch, CountLatch, and
// SpinLatch waking a worker that really fell asleep on it.
#include <gtest/gtest.h>

#include <thread>

#include "test_support.hpp"

namespace {
using namespace wsstress::pool;
using namespace wsstress::test;
using Core = CoreLatch<P>;

TEST(CoreLatch, SleepCycleWithoutSet) {
  Core l;
  EXPECT_EQ(l.state_relaxed(), Core::UNSET);
  EXPECT_TRUE(l.get_sleepy());
  EXPECT_EQ(l.state_relaxed(), Core::SLEEPY);
  EXPECT_FALSE(l.get_sleepy());  // only from UNSET
  EXPECT_TRUE(l.fall_asleep());
  EXPECT_EQ(l.state_relaxed(), Core::SLEEPING);
  EXPECT_FALSE(l.fall_asleep());  // only from SLEEPY
  l.wake_up();
  EXPECT_EQ(l.state_relaxed(), Core::UNSET);
  EXPECT_FALSE(l.probe());
}

TEST(CoreLatch, SetReportsWhetherTheOwnerSlept) {
  {
    Core l;
    EXPECT_FALSE(l.set());  // UNSET: owner awake, nothing to wake
    EXPECT_TRUE(l.probe());
  }
  {
    Core l;
    ASSERT_TRUE(l.get_sleepy());
    EXPECT_FALSE(l.set());  // SLEEPY: owner will fail gate 3
    EXPECT_FALSE(l.fall_asleep());
  }
  {
    Core l;
    ASSERT_TRUE(l.get_sleepy());
    ASSERT_TRUE(l.fall_asleep());
    EXPECT_TRUE(l.set());  // SLEEPING: the setter must wake the owner
    EXPECT_TRUE(l.probe());
  }
}

TEST(CoreLatch, SetIsFinal) {
  Core l;
  l.set();
  EXPECT_FALSE(l.get_sleepy());  // gate 1 fails once set
  l.wake_up();                   // wake_up leaves SET alone
  EXPECT_TRUE(l.probe());
  EXPECT_EQ(l.state_relaxed(), Core::SET);
}

TEST(LockLatch, WaitBlocksUntilSet) {
  LockLatch<P> l;
  std::atomic<bool> returned{false};
  std::thread waiter([&] {
    l.wait();
    returned = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(returned.load());
  l.set();
  waiter.join();
  EXPECT_TRUE(returned.load());
  EXPECT_TRUE(l.probe());
}

TEST(LockLatch, WaitAndResetAllowsReuse) {
  LockLatch<P> l;
  for (int round = 0; round < 100; ++round) {
    std::thread setter([&] { l.set(); });
    l.wait_and_reset();
    setter.join();
    EXPECT_FALSE(l.probe()) << "round " << round;
  }
}

TEST(CountLatch, SetOnlyAtZero) {
  CountLatch<P> l(3);
  l.increment();  // 4
  EXPECT_FALSE(l.set());
  EXPECT_FALSE(l.set());
  EXPECT_FALSE(l.set());
  EXPECT_FALSE(l.probe());
  EXPECT_TRUE(l.set());
  EXPECT_TRUE(l.probe());
}

TEST(CountLockLatch, WaitReturnsAfterLastSet) {
  CountLockLatch<P> l(2);
  std::vector<std::thread> ts;
  for (int i = 0; i < 2; ++i) ts.emplace_back([&] { l.set(); });
  l.wait();
  for (auto& t : ts) t.join();
}

// Runs `body(worker)` on the only worker of a one-thread pool.
template <class F>
void on_single_worker(F body) {
  Pool pool(Builder().num_threads(1));
  pool.install([&] { body(*Worker::current()); });
}

TEST(SpinLatch, WakesAnOwnerAsleepOnIt) {
  on_single_worker([](Worker& w) {
    SpinLatch<P, M> latch(w);
    std::thread setter([&] {
      // Wait until the owner has passed every gate and sleeps on this latch.
      EXPECT_TRUE(eventually([&] { return latch.as_core_latch().state_relaxed() == Core::SLEEPING; }));
      EXPECT_TRUE(eventually([&] { return w.registry().sleep().is_blocked(0); }));
      latch.set();
    });
    w.wait_until(latch);
    EXPECT_TRUE(latch.probe());
    setter.join();
    // The waker took the thread off the sleeping count.
    EXPECT_EQ(w.registry().sleep().counters_snapshot().sleeping_threads(), 0u);
  });
}

TEST(SpinLatch, CrossLatchWakesAWorkerOfAnotherPool) {
  Pool a(Builder().num_threads(1));
  Pool b(Builder().num_threads(1));
  a.install([&] {
    Worker& wa = *Worker::current();
    auto latch = SpinLatch<P, M>::cross(wa);
    b.spawn([&] {
      EXPECT_TRUE(eventually([&] { return latch.as_core_latch().state_relaxed() == Core::SLEEPING; }));
      latch.set();  // from pool b's worker, into pool a's sleep module
    });
    wa.wait_until(latch);
    EXPECT_TRUE(latch.probe());
  });
}

TEST(CountLatch, TerminateStyleSetAndTickleWakesSleeper) {
  on_single_worker([](Worker& w) {
    CountLatch<P> latch(2);
    std::thread setter([&] {
      latch.set_and_tickle_one(w.registry(), 0);  // 2 -> 1: not set, no wake
      EXPECT_TRUE(eventually([&] { return latch.as_core_latch().state_relaxed() == Core::SLEEPING; }));
      latch.set_and_tickle_one(w.registry(), 0);
    });
    w.wait_until(latch);
    setter.join();
    EXPECT_TRUE(latch.probe());
  });
}

}  // namespace
