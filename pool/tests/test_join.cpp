// SPDX-License-Identifier: MIT OR Apache-2.0
// join: values of random join trees on 1..8 threads, the injected/migrated
// flags, and exceptions from either half at any depth.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "test_support.hpp"

namespace {
using namespace wsstress::pool;
using namespace wsstress::test;

auto pjoin = [](auto&& a, auto&& b) { return join<P, M>(a, b); };

std::uint64_t fib(unsigned n) {
  if (n < 2) return n;
  auto [a, b] = pjoin([&] { return fib(n - 1); }, [&] { return fib(n - 2); });
  return a + b;
}

// A random binary tree: leaves hold values; the sum is computed in parallel
// with join and compared with a sequential walk.
struct Node {
  std::uint64_t value = 0;
  std::unique_ptr<Node> left, right;
};

std::unique_ptr<Node> random_tree(TestRng& rng, int depth) {
  auto n = std::make_unique<Node>();
  if (depth == 0 || rng.below(5) == 0) {
    n->value = rng.below(1000);
    return n;
  }
  n->left = random_tree(rng, depth - 1);
  n->right = random_tree(rng, depth - 1);
  return n;
}

std::uint64_t seq_sum(const Node& n) { return n.left ? seq_sum(*n.left) + seq_sum(*n.right) : n.value; }

std::uint64_t par_sum(const Node& n) {
  if (!n.left) return n.value;
  auto [a, b] = pjoin([&] { return par_sum(*n.left); }, [&] { return par_sum(*n.right); });
  return a + b;
}

TEST(Join, FibOnOneToEightThreads) {
  for (std::size_t threads = 1; threads <= 8; ++threads) {
    Pool pool(Builder().num_threads(threads));
    EXPECT_EQ(pool.install([] { return fib(22); }), 17711u) << threads << " threads";
  }
}

TEST(Join, RandomTreesOnOneToEightThreads) {
  TestRng rng(7);
  for (std::size_t threads = 1; threads <= 8; ++threads) {
    Pool pool(Builder().num_threads(threads));
    for (int t = 0; t < 20; ++t) {
      auto tree = random_tree(rng, 14);
      const std::uint64_t expected = seq_sum(*tree);
      EXPECT_EQ(pool.install([&] { return par_sum(*tree); }), expected) << threads << " threads, tree " << t;
    }
  }
}

TEST(Join, VoidHalvesAndMixedTypes) {
  Pool pool(Builder().num_threads(2));
  int x = 0, y = 0;
  pool.install([&] {
    auto [u1, u2] = pjoin([&] { x = 1; }, [&] { y = 2; });
    EXPECT_EQ(u1, Unit{});
    EXPECT_EQ(u2, Unit{});
  });
  EXPECT_EQ(x + y, 3);
  auto [s, d] = pool.join([] { return std::string("a"); }, [] { return 2.5; });
  EXPECT_EQ(s, "a");
  EXPECT_EQ(d, 2.5);
}

TEST(Join, FromOutsideAnyPoolBothHalvesAreMigrated) {
  // Off every pool, join goes through the global pool's cold path: the caller
  // runs neither half, so A sees migrated() == true (rayon's `injected`).
  auto [a_migrated, a_index] = join_context<P, M>(
      [](FnContext c) { return std::make_pair(c.migrated(), current_thread_index<P, M>().has_value()); },
      [](FnContext c) { return c.migrated(); });
  EXPECT_TRUE(a_migrated.first);
  EXPECT_TRUE(a_migrated.second);  // ran on a worker of the global pool
  (void)a_index;
}

TEST(Join, InsideAPoolAIsNotMigrated) {
  Pool pool(Builder().num_threads(2));
  auto [a_migrated, b_migrated] = pool.install([] {
    return join_context<P, M>([](FnContext c) { return c.migrated(); }, [](FnContext c) { return c.migrated(); });
  });
  EXPECT_FALSE(a_migrated);
  (void)b_migrated;  // B is migrated iff it was stolen: either is valid
}

TEST(Join, BothHalvesRunOnOneThreadWhenAlone) {
  Pool pool(Builder().num_threads(1));
  auto [a, b] = pool.install([] {
    return join_context<P, M>([](FnContext c) { return std::make_pair(c.migrated(), *current_thread_index<P, M>()); },
                              [](FnContext c) { return std::make_pair(c.migrated(), *current_thread_index<P, M>()); });
  });
  EXPECT_EQ(a, std::make_pair(false, std::size_t{0}));
  EXPECT_EQ(b, std::make_pair(false, std::size_t{0}));  // popped back and run inline
}

struct Boom : std::runtime_error {
  explicit Boom(const std::string& w) : std::runtime_error(w) {}
};

int count_tree(int depth, std::atomic<int>& ran) {
  if (depth == 0) {
    ran.fetch_add(1);
    return 1;
  }
  auto [a, b] = pjoin([&] { return count_tree(depth - 1, ran); }, [&] { return count_tree(depth - 1, ran); });
  return a + b;
}

// A join tree of the given depth where exactly one leaf (chosen by `path`,
// one bit per level: 0 = A, 1 = B) throws; all other leaves count themselves.
int throwing_tree(int depth, std::uint32_t path, std::atomic<int>& ran) {
  if (depth == 0) {
    ran.fetch_add(1);
    return 1;
  }
  const bool bad_in_b = path & 1;
  auto thrower = [&] {
    if (depth == 1) throw Boom("leaf");
    return throwing_tree(depth - 1, path >> 1, ran);
  };
  auto fine = [&] { return count_tree(depth - 1, ran); };
  auto [a, b] = bad_in_b ? pjoin(fine, thrower) : pjoin(thrower, fine);
  return a + b;
}

TEST(Join, ExceptionFromEitherHalfAtAnyDepthReachesTheCaller) {
  for (std::size_t threads : {1u, 2u, 4u}) {
    Pool pool(Builder().num_threads(threads));
    for (int depth = 1; depth <= 8; ++depth) {
      for (std::uint32_t path : {0u, 1u, 0x55u, 0xaau, 0xffu}) {
        std::atomic<int> ran{0};
        try {
          pool.install([&] { return throwing_tree(depth, path, ran); });
          ADD_FAILURE() << "no exception, depth " << depth << " path " << path;
        } catch (const Boom& e) {
          EXPECT_STREQ(e.what(), "leaf");
        }
        // Every sibling subtree of the throwing path ran to completion before
        // the exception left its join: 2^(depth-1) + ... + 2 + 1 leaves.
        EXPECT_EQ(ran.load(), (1 << depth) - 1) << "threads " << threads << " depth " << depth << " path " << path;
      }
    }
  }
}

TEST(Join, WhenBothThrowTheFirstWins) {
  Pool pool(Builder().num_threads(2));
  for (int i = 0; i < 50; ++i) {
    try {
      pool.join([]() -> int { throw Boom("a"); }, []() -> int { throw Boom("b"); });
      ADD_FAILURE();
    } catch (const Boom& e) {
      EXPECT_STREQ(e.what(), "a");
    }
  }
}

TEST(Join, ExceptionInBWaitsForNothingElseAndPropagates) {
  Pool pool(Builder().num_threads(3));
  for (int i = 0; i < 50; ++i) {
    std::atomic<bool> a_done{false};
    EXPECT_THROW(pool.join(
                     [&] {
                       a_done = true;
                       return 1;
                     },
                     []() -> int { throw Boom("b"); }),
                 Boom);
    EXPECT_TRUE(a_done.load());
  }
}

TEST(Join, ProductionInstantiationComputesTheSame) {
  wsstress::ThreadPool pool(wsstress::ThreadPoolBuilder().num_threads(4));
  std::function<std::uint64_t(unsigned)> f = [&](unsigned n) -> std::uint64_t {
    if (n < 2) return n;
    auto [a, b] = wsstress::join([&] { return f(n - 1); }, [&] { return f(n - 2); });
    return a + b;
  };
  EXPECT_EQ(pool.install([&] { return f(20); }), 6765u);
}

}  // namespace
