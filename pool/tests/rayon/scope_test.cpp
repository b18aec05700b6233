// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// Port of rayon-core 1.10.1 src/scope/test.rs: scope, scope_fifo, their job
// ordering on a one-thread pool, panic propagation, and scoped broadcasts.
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "rayon_support.hpp"

namespace rayon_test {
namespace {

// Runs f; true if it threw (rayon's unwind::halt_unwinding(..).is_err()).
template <class F>
bool halt_unwinding_is_err(F&& f) {
  try {
    f();
  } catch (...) {
    return true;
  }
  return false;
}

// ---------------------------------------------------------------------------
// divide and conquer

void divide_and_conquer(wsstress::Scope& scope, std::atomic<std::size_t>& counter, std::size_t size) {
  if (size > 1) {
    scope.spawn([&counter, size](wsstress::Scope& scope) { divide_and_conquer(scope, counter, size / 2); });
    scope.spawn([&counter, size](wsstress::Scope& scope) { divide_and_conquer(scope, counter, size / 2); });
  } else {
    // count the leaves
    counter.fetch_add(1, std::memory_order_seq_cst);
  }
}

void divide_and_conquer_seq(std::atomic<std::size_t>& counter, std::size_t size) {
  if (size > 1) {
    divide_and_conquer_seq(counter, size / 2);
    divide_and_conquer_seq(counter, size / 2);
  } else {
    // count the leaves
    counter.fetch_add(1, std::memory_order_seq_cst);
  }
}

// ---------------------------------------------------------------------------
// Tree

template <class T>
struct Tree {
  T value;
  std::vector<Tree<T>> children;

  // Pre-order: the value, then each child's values.
  std::vector<T> iter() const {
    std::vector<T> out;
    collect(out);
    return out;
  }

  template <class OP>
  void update(const OP& op) {
    wsstress::scope([&](wsstress::Scope& s) { update_in_scope(op, s); });
  }

  template <class OP>
  void update_in_scope(const OP& op, wsstress::Scope& scope) {
    std::vector<Tree<T>>* kids = &children;
    scope.spawn([kids, &op](wsstress::Scope& scope) {
      for (Tree<T>& child : *kids) {
        Tree<T>* c = &child;
        scope.spawn([c, &op](wsstress::Scope& scope) { c->update_in_scope(op, scope); });
      }
    });

    op(value);
  }

 private:
  void collect(std::vector<T>& out) const {
    out.push_back(value);
    for (const Tree<T>& child : children) child.collect(out);
  }
};

// rand_xorshift 0.3's XorShiftRng, with rand 0.8's gen_range for 32-bit
// integers (UniformInt::sample_single_inclusive), so that random_tree builds
// the same tree as the Rust test. With the seed bytes 0..15 the first draw of
// gen_range(0..4) is 0, so that tree - here and, by hand computation, in Rust -
// is a single node (value 168183); update_tree is that weak upstream too.
class RandXorShiftRng {
 public:
  // XorShiftRng::from_seed: four little-endian u32 words.
  explicit RandXorShiftRng(const std::array<std::uint8_t, 16>& seed) {
    std::uint32_t w[4];
    for (int k = 0; k < 4; ++k) {
      w[k] = static_cast<std::uint32_t>(seed[4 * k]) | static_cast<std::uint32_t>(seed[4 * k + 1]) << 8 |
             static_cast<std::uint32_t>(seed[4 * k + 2]) << 16 | static_cast<std::uint32_t>(seed[4 * k + 3]) << 24;
    }
    x_ = w[0];
    y_ = w[1];
    z_ = w[2];
    w_ = w[3];
  }
  std::uint32_t next_u32() {
    const std::uint32_t x = x_;
    const std::uint32_t t = x ^ (x << 11);
    x_ = y_;
    y_ = z_;
    z_ = w_;
    const std::uint32_t w = w_;
    w_ = w ^ (w >> 19) ^ (t ^ (t >> 8));
    return w_;
  }
  // rng.gen_range(low..high) for u32 / i32 (both sample through u32).
  std::uint32_t gen_range(std::uint32_t low, std::uint32_t high) {
    const std::uint32_t range = high - low;  // (high - 1) - low + 1
    const std::uint32_t zone = (range << std::countl_zero(range)) - 1;
    for (;;) {
      const std::uint64_t m = static_cast<std::uint64_t>(next_u32()) * range;
      if (static_cast<std::uint32_t>(m) <= zone) return low + static_cast<std::uint32_t>(m >> 32);
    }
  }

