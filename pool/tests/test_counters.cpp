// SPDX-License-Identifier: MIT OR Apache-2.0
// AtomicCounters: the bit layout, the JEC parity rules and the thread counts.
#include <gtest/gtest.h>

#include "test_support.hpp"
#include "wsstress/pool/sleep/counters.hpp"

namespace {
using namespace wsstress::pool;
using wsstress::test::P;

struct NarrowJec2 : NoMutants {
  static constexpr unsigned kJecBits = 2;
};

TEST(Counters, LayoutMatchesRayon64Bit) {
  using L = CounterLayout<NoMutants>;
  EXPECT_EQ(L::kSleepingShift, 0u);
  EXPECT_EQ(L::kInactiveShift, 16u);
  EXPECT_EQ(L::kJecShift, 32u);
  EXPECT_EQ(L::kJecBits, 32u);
  EXPECT_EQ(kThreadsMax, 65535u);
  EXPECT_EQ(max_num_threads(), 65535u);
  Counters<NoMutants> c((std::uint64_t{7} << 32) | (std::uint64_t{5} << 16) | 3);
  EXPECT_EQ(c.jobs_counter().as_u64(), 7u);
  EXPECT_EQ(c.inactive_threads(), 5u);
  EXPECT_EQ(c.sleeping_threads(), 3u);
  EXPECT_EQ(c.awake_but_idle_threads(), 2u);
}

TEST(Counters, JecParity) {
  EXPECT_TRUE(JobsEventCounter(0).is_sleepy());
  EXPECT_FALSE(JobsEventCounter(0).is_active());
  EXPECT_TRUE(JobsEventCounter(1).is_active());
  EXPECT_FALSE(JobsEventCounter(1).is_sleepy());
  EXPECT_TRUE(JobsEventCounter(0xfffffffeu).is_sleepy());
  // The dummy value can never equal a real (32-bit) JEC.
  EXPECT_FALSE(JobsEventCounter::dummy() == JobsEventCounter(0xffffffffu));
}

TEST(Counters, StartsAtZero) {
  AtomicCounters<P> c;
  auto s = c.load(std::memory_order_seq_cst);
  EXPECT_EQ(s.word(), 0u);
  EXPECT_TRUE(s.jobs_counter().is_sleepy());
}

TEST(Counters, ParityToggleOnlyWhenTheOtherSideWroteLast) {
  AtomicCounters<P> c;
  auto is_active = [](JobsEventCounter j) { return j.is_active(); };
  auto is_sleepy = [](JobsEventCounter j) { return j.is_sleepy(); };
  // JEC 0 is even ("sleepy"): a publisher bumps it to odd...
  EXPECT_EQ(c.increment_jobs_event_counter_if(is_sleepy).jobs_counter().as_u64(), 1u);
  // ...and a second publisher sees odd and writes nothing.
  EXPECT_EQ(c.increment_jobs_event_counter_if(is_sleepy).jobs_counter().as_u64(), 1u);
  // A thread getting sleepy bumps odd to even and remembers it.
  EXPECT_EQ(c.increment_jobs_event_counter_if(is_active).jobs_counter().as_u64(), 2u);
  // A second sleepy thread shares that value.
  EXPECT_EQ(c.increment_jobs_event_counter_if(is_active).jobs_counter().as_u64(), 2u);
  EXPECT_EQ(c.increment_jobs_event_counter_if(is_sleepy).jobs_counter().as_u64(), 3u);
  // The thread counts were never touched.
  auto s = c.load(std::memory_order_seq_cst);
  EXPECT_EQ(s.inactive_threads(), 0u);
  EXPECT_EQ(s.sleeping_threads(), 0u);
}

TEST(Counters, ThreadCountsAreIndependentFields) {
  AtomicCounters<P> c;
  for (int i = 0; i < 3; ++i) c.add_inactive_thread();
  auto s = c.load(std::memory_order_seq_cst);
  EXPECT_EQ(s.inactive_threads(), 3u);
  EXPECT_TRUE(c.try_add_sleeping_thread(s));
  s = c.load(std::memory_order_seq_cst);
  EXPECT_EQ(s.sleeping_threads(), 1u);
  EXPECT_EQ(s.awake_but_idle_threads(), 2u);
  // A snapshot taken before the JEC moved fails the CAS: gate 4's protection.
  auto before = c.load(std::memory_order_seq_cst);
  c.increment_jobs_event_counter_if([](JobsEventCounter j) { return j.is_sleepy(); });
  EXPECT_FALSE(c.try_add_sleeping_thread(before));
  EXPECT_EQ(c.load(std::memory_order_seq_cst).sleeping_threads(), 1u);
  // Finding work wakes at most two sleepers.
  EXPECT_EQ(c.sub_inactive_thread(), 1u);
  c.sub_sleeping_thread();
  s = c.load(std::memory_order_seq_cst);
  EXPECT_EQ(s.inactive_threads(), 2u);
  EXPECT_EQ(s.sleeping_threads(), 0u);
}

TEST(Counters, SubInactiveWakesAtMostTwo) {
  AtomicCounters<P> c;
  for (int i = 0; i < 6; ++i) c.add_inactive_thread();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(c.try_add_sleeping_thread(c.load(std::memory_order_seq_cst)));
  EXPECT_EQ(c.sub_inactive_thread(), 2u);
}

TEST(Counters, FullWidthJecWrapsWithoutCarryingIntoThreadCounts) {
  // A JEC at its maximum, with some threads counted: the increment wraps to 0.
  const std::uint64_t word = (std::uint64_t{0xffffffffu} << 32) | (std::uint64_t{4} << 16) | 2;
  Counters<NoMutants> c(word);
  Counters<NoMutants> next = c.increment_jobs_counter();
  EXPECT_EQ(next.jobs_counter().as_u64(), 0u);
  EXPECT_EQ(next.inactive_threads(), 4u);
  EXPECT_EQ(next.sleeping_threads(), 2u);
}

TEST(Counters, NarrowJecRollsOverInsideItsField) {
  using C = Counters<NarrowJec2>;
  const std::uint64_t threads = (std::uint64_t{4} << 16) | 2;
  C c(threads);
  std::uint64_t seen[5];
  for (int i = 0; i < 5; ++i) {
    seen[i] = c.jobs_counter().as_u64();
    EXPECT_EQ(c.inactive_threads(), 4u);
    EXPECT_EQ(c.sleeping_threads(), 2u);
    // Nothing above the 2-bit field is ever set.
    EXPECT_EQ(c.word() >> (32 + 2), 0u);
    c = c.increment_jobs_counter();
  }
  EXPECT_EQ(seen[0], 0u);
  EXPECT_EQ(seen[3], 3u);
  EXPECT_EQ(seen[4], 0u);  // four increments bring the JEC back: the rollover gate 5 guards
}

TEST(Counters, ConcurrentUpdatesKeepEveryField) {
  AtomicCounters<P> c;
  constexpr int kThreads = 4, kIters = 20000;
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t) {
    ts.emplace_back([&, t] {
      for (int i = 0; i < kIters; ++i) {
        c.add_inactive_thread();
        if (t % 2 == 0) {
          c.increment_jobs_event_counter_if([](JobsEventCounter j) { return j.is_sleepy(); });
        } else {
          c.increment_jobs_event_counter_if([](JobsEventCounter j) { return j.is_active(); });
        }
        c.sub_inactive_thread();
      }
    });
  }
  for (auto& t : ts) t.join();
  auto s = c.load(std::memory_order_seq_cst);
  EXPECT_EQ(s.inactive_threads(), 0u);
  EXPECT_EQ(s.sleeping_threads(), 0u);
  EXPECT_LE(s.jobs_counter().as_u64(), 2u * kThreads * kIters);
}

}  // namespace
