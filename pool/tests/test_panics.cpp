// SPDX-License-Identifier: MIT OR Apache-2.0
// Where rayon panics in the caller's thread, the pool throws a catchable
// exception with rayon's message instead of aborting; a panic inside a job
// travels as that job's result, as in rayon.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "test_support.hpp"

namespace {
using namespace wsstress::pool;
using namespace wsstress::test;

TEST(Panics, AJobResultReadBeforeTheJobRanThrowsUnreachable) {
  JobResult<P, int> result;
  try {
    (void)result.into_return_value();
    ADD_FAILURE() << "no exception";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "internal error: entered unreachable code");
  }
}

TEST(Panics, BroadcastContextOffAWorkerThrows) {
  using Context = BroadcastContext<P, M>;
  EXPECT_THROW(Context::with([](Context) { return 0; }), std::logic_error);
}

TEST(Panics, AnInjectedJobRunOffAWorkerIsThatJobsPanic) {
  // The closure in_worker_cold injects, run by a thread that is no worker:
  // rayon's assert panics inside the job, and the waiter gets the panic.
  auto op = [](Worker&, bool) { return 1; };
  auto call = detail::injected_call<P, M, decltype(op)&>(op);
  LockLatch<P, M> latch;
  StackJob<P, LatchRef<LockLatch<P, M>>, decltype(call), int> job(std::move(call), LatchRef<LockLatch<P, M>>(latch));
  job.as_job_ref().execute();
  EXPECT_TRUE(latch.probe()) << "the job must still set its latch";
  EXPECT_THROW((void)job.into_result(), std::logic_error);
}

TEST(Panics, SleepWithMoreThreadsThanTheCountersHoldThrows) {
  using SleepT = Sleep<P, M>;
  EXPECT_THROW(SleepT(kThreadsMax + 1), std::logic_error);
}

TEST(Panics, RunOnAMovedFromThreadBuilderThrows) {
  std::vector<std::thread> threads;
  bool threw = false;
  {
    Builder b;
    b.num_threads(1).spawn_handler([&](ThreadBuilder<P, M> t) -> std::error_code {
      ThreadBuilder<P, M> moved = std::move(t);
      try {
        t.run();  // NOLINT(bugprone-use-after-move): the misuse under test
      } catch (const std::logic_error&) {
        threw = true;
      }
      threads.emplace_back([m = std::move(moved)]() mutable { m.run(); });
      return {};
    });
    Pool pool(std::move(b));
    EXPECT_EQ(pool.install([] { return 3; }), 3);
  }
  for (auto& t : threads) t.join();
  EXPECT_TRUE(threw);
}

// rayon aborts when a spawned job panics and the pool has no panic handler,
// after Rust's panic hook printed the panic's message; the port names the
// exception before it aborts, so a user sees what was thrown.
TEST(PanicsDeathTest, ASpawnThatThrowsWithoutAHandlerAbortsNamingTheException) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        Pool pool(Builder().num_threads(1));
        pool.spawn([] { throw std::runtime_error("boom from a spawned job"); });
        std::this_thread::sleep_for(std::chrono::seconds(30));  // the abort comes first
      },
      "a job threw and the pool has no panic handler: boom from a spawned job; aborting");
}

}  // namespace