 private:
  std::uint32_t x_, y_, z_, w_;
};

Tree<std::uint32_t> random_tree1(std::size_t depth, RandXorShiftRng& rng) {
  std::vector<Tree<std::uint32_t>> children;
  if (depth != 0) {
    // somewhere between 0 and 3 children at each level
    const std::uint32_t n = rng.gen_range(0, 4);
    for (std::uint32_t i = 0; i < n; ++i) children.push_back(random_tree1(depth - 1, rng));
  }

  return Tree<std::uint32_t>{rng.gen_range(0, 1'000'000), std::move(children)};
}

Tree<std::uint32_t> random_tree(std::size_t depth) {
  EXPECT_GT(depth, 0u);
  std::array<std::uint8_t, 16> seed{};
  for (std::size_t i = 0; i < seed.size(); ++i) seed[i] = static_cast<std::uint8_t>(i);
  RandXorShiftRng rng(seed);
  return random_tree1(depth, rng);
}

// ---------------------------------------------------------------------------
// linear_stack_growth

void the_final_countdown(wsstress::Scope& s, const int* bottom_of_stack, std::mutex& max_mutex, std::size_t& max,
                         std::size_t n) {
  volatile int top_of_stack = 0;
  const auto p = reinterpret_cast<std::uintptr_t>(bottom_of_stack);
  const auto q = reinterpret_cast<std::uintptr_t>(&top_of_stack);
  const std::size_t diff = p > q ? p - q : q - p;

  {
    std::lock_guard<std::mutex> data(max_mutex);
    max = std::max(diff, max);
  }

  if (n > 0) {
    s.spawn([bottom_of_stack, &max_mutex, &max, n](wsstress::Scope& s) {
      the_final_countdown(s, bottom_of_stack, max_mutex, max, n - 1);
    });
  }
}

// ---------------------------------------------------------------------------
// The scope flavours, so one template serves `scope => spawn` and
// `scope_fifo => spawn_fifo` as the Rust macros do.

struct Lifo {
  template <class OP>
  static auto scope(OP&& op) {
    return wsstress::scope(std::forward<OP>(op));
  }
  template <class S, class BODY>
  static void spawn(S& s, BODY&& body) {
    s.spawn(std::forward<BODY>(body));
  }
};

struct Fifo {
  template <class OP>
  static auto scope(OP&& op) {
    return wsstress::scope_fifo(std::forward<OP>(op));
  }
  template <class S, class BODY>
  static void spawn(S& s, BODY&& body) {
    s.spawn_fifo(std::forward<BODY>(body));
  }
};

// A Mutex<Vec<i32>>.
struct LockedVec {
  std::mutex m;
  std::vector<int> v;
  void push(int x) {
    std::lock_guard<std::mutex> g(m);
    v.push_back(x);
  }
};

template <class S>
std::vector<int> test_order() {
  wsstress::ThreadPool pool(wsstress::ThreadPoolBuilder().num_threads(1));
  return pool.install([] {
    LockedVec vec;
    S::scope([&](auto& scope) {
      LockedVec* vp = &vec;
      for (int i = 0; i < 10; ++i) {
        S::spawn(scope, [vp, i](auto& scope) {
          for (int j = 0; j < 10; ++j) {
            S::spawn(scope, [vp, i, j](auto&) { vp->push(i * 10 + j); });
          }
        });
      }
    });
    return std::move(vec.v);
  });
}

template <class Outer, class Inner>
std::vector<int> test_nested_order() {
  wsstress::ThreadPool pool(wsstress::ThreadPoolBuilder().num_threads(1));
  return pool.install([] {
    LockedVec vec;
    Outer::scope([&](auto& scope) {
      LockedVec* vp = &vec;
      for (int i = 0; i < 10; ++i) {
        Outer::spawn(scope, [vp, i](auto&) {
          Inner::scope([&](auto& scope) {
            for (int j = 0; j < 10; ++j) {
              Inner::spawn(scope, [vp, i, j](auto&) { vp->push(i * 10 + j); });
            }
          });
        });
      }
    });
    return std::move(vec.v);
  });
}

// Spawns pushing a series of numbers, interleaved such that negative values
// are using an inner scope.
template <class Outer, class Inner>
std::vector<int> test_mixed_order() {
  wsstress::ThreadPool pool(wsstress::ThreadPoolBuilder().num_threads(1));
  return pool.install([] {
    LockedVec vec;
    Outer::scope([&](auto& outer_scope) {
      LockedVec* vp = &vec;
      auto spawn_push = [vp](auto spawner, auto& scope, int i) { spawner(scope, [vp, i](auto&) { vp->push(i); }); };
      auto outer_spawn = [](auto& s, auto&& body) { Outer::spawn(s, std::forward<decltype(body)>(body)); };
      auto inner_spawn = [](auto& s, auto&& body) { Inner::spawn(s, std::forward<decltype(body)>(body)); };
      spawn_push(outer_spawn, outer_scope, 0);
      Inner::scope([&](auto& inner_scope) {
        spawn_push(inner_spawn, inner_scope, -1);
        spawn_push(outer_spawn, outer_scope, 1);
        spawn_push(inner_spawn, inner_scope, -2);
        spawn_push(outer_spawn, outer_scope, 2);
        spawn_push(inner_spawn, inner_scope, -3);
      });
      spawn_push(outer_spawn, outer_scope, 3);
    });
    return std::move(vec.v);
  });
}

std::vector<int> range(int lo, int hi) {
  std::vector<int> v;
  for (int i = lo; i < hi; ++i) v.push_back(i);
  return v;
}
std::vector<int> rev(std::vector<int> v) {
  std::reverse(v.begin(), v.end());
  return v;
}

}  // namespace
}  // namespace rayon_test

