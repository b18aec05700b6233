// SPDX-License-Identifier: MIT OR Apache-2.0
// Worker names: the full name stays readable (rayon: thread::current().name()),
// while the OS keeps only 15 bytes (pthread_setname_np).
#include <gtest/gtest.h>

#include <pthread.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "test_support.hpp"

namespace {
using namespace wsstress::pool;
using namespace wsstress::test;

std::string os_thread_name() {
  char buf[64] = {};
  pthread_getname_np(pthread_self(), buf, sizeof buf);
  return buf;
}

std::string long_name(std::size_t i) { return "a-worker-name-longer-than-15-bytes-" + std::to_string(i); }

TEST(ThreadNames, AWorkerKeepsItsFullNameAndTheOsKeeps15Bytes) {
  Builder b;
  b.num_threads(2).thread_name(long_name);
  Pool pool(std::move(b));
  auto names = pool.broadcast([](BroadcastContext<P, M>) {
    return std::make_pair(P::current_thread_name().value_or("<none>"), os_thread_name());
  });
  ASSERT_EQ(names.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(names[i].first, long_name(i));
    EXPECT_EQ(names[i].second, long_name(i).substr(0, 15));
  }
}

TEST(ThreadNames, ProductionApiAndBuildScopedWorkersToo) {
  auto names = wsstress::ThreadPoolBuilder().num_threads(2).thread_name(long_name).build_scoped(
      [](wsstress::ThreadBuilder t) { t.run(); },
      [](wsstress::ThreadPool& pool) {
        return pool.broadcast([](wsstress::BroadcastContext) { return wsstress::current_thread_name(); });
      });
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0], long_name(0));
  EXPECT_EQ(names[1], long_name(1));
}

std::size_t own_stack_size() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return 0;
  void* addr = nullptr;
  std::size_t size = 0;
  pthread_attr_getstack(&attr, &addr, &size);
  pthread_attr_destroy(&attr);
  return size;
}

// Without stack_size a worker gets what Rust's std::thread gives rayon-core's
// (RUST_MIN_STACK, else 2 MiB), not the OS default (8 MiB under the usual ulimit).
TEST(ThreadStacks, AWorkerGetsRustsDefaultStackUnlessTheBuilderSetsOne) {
  const std::size_t rust_default = StdPlatform::rust_min_stack();
  if (std::getenv("RUST_MIN_STACK") == nullptr) {
    EXPECT_EQ(rust_default, std::size_t{2} << 20);
  }
  Pool pool(Builder().num_threads(1));
  const std::size_t got = pool.install([] { return own_stack_size(); });
  EXPECT_GE(got + 64 * 1024, rust_default);
  EXPECT_LE(got, rust_default + 64 * 1024);
  Builder b;
  b.num_threads(1).stack_size(std::size_t{6} << 20);
  Pool big(std::move(b));
  EXPECT_GE(big.install([] { return own_stack_size(); }) + 64 * 1024, std::size_t{6} << 20);
}

TEST(ThreadNames, AnUnnamedThreadHasNoName) {
  std::optional<std::string> seen = "unset";
  std::thread([&] { seen = wsstress::current_thread_name(); }).join();
  EXPECT_EQ(seen, std::nullopt);
  Pool pool(Builder().num_threads(1));
  EXPECT_EQ(pool.install([] { return P::current_thread_name(); }), std::nullopt);
}

TEST(ThreadNames, ACustomSpawnHandlerNamesItsOwnThreads) {
  std::vector<std::thread> threads;
  {
    Builder b;
    b.num_threads(1).thread_name(long_name).spawn_handler([&](ThreadBuilder<P, M> t) -> std::error_code {
      threads.emplace_back([t = std::move(t)]() mutable {
        P::set_current_thread_name(t.name());
        t.run();
      });
      return {};
    });
    Pool pool(std::move(b));
    EXPECT_EQ(pool.install([] { return std::make_pair(*P::current_thread_name(), os_thread_name()); }),
              std::make_pair(long_name(0), long_name(0).substr(0, 15)));
  }
  for (auto& t : threads) t.join();
}

}  // namespace
