// SPDX-License-Identifier: MIT OR Apache-2.0
// build_scoped runs its threads as crossbeam's thread::scope does in rayon:
// every thread is joined, then with_pool's exception is rethrown, else the
// first exception a wrapper threw (in spawn order), else the build's error.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "test_support.hpp"

namespace {
using namespace wsstress::pool;
using namespace wsstress::test;

// Counts wrappers that have finished, however they finished.
struct Finished {
  std::atomic<int> count{0};
  struct Guard {
    std::atomic<int>& c;
    ~Guard() { c.fetch_add(1); }
  };
  Guard guard() { return Guard{count}; }
};

TEST(BuildScoped, AWrapperExceptionIsRethrownAfterEveryThreadJoined) {
  Finished finished;
  Builder b;
  b.num_threads(3);
  try {
    (void)std::move(b).build_scoped(
        [&](ThreadBuilder<P, M> t) {
          auto g = finished.guard();
          const std::size_t index = t.index();
          t.run();
          if (index == 1) throw std::runtime_error("wrapper 1");
        },
        [](Pool& pool) { return pool.install([] { return 5; }); });
    ADD_FAILURE() << "build_scoped returned";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "wrapper 1");
  }
  EXPECT_EQ(finished.count.load(), 3) << "rethrown before every thread was joined";
}

TEST(BuildScoped, AWrapperThatThrowsBeforeRunIsRethrownToo) {
  Finished finished;
  Builder b;
  b.num_threads(2);
  EXPECT_THROW(std::move(b).build_scoped(
                   [&](ThreadBuilder<P, M> t) {
                     auto g = finished.guard();
                     if (t.index() == 0) throw std::out_of_range("no run");
                     t.run();
                   },
                   [](Pool&) {}),
               std::out_of_range);
  EXPECT_EQ(finished.count.load(), 2);
}

TEST(BuildScoped, TheFirstWrapperInSpawnOrderWinsNotTheFirstInTime) {
  Builder b;
  b.num_threads(3);
  try {
    std::move(b).build_scoped(
        [](ThreadBuilder<P, M> t) {
          const std::size_t index = t.index();
          t.run();
          if (index == 1) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            throw std::runtime_error("wrapper 1");
          }
          if (index == 2) throw std::runtime_error("wrapper 2");
        },
        [](Pool&) {});
    ADD_FAILURE() << "build_scoped returned";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "wrapper 1");
  }
}

TEST(BuildScoped, WithPoolsExceptionBeatsTheWrappers) {
  Finished finished;
  Builder b;
  b.num_threads(2);
  EXPECT_THROW(std::move(b).build_scoped(
                   [&](ThreadBuilder<P, M> t) {
                     auto g = finished.guard();
                     t.run();
                     throw std::runtime_error("wrapper");
                   },
                   [](Pool&) { throw std::invalid_argument("with_pool"); }),
               std::invalid_argument);
  EXPECT_EQ(finished.count.load(), 2);
}

TEST(BuildScoped, ABuildErrorIsThrownAndWithPoolNeverRuns) {
  bool called = false;
  Builder b;
  b.num_threads(2).stack_size(std::size_t{1} << 52);  // no mapping for that
  try {
    std::move(b).build_scoped([](ThreadBuilder<P, M> t) { t.run(); }, [&](Pool&) { called = true; });
    ADD_FAILURE() << "build_scoped returned";
  } catch (const ThreadPoolBuildError& e) {
    EXPECT_EQ(e.kind(), ThreadPoolBuildError::Kind::IOError);
  }
  EXPECT_FALSE(called);
}

TEST(BuildScoped, ReturnsWithPoolsValueWhenNothingThrows) {
  Builder b;
  b.num_threads(2);
  const int v = std::move(b).build_scoped([](ThreadBuilder<P, M> t) { t.run(); },
                                          [](Pool& pool) { return pool.install([] { return 41; }) + 1; });
  EXPECT_EQ(v, 42);
}

}  // namespace
