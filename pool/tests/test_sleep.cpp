// SPDX-License-Identifier: MIT OR Apache-2.0
// The sleep module: rounds, each gate of sleep() driven deterministically on
// one thread, and the wake rules observed on a real pool through trace events.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace {
using namespace wsstress::pool;
using namespace wsstress::test;
using SleepT = Sleep<P, M>;

// Brings a fresh idle state to the point where the next no_work_found call
// enters sleep(): 32 plain rounds, then the round that announces sleepy.
JobsEventCounter make_sleepy(SleepT& s, IdleState& idle, CoreLatch<P>& latch) {
  auto none = [] { return false; };
  for (std::uint32_t i = 0; i < ROUNDS_UNTIL_SLEEPY; ++i) {
    s.no_work_found(idle, latch, none);
    EXPECT_EQ(idle.rounds, i + 1);
    EXPECT_TRUE(idle.jobs_counter == JobsEventCounter::dummy());
  }
  s.no_work_found(idle, latch, none);  // announce_sleepy
  EXPECT_EQ(idle.rounds, ROUNDS_UNTIL_SLEEPING);
  EXPECT_TRUE(idle.jobs_counter.is_sleepy());
  return idle.jobs_counter;
}

TEST(Sleep, AnnouncingSleepyMakesTheJecEven) {
  SleepT s(1);
  CoreLatch<P> latch;
  IdleState idle = s.start_looking(0, latch);
  EXPECT_EQ(s.counters_snapshot().inactive_threads(), 1u);
  s.new_internal_jobs(0, 1, true);  // JEC 0 (even) -> 1
  EXPECT_EQ(s.counters_snapshot().jobs_counter().as_u64(), 1u);
  JobsEventCounter jec = make_sleepy(s, idle, latch);
  EXPECT_EQ(jec.as_u64(), 2u);
  s.work_found(idle);
  EXPECT_EQ(s.counters_snapshot().inactive_threads(), 0u);
}

TEST(Sleep, Gate1LatchAlreadySet) {
  SleepT s(1);
  CoreLatch<P> latch;
  IdleState idle = s.start_looking(0, latch);
  make_sleepy(s, idle, latch);
  latch.set();
  s.no_work_found(idle, latch, [] { return false; });  // sleep(): gate 1 fails
  EXPECT_EQ(idle.rounds, ROUNDS_UNTIL_SLEEPING);       // untouched: the caller sees the latch
  EXPECT_EQ(s.counters_snapshot().sleeping_threads(), 0u);
  EXPECT_FALSE(s.is_blocked(0));
}

TEST(Sleep, Gate4JecMovedMeansSearchOnceMore) {
  SleepT s(1);
  CoreLatch<P> latch;
  IdleState idle = s.start_looking(0, latch);
  make_sleepy(s, idle, latch);
  s.new_internal_jobs(0, 1, true);  // someone posted work after we announced
  s.no_work_found(idle, latch, [] { return false; });
  EXPECT_EQ(idle.rounds, ROUNDS_UNTIL_SLEEPY);  // wake_partly: one more round, then re-announce
  EXPECT_TRUE(idle.jobs_counter == JobsEventCounter::dummy());
  EXPECT_EQ(latch.state_relaxed(), CoreLatch<P>::UNSET);  // SLEEPING undone
  EXPECT_EQ(s.counters_snapshot().sleeping_threads(), 0u);
}

TEST(Sleep, Gate5InjectedJobMeansWakeFully) {
  SleepT s(1);
  CoreLatch<P> latch;
  IdleState idle = s.start_looking(0, latch);
  make_sleepy(s, idle, latch);
  bool asked = false;
  s.no_work_found(idle, latch, [&] {
    asked = true;
    // Gate 5 runs after registering as sleeping.
    EXPECT_EQ(s.counters_snapshot().sleeping_threads(), 1u);
    return true;
  });
  EXPECT_TRUE(asked);
  EXPECT_EQ(idle.rounds, 0u);                               // the code resets fully (the README says partly)
  EXPECT_EQ(s.counters_snapshot().sleeping_threads(), 0u);  // undid its own registration
  EXPECT_EQ(latch.state_relaxed(), CoreLatch<P>::UNSET);
}

TEST(Sleep, BlocksAfterAllGatesUntilTheLatchIsSet) {
  SleepT s(1);
  CoreLatch<P> latch;
  std::thread worker([&] {
    IdleState idle = s.start_looking(0, latch);
    while (!latch.probe()) s.no_work_found(idle, latch, [] { return false; });
    s.work_found(idle);
  });
  ASSERT_TRUE(eventually([&] { return s.is_blocked(0); }));
  auto c = s.counters_snapshot();
  EXPECT_EQ(c.sleeping_threads(), 1u);
  EXPECT_EQ(c.inactive_threads(), 1u);
  EXPECT_EQ(latch.state_relaxed(), CoreLatch<P>::SLEEPING);
  // set() reports SLEEPING, so the setter must notify.
  EXPECT_TRUE(latch.set());
  s.notify_worker_latch_is_set(0);
  worker.join();
  c = s.counters_snapshot();
  EXPECT_EQ(c.sleeping_threads(), 0u);
  EXPECT_EQ(c.inactive_threads(), 0u);
}