using namespace rayon_test;
using wsstress::BroadcastContext;
using wsstress::Scope;
using wsstress::ScopeFifo;

TEST(scope, scope_empty) {
  wsstress::scope([](Scope&) {});
}

TEST(scope, scope_result) {
  auto x = wsstress::scope([](Scope&) { return 22; });
  EXPECT_EQ(x, 22);
}

TEST(scope, scope_two) {
  std::atomic<std::size_t> counter{0};
  wsstress::scope([&](Scope& s) {
    s.spawn([&](Scope&) { counter.fetch_add(1, std::memory_order_seq_cst); });
    s.spawn([&](Scope&) { counter.fetch_add(10, std::memory_order_seq_cst); });
  });

  const std::size_t v = counter.load(std::memory_order_seq_cst);
  EXPECT_EQ(v, 11u);
}

TEST(scope, scope_divide_and_conquer) {
  std::atomic<std::size_t> counter_p{0};
  wsstress::scope([&](Scope& s) { s.spawn([&](Scope& s) { divide_and_conquer(s, counter_p, 1024); }); });

  std::atomic<std::size_t> counter_s{0};
  divide_and_conquer_seq(counter_s, 1024);

  const std::size_t p = counter_p.load(std::memory_order_seq_cst);
  const std::size_t s = counter_s.load(std::memory_order_seq_cst);
  EXPECT_EQ(p, s);
}

TEST(scope, update_tree) {
  Tree<std::uint32_t> tree = random_tree(10);
  const std::vector<std::uint32_t> values = tree.iter();
  tree.update([](std::uint32_t& v) { v += 1; });
  const std::vector<std::uint32_t> new_values = tree.iter();
  ASSERT_EQ(values.size(), new_values.size());
  for (std::size_t k = 0; k < values.size(); ++k) {
    EXPECT_EQ(values[k] + 1, new_values[k]);
  }
}

// Check that if you have a chain of scoped tasks where T0 spawns T1 spawns T2
// and so forth down to Tn, the stack space should not grow linearly with N.
// We test this by comparing addresses of locals, permitting an approx 10%
// change with a 100x input change.
TEST(scope, linear_stack_growth) {
  wsstress::ThreadPool pool = wsstress::ThreadPoolBuilder().num_threads(1).build();
  pool.install([] {
    std::mutex max_mutex;
    std::size_t max_diff = 0;
    volatile int bottom_of_stack = 0;
    const int* bottom = const_cast<const int*>(&bottom_of_stack);
    wsstress::scope([&](Scope& s) { the_final_countdown(s, bottom, max_mutex, max_diff, 5); });
    const double diff_when_5 = static_cast<double>(max_diff);

    wsstress::scope([&](Scope& s) { the_final_countdown(s, bottom, max_mutex, max_diff, 500); });
    const double diff_when_500 = static_cast<double>(max_diff);

    const double ratio = diff_when_5 / diff_when_500;
    EXPECT_TRUE(ratio > 0.9 && ratio < 1.1) << "stack usage ratio out of bounds: " << ratio;
  });
}

