// SPDX-License-Identifier: MIT OR Apache-2.0
// StdPlatform's locks on Linux (platform/futex.hpp, Rust std's futex Mutex and
// Condvar): mutual exclusion under contention, try_lock, and condition waits
// that lose no notification. A lost wake-up hangs a test, which its timeout
// turns into a failure.
#include <gtest/gtest.h>

#if defined(__linux__)

#include <mutex>
#include <thread>
#include <vector>

#include "wsstress/pool/platform/futex.hpp"

namespace {
using wsstress::pool::FutexCondVar;
using wsstress::pool::FutexMutex;

TEST(FutexMutex, ExcludesUnderContention) {
  // More threads than CPUs, so holders get preempted and waiters reach the
  // futex wait (the contended state), not only the spin.
  constexpr int kThreads = 4, kRounds = 50000;
  FutexMutex m;
  long counter = 0;  // plain memory: only the lock orders it
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kRounds; ++i) {
        std::lock_guard<FutexMutex> g(m);
        counter = counter + 1;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(counter, long{kThreads} * kRounds);
}

TEST(FutexMutex, TryLockFailsWhileHeldElsewhere) {
  FutexMutex m;
  m.lock();
  bool got = true;
  std::thread([&] { got = m.try_lock(); }).join();
  EXPECT_FALSE(got);
  m.unlock();
  std::thread([&] {
    got = m.try_lock();
    if (got) m.unlock();
  }).join();
  EXPECT_TRUE(got);
}

// Two threads hand a turn back and forth; each notification must reach a
// waiter that read the counter before it, or the other side waits forever.
TEST(FutexCondVar, PingPongLosesNoNotification) {
  constexpr int kTurns = 20000;
  FutexMutex m;
  FutexCondVar cv;
  int turn = 0;
  auto player = [&](int me) {
    for (int i = 0; i < kTurns; ++i) {
      std::unique_lock<FutexMutex> lock(m);
      while (turn % 2 != me) cv.wait(lock);
      ++turn;
      cv.notify_one();
    }
  };
  std::thread a(player, 0), b(player, 1);
  a.join();
  b.join();
  EXPECT_EQ(turn, 2 * kTurns);
}

TEST(FutexCondVar, NotifyAllWakesEveryWaiter) {
  FutexMutex m;
  FutexCondVar cv;
  bool go = false;
  int waiting = 0, woken = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&] {
      std::unique_lock<FutexMutex> lock(m);
      ++waiting;
      cv.notify_all();  // tells the main thread another one waits
      while (!go) cv.wait(lock);
      ++woken;
    });
  }
  {
    std::unique_lock<FutexMutex> lock(m);
    while (waiting < 3) cv.wait(lock);
    go = true;
  }
  cv.notify_all();
  for (auto& t : threads) t.join();
  EXPECT_EQ(woken, 3);
}

}  // namespace

#endif  // __linux__
