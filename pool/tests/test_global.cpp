// SPDX-License-Identifier: MIT OR Apache-2.0
// The lazily built global pool: its size comes from RAYON_NUM_THREADS (set by
// ctest; WSSTRESS_EXPECT_GLOBAL_THREADS says what to expect), join and spawn
// from outside any pool use it, and build_global fails once it exists.
#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

#include "test_support.hpp"

namespace {
using namespace wsstress::pool;
using namespace wsstress::test;

std::size_t expected_threads() {
  const char* e = std::getenv("WSSTRESS_EXPECT_GLOBAL_THREADS");
  return e ? std::strtoul(e, nullptr, 10) : P::default_num_threads();
}

TEST(GlobalPool, SizedFromTheEnvironmentAndUsedFromOutside) {
  EXPECT_EQ((current_num_threads<P, M>()), expected_threads());
  auto [a, b] = join<P, M>([] { return current_thread_index<P, M>(); }, [] { return 2; });
  ASSERT_TRUE(a.has_value());
  EXPECT_LT(*a, expected_threads());
  EXPECT_EQ(b, 2);
  auto r = broadcast<P, M>([](BroadcastContext<P, M> ctx) { return ctx.num_threads(); });
  EXPECT_EQ(r.size(), expected_threads());
  std::atomic<bool> ran{false};
  spawn<P, M>([&] { ran = true; });
  EXPECT_TRUE(eventually([&] { return ran.load(); }));
}

TEST(GlobalPool, BuildGlobalTwiceFails) {
  (void)current_num_threads<P, M>();  // the global pool exists by now
  try {
    Builder().num_threads(1).build_global();
    ADD_FAILURE() << "second build_global succeeded";
  } catch (const ThreadPoolBuildError& e) {
    EXPECT_EQ(e.kind(), ThreadPoolBuildError::Kind::GlobalPoolAlreadyInitialized);
    EXPECT_STREQ(e.what(), "The global thread pool has already been initialized.");
  }
}

TEST(GlobalPool, BuildGlobalFirstTimeSucceedsInAnotherInstantiation) {
  // A separate instantiation has its own global pool, not yet built.
  struct OtherMutants : NoMutants {};
  BasicThreadPoolBuilder<P, OtherMutants>().num_threads(2).build_global();
  EXPECT_EQ((current_num_threads<P, OtherMutants>()), 2u);
  EXPECT_THROW((BasicThreadPoolBuilder<P, OtherMutants>().build_global()), ThreadPoolBuildError);
}

}  // namespace