TEST(scope, panic_propagate_scope) {
  EXPECT_PANIC(wsstress::scope([](Scope&) { throw Panic("Hello, world!"); }), "Hello, world!");
}

TEST(scope, panic_propagate_spawn) {
  EXPECT_PANIC(wsstress::scope([](Scope& s) { s.spawn([](Scope&) { throw Panic("Hello, world!"); }); }),
               "Hello, world!");
}

TEST(scope, panic_propagate_nested_spawn) {
  EXPECT_PANIC(
      wsstress::scope([](Scope& s) {
        s.spawn([](Scope& s) { s.spawn([](Scope& s) { s.spawn([](Scope&) { throw Panic("Hello, world!"); }); }); });
      }),
      "Hello, world!");
}

TEST(scope, panic_propagate_nested_scope_spawn) {
  EXPECT_PANIC(wsstress::scope([](Scope& s) {
                 s.spawn([](Scope&) {
                   wsstress::scope([](Scope& s) { s.spawn([](Scope&) { throw Panic("Hello, world!"); }); });
                 });
               }),
               "Hello, world!");
}

TEST(scope, panic_propagate_still_execute_1) {
  bool x = false;
  const bool err = halt_unwinding_is_err([&] {
    wsstress::scope([&](Scope& s) {
      s.spawn([](Scope&) { throw Panic("Hello, world!"); });  // job A
      s.spawn([&](Scope&) { x = true; });                     // job B, should still execute even though A panics
    });
  });
  if (!err) FAIL() << "failed to propagate panic";
  EXPECT_TRUE(x) << "job b failed to execute";
}

TEST(scope, panic_propagate_still_execute_2) {
  bool x = false;
  const bool err = halt_unwinding_is_err([&] {
    wsstress::scope([&](Scope& s) {
      s.spawn([&](Scope&) { x = true; });                     // job B, should still execute even though A panics
      s.spawn([](Scope&) { throw Panic("Hello, world!"); });  // job A
    });
  });
  if (!err) FAIL() << "failed to propagate panic";
  EXPECT_TRUE(x) << "job b failed to execute";
}

TEST(scope, panic_propagate_still_execute_3) {
  bool x = false;
  const bool err = halt_unwinding_is_err([&] {
    wsstress::scope([&](Scope& s) {
      s.spawn([&](Scope&) { x = true; });  // spawned job should still execute despite later panic
      throw Panic("Hello, world!");
    });
  });
  if (!err) FAIL() << "failed to propagate panic";
  EXPECT_TRUE(x) << "panic after spawn, spawn failed to execute";
}

TEST(scope, panic_propagate_still_execute_4) {
  bool x = false;
  const bool err = halt_unwinding_is_err([&] {
    wsstress::scope([&](Scope& s) {
      s.spawn([](Scope&) { throw Panic("Hello, world!"); });
      x = true;
    });
  });
  if (!err) FAIL() << "failed to propagate panic";
  EXPECT_TRUE(x) << "panic in spawn tainted scope";
}

TEST(scope, lifo_order) {
  // In the absence of stealing, `scope()` runs its `spawn()` jobs in LIFO order.
  const std::vector<int> vec = test_order<Lifo>();
  const std::vector<int> expected = rev(range(0, 100));  // LIFO -> reversed
  EXPECT_EQ(vec, expected);
}

TEST(scope, fifo_order) {
  // In the absence of stealing, `scope_fifo()` runs its `spawn_fifo()` jobs in FIFO order.
  const std::vector<int> vec = test_order<Fifo>();
  const std::vector<int> expected = range(0, 100);  // FIFO -> natural order
  EXPECT_EQ(vec, expected);
}

TEST(scope, nested_lifo_order) {
  // In the absence of stealing, `scope()` runs its `spawn()` jobs in LIFO order.
  const std::vector<int> vec = test_nested_order<Lifo, Lifo>();
  const std::vector<int> expected = rev(range(0, 100));  // LIFO -> reversed
  EXPECT_EQ(vec, expected);
}

