// SPDX-License-Identifier: MIT OR Apache-2.0
// The Chase-Lev deque: order, growth, and exactly-once delivery under
// concurrent steals (the injector has test_injector.cpp).
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace {
using namespace wsstress::pool;
using namespace wsstress::test;

TEST(Deque, LifoOwnerFifoThief) {
  Deque<P> d;
  Jobs jobs(3);
  EXPECT_TRUE(d.owner_is_empty());
  EXPECT_TRUE(d.stealer_is_empty());
  for (int i = 0; i < 3; ++i) d.push(jobs.at(i));
  EXPECT_FALSE(d.owner_is_empty());
  EXPECT_FALSE(d.stealer_is_empty());
  Steal s = d.steal();
  ASSERT_EQ(s.kind, StealKind::Success);
  EXPECT_EQ(s.job, jobs.at(0));    // thieves take the oldest
  EXPECT_EQ(d.pop(), jobs.at(2));  // the owner takes the newest
  EXPECT_EQ(d.pop(), jobs.at(1));
  EXPECT_FALSE(d.pop());
  EXPECT_EQ(d.steal().kind, StealKind::Empty);
  EXPECT_TRUE(d.owner_is_empty());
}

TEST(Deque, FifoFlavorOwnerPopsOldest) {
  Deque<P> d(Deque<P>::Flavor::Fifo);
  Jobs jobs(3);
  for (int i = 0; i < 3; ++i) d.push(jobs.at(i));
  EXPECT_EQ(d.pop(), jobs.at(0));
  EXPECT_EQ(d.pop(), jobs.at(1));
  EXPECT_EQ(d.steal().job, jobs.at(2));
  EXPECT_FALSE(d.pop());
}

TEST(Deque, GrowsPastMinimumCapacityKeepingOrder) {
  Deque<P> d;
  const std::size_t n = Deque<P>::kMinCap * 5 + 3;
  Jobs jobs(n);
  for (std::size_t i = 0; i < n; ++i) d.push(jobs.at(i));
  EXPECT_EQ(d.len_relaxed(), n);
  for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(d.steal().job, jobs.at(i));
  for (std::size_t i = n; i-- > 10;) EXPECT_EQ(d.pop(), jobs.at(i));
  EXPECT_FALSE(d.pop());
}

// One owner pushes and pops while thieves steal; every job must come out
// exactly once. Runs both flavours, with and without buffer growth. Returns how
// many jobs the thieves took: the owner starts once every thief runs, but a
// loaded machine may still deschedule them for the owner's whole run.
std::size_t exactly_once_run(Deque<P>::Flavor flavor, std::size_t batch, int thieves) {
  constexpr std::size_t kJobs = 200000;
  Jobs jobs(kJobs);
  std::vector<std::atomic<int>> taken(kJobs);
  Deque<P> d(flavor);
  std::atomic<bool> done{false};
  std::atomic<int> started{0};
  std::atomic<std::size_t> stolen{0};

  std::vector<std::thread> ts;
  for (int t = 0; t < thieves; ++t) {
    ts.emplace_back([&] {
      started.fetch_add(1);
      while (!done.load(std::memory_order_acquire) || !d.stealer_is_empty()) {
        Steal s = d.steal();
        if (s.kind == StealKind::Success) {
          taken[jobs.index(s.job)].fetch_add(1);
          stolen.fetch_add(1);
        }
      }
    });
  }
  while (started.load() < thieves) std::this_thread::yield();
  TestRng rng(42);
  std::size_t next = 0;
  bool waited = false;
  while (next < kJobs) {
    // Halfway, the owner waits for a first steal while its deque holds jobs,
    // so a loaded machine whose thieves never got the CPU cannot leave the
    // run without a race (it failed so at load 18); the second half races.
    if (!waited && next >= kJobs / 2) {
      while (stolen.load() == 0 && !d.stealer_is_empty()) std::this_thread::yield();
      waited = true;
    }
    const std::size_t k = 1 + rng.below(batch);
    for (std::size_t i = 0; i < k && next < kJobs; ++i) d.push(jobs.at(next++));
    const std::size_t pops = rng.below(k + 1);
    for (std::size_t i = 0; i < pops; ++i) {
      if (JobRef j = d.pop()) taken[jobs.index(j)].fetch_add(1);
    }
  }
  while (JobRef j = d.pop()) taken[jobs.index(j)].fetch_add(1);
  done.store(true, std::memory_order_release);
  for (auto& t : ts) t.join();

  std::size_t missing = 0, duplicated = 0;
  for (auto& c : taken) {
    missing += c.load() == 0;
    duplicated += c.load() > 1;
  }
  EXPECT_EQ(missing, 0u);
  EXPECT_EQ(duplicated, 0u);
  return stolen.load();
}

// Up to ten runs, until the thieves win at least one race (every run must
// hand out each job exactly once); a run waits for a first steal halfway.
void exactly_once(Deque<P>::Flavor flavor, std::size_t batch, int thieves) {
  std::size_t stolen = 0;
  for (int attempt = 0; attempt < 10 && stolen == 0 && !::testing::Test::HasFailure(); ++attempt) {
    stolen = exactly_once_run(flavor, batch, thieves);
  }
  EXPECT_GT(stolen, 0u) << "the thieves never won a race in ten runs; the test proved little";
}

TEST(Deque, ExactlyOnceLifoSmallBatches) { exactly_once(Deque<P>::Flavor::Lifo, 4, 3); }
TEST(Deque, ExactlyOnceLifoGrowing) { exactly_once(Deque<P>::Flavor::Lifo, 600, 3); }
TEST(Deque, ExactlyOnceFifo) { exactly_once(Deque<P>::Flavor::Fifo, 50, 3); }

// The broadcast-queue pattern: several threads push, serialised by a mutex,
// and one thread steals.
TEST(Deque, ManyPushersUnderMutexOneStealer) {
  constexpr std::size_t kPerThread = 20000;
  constexpr int kPushers = 3;
  Jobs jobs(kPerThread * kPushers);
  std::vector<std::atomic<int>> taken(jobs.headers.size());
  Deque<P> d(Deque<P>::Flavor::Fifo);
  std::mutex m;
  std::atomic<int> pushers_left{kPushers};
  std::vector<std::thread> ts;
  for (int t = 0; t < kPushers; ++t) {
    ts.emplace_back([&, t] {
      for (std::size_t i = 0; i < kPerThread; ++i) {
        std::lock_guard<std::mutex> g(m);
        d.push(jobs.at(t * kPerThread + i));
      }
      pushers_left.fetch_sub(1);
    });
  }
  std::size_t got = 0;
  while (pushers_left.load() > 0 || !d.stealer_is_empty()) {
    Steal s = d.steal();
    if (s.kind == StealKind::Success) {
      taken[jobs.index(s.job)].fetch_add(1);
      ++got;
    }
  }
  for (auto& t : ts) t.join();
  EXPECT_EQ(got, jobs.headers.size());
  for (auto& c : taken) ASSERT_EQ(c.load(), 1);
}

}  // namespace