TEST(Sleep, InjectedJobWakesOneSleeperWhenNoneIsIdle) {
  SleepT s(2);
  CoreLatch<P> latches[2];
  std::atomic<bool> injected{false};
  std::atomic<int> woke[2] = {0, 0};
  std::vector<std::thread> ts;
  for (int i = 0; i < 2; ++i) {
    ts.emplace_back([&, i] {
      IdleState idle = s.start_looking(i, latches[i]);
      while (!latches[i].probe()) {
        if (injected.load()) {
          woke[i] = 1;
          break;
        }
        s.no_work_found(idle, latches[i], [&] { return injected.load(); });
      }
      s.work_found(idle);
    });
  }
  ASSERT_TRUE(eventually([&] { return s.is_blocked(0) && s.is_blocked(1); }));
  injected = true;
  s.new_injected_jobs(Event::kNoWorker, 1, true);
  // One job, nobody idle: exactly one sleeper (the lowest index) is woken here;
  // it then wakes up to two more through work_found.
  ASSERT_TRUE(eventually([&] { return woke[0].load() == 1; }));
  ASSERT_TRUE(eventually([&] { return woke[1].load() == 1; }));
  for (auto& t : ts) t.join();
}

// ---- wake rules on a real pool, observed through trace events ----

struct TracingPlatform : CheckedPlatform {
  static constexpr bool kTraced = true;
  // Leaked on purpose: detached workers may still report events while the
  // process runs its static destructors.
  static std::mutex& mu() {
    static auto* m = new std::mutex;
    return *m;
  }
  static std::vector<Event>& log() {
    static auto* v = new std::vector<Event>;
    return *v;
  }
  static void on_event(const Event& e, SrcLoc) noexcept {
    if (e.kind == EventKind::ThreadNotify || e.kind == EventKind::ThreadFoundWork) {
      std::lock_guard<std::mutex> g(mu());
      log().push_back(e);
    }
  }
  static std::vector<Event> take(const void* registry) {
    std::lock_guard<std::mutex> g(mu());
    std::vector<Event> out;
    for (const Event& e : log()) {
      if (e.registry == registry) out.push_back(e);
    }
    log().clear();
    return out;
  }
};

TEST(SleepWakeRules, OneInjectedJobWakesWorkerZeroThenItWakesTwoMore) {
  using TP = TracingPlatform;
  BasicThreadPool<TP, M> pool(BasicThreadPoolBuilder<TP, M>().num_threads(4));
  Registry<TP, M>& reg = pool.registry();
  ASSERT_TRUE(eventually([&] {
    for (std::size_t i = 0; i < 4; ++i) {
      if (!reg.sleep().is_blocked(i)) return false;
    }
    return true;
  }));
  EXPECT_EQ(reg.sleep().counters_snapshot().sleeping_threads(), 4u);
  TP::take(&reg);

  std::atomic<int> ran_on{-1};
  pool.spawn([&] { ran_on = static_cast<int>(*current_thread_index<TP, M>()); });
  ASSERT_TRUE(eventually([&] { return ran_on.load() >= 0; }));
  // Let the woken threads go back to sleep, so the log is complete.
  ASSERT_TRUE(eventually([&] {
    for (std::size_t i = 0; i < 4; ++i) {
      if (!reg.sleep().is_blocked(i)) return false;
    }
    return true;
  }));

  std::vector<std::uint32_t> notified;
  for (const Event& e : TP::take(&reg)) {
    if (e.kind == EventKind::ThreadNotify) notified.push_back(e.worker);
  }
  EXPECT_EQ(ran_on.load(), 0) << "only worker 0 was woken, so only it can run the job";
  ASSERT_EQ(notified.size(), 3u);
  EXPECT_EQ(notified[0], 0u);  // new_jobs: wake_any_threads starts at index 0
  std::sort(notified.begin() + 1, notified.end());
  EXPECT_EQ(notified[1], 1u);  // work_found: worker 0 wakes up to two more
  EXPECT_EQ(notified[2], 2u);
}

TEST(SleepWakeRules, IdleWorkersStopBurningCpu) {
  Pool pool(Builder().num_threads(3));
  Registry<P, M>& reg = pool.registry();
  // After the initial spin every worker is blocked, and the counters agree.
  ASSERT_TRUE(eventually([&] { return reg.sleep().counters_snapshot().sleeping_threads() == 3; }));
  auto c = reg.sleep().counters_snapshot();
  EXPECT_EQ(c.inactive_threads(), 3u);
  EXPECT_TRUE(c.jobs_counter().is_sleepy());
}

}  // namespace