TEST(scope, nested_fifo_order) {
  // In the absence of stealing, `scope_fifo()` runs its `spawn_fifo()` jobs in FIFO order.
  const std::vector<int> vec = test_nested_order<Fifo, Fifo>();
  const std::vector<int> expected = range(0, 100);  // FIFO -> natural order
  EXPECT_EQ(vec, expected);
}

TEST(scope, nested_lifo_fifo_order) {
  // LIFO on the outside, FIFO on the inside
  const std::vector<int> vec = test_nested_order<Lifo, Fifo>();
  std::vector<int> expected;
  for (int i : rev(range(0, 10)))
    for (int j : range(0, 10)) expected.push_back(i * 10 + j);
  EXPECT_EQ(vec, expected);
}

TEST(scope, nested_fifo_lifo_order) {
  // FIFO on the outside, LIFO on the inside
  const std::vector<int> vec = test_nested_order<Fifo, Lifo>();
  std::vector<int> expected;
  for (int i : range(0, 10))
    for (int j : rev(range(0, 10))) expected.push_back(i * 10 + j);
  EXPECT_EQ(vec, expected);
}

TEST(scope, mixed_lifo_order) {
  // NB: the end of the inner scope makes us execute some of the outer scope
  // before they've all been spawned, so they're not perfectly LIFO.
  const std::vector<int> vec = test_mixed_order<Lifo, Lifo>();
  const std::vector<int> expected{-3, 2, -2, 1, -1, 3, 0};
  EXPECT_EQ(vec, expected);
}

TEST(scope, mixed_fifo_order) {
  const std::vector<int> vec = test_mixed_order<Fifo, Fifo>();
  const std::vector<int> expected{-1, 0, -2, 1, -3, 2, 3};
  EXPECT_EQ(vec, expected);
}

TEST(scope, mixed_lifo_fifo_order) {
  // NB: the end of the inner scope makes us execute some of the outer scope
  // before they've all been spawned, so they're not perfectly LIFO.
  const std::vector<int> vec = test_mixed_order<Lifo, Fifo>();
  const std::vector<int> expected{-1, 2, -2, 1, -3, 3, 0};
  EXPECT_EQ(vec, expected);
}

TEST(scope, mixed_fifo_lifo_order) {
  const std::vector<int> vec = test_mixed_order<Fifo, Lifo>();
  const std::vector<int> expected{-3, 0, -2, 1, -1, 2, 3};
  EXPECT_EQ(vec, expected);
}

// Rust checks that a `Scope<'static>` may borrow locals in its body while its
// spawns borrow only 'static data (a static counter). C++ has no lifetimes;
// the runtime behaviour - spawns capturing only a static, by value otherwise -
// is what is ported.
TEST(scope, static_scope) {
  static std::atomic<std::size_t> COUNTER{0};

  std::size_t sum = 0;
  for (std::size_t i = 0; i < 100; ++i) sum += i;

  COUNTER.store(0, std::memory_order_relaxed);
  wsstress::scope([](Scope& s) {
    for (std::size_t i = 0; i < 100; ++i) {
      s.spawn([i](Scope&) { COUNTER.fetch_add(i, std::memory_order_relaxed); });
    }
  });

  EXPECT_EQ(COUNTER.load(std::memory_order_relaxed), sum);
}

TEST(scope, static_scope_fifo) {
  static std::atomic<std::size_t> COUNTER{0};

  std::size_t sum = 0;
  for (std::size_t i = 0; i < 100; ++i) sum += i;

  COUNTER.store(0, std::memory_order_relaxed);
  wsstress::scope_fifo([](ScopeFifo& s) {
    for (std::size_t i = 0; i < 100; ++i) {
      s.spawn_fifo([i](ScopeFifo&) { COUNTER.fetch_add(i, std::memory_order_relaxed); });
    }
  });

  EXPECT_EQ(COUNTER.load(std::memory_order_relaxed), sum);
}

TEST(scope, mixed_lifetime_scope) {
  // The body may borrow the slice; the spawns copy out only the counter pointers.
  auto increment = [](const std::vector<std::atomic<std::size_t>*>& counters) {
    wsstress::scope([&counters](Scope& s) {
      for (std::atomic<std::size_t>* c : counters) {
        s.spawn([c](Scope&) { c->fetch_add(1, std::memory_order_relaxed); });
      }
    });
  };

  std::atomic<std::size_t> counter{0};
  increment(std::vector<std::atomic<std::size_t>*>(100, &counter));
  EXPECT_EQ(counter.load(), 100u);
}

TEST(scope, mixed_lifetime_scope_fifo) {
  auto increment = [](const std::vector<std::atomic<std::size_t>*>& counters) {
    wsstress::scope_fifo([&counters](ScopeFifo& s) {
      for (std::atomic<std::size_t>* c : counters) {
        s.spawn_fifo([c](ScopeFifo&) { c->fetch_add(1, std::memory_order_relaxed); });
      }
    });
  };

  std::atomic<std::size_t> counter{0};
  increment(std::vector<std::atomic<std::size_t>*>(100, &counter));
  EXPECT_EQ(counter.load(), 100u);
}

TEST(scope, scope_spawn_broadcast) {
  std::atomic<std::size_t> sum{0};
  const std::size_t n = wsstress::scope([&](Scope& s) {
    s.spawn_broadcast([&](Scope&, BroadcastContext ctx) { sum.fetch_add(ctx.index(), std::memory_order_relaxed); });
    return wsstress::current_num_threads();
  });
  EXPECT_EQ(sum.load(), n * (n - 1) / 2);
}

TEST(scope, scope_fifo_spawn_broadcast) {
  std::atomic<std::size_t> sum{0};
  const std::size_t n = wsstress::scope_fifo([&](ScopeFifo& s) {
    s.spawn_broadcast([&](ScopeFifo&, BroadcastContext ctx) { sum.fetch_add(ctx.index(), std::memory_order_relaxed); });
    return wsstress::current_num_threads();
  });
  EXPECT_EQ(sum.load(), n * (n - 1) / 2);
}

TEST(scope, scope_spawn_broadcast_nested) {
  std::atomic<std::size_t> sum{0};
  const std::size_t n = wsstress::scope([&](Scope& s) {
    s.spawn_broadcast([&](Scope& s, BroadcastContext) {
      s.spawn_broadcast([&](Scope&, BroadcastContext ctx) { sum.fetch_add(ctx.index(), std::memory_order_relaxed); });
    });
    return wsstress::current_num_threads();
  });
  EXPECT_EQ(sum.load(), n * n * (n - 1) / 2);
}

TEST(scope, scope_spawn_broadcast_barrier) {
  Barrier barrier(8);
  wsstress::ThreadPool pool = wsstress::ThreadPoolBuilder().num_threads(7).build();
  pool.in_place_scope([&](Scope& s) {
    s.spawn_broadcast([&](Scope&, BroadcastContext) { barrier.wait(); });
    barrier.wait();
  });
}

TEST(scope, scope_spawn_broadcast_panic_one) {
  std::atomic<std::size_t> count{0};
  wsstress::ThreadPool pool = wsstress::ThreadPoolBuilder().num_threads(7).build();
  const bool result_is_err = halt_unwinding_is_err([&] {
    pool.scope([&](Scope& s) {
      s.spawn_broadcast([&](Scope&, BroadcastContext ctx) {
        count.fetch_add(1, std::memory_order_relaxed);
        if (ctx.index() == 3) {
          throw Panic("Hello, world!");
        }
      });
    });
  });
  EXPECT_EQ(count.load(), 7u);
  EXPECT_TRUE(result_is_err) << "broadcast panic should propagate!";
}

TEST(scope, scope_spawn_broadcast_panic_many) {
  std::atomic<std::size_t> count{0};
  wsstress::ThreadPool pool = wsstress::ThreadPoolBuilder().num_threads(7).build();
  const bool result_is_err = halt_unwinding_is_err([&] {
    pool.scope([&](Scope& s) {
      s.spawn_broadcast([&](Scope&, BroadcastContext ctx) {
        count.fetch_add(1, std::memory_order_relaxed);
        if (ctx.index() % 2 == 0) {
          throw Panic("Hello, world!");
        }
      });
    });
  });
  EXPECT_EQ(count.load(), 7u);
  EXPECT_TRUE(result_is_err) << "broadcast panic should propagate!";
}
