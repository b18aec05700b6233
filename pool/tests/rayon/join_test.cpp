// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// Port of rayon-core 1.10.1 src/join/test.rs (module `join`).
//
// `unwind::halt_unwinding(f)` is a try/catch around f; `#[should_panic(expected
// = "x")]` is EXPECT_PANIC(expr, "x"). rand_xorshift's XorShiftRng seeded with
// bytes 0..16 is rayon_support's XorShiftRng with a fixed seed: the tests only
// need arbitrary data, and compare against std::sort of the same data.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "rayon_support.hpp"

namespace rayon_test {
namespace {

template <class T>
std::size_t partition(std::span<T> v) {
  const std::size_t pivot = v.size() - 1;
  std::size_t i = 0;
  for (std::size_t j = 0; j < pivot; ++j) {
    if (v[j] <= v[pivot]) {
      std::swap(v[i], v[j]);
      i += 1;
    }
  }
  std::swap(v[i], v[pivot]);
  return i;
}

template <class T>
void quick_sort(std::span<T> v) {
  if (v.size() <= 1) return;
  const std::size_t mid = partition(v);
  std::span<T> lo = v.first(mid);
  std::span<T> hi = v.subspan(mid);
  wsstress::join([lo] { quick_sort(lo); }, [hi] { quick_sort(hi); });
}

XorShiftRng seeded_rng() {
  // Rust: seed bytes 0, 1, 2, ... ; any fixed seed serves.
  return XorShiftRng(0x0706050403020100ull);
}

std::vector<std::uint32_t> random_data(std::size_t n) {
  XorShiftRng rng = seeded_rng();
  std::vector<std::uint32_t> data;
  data.reserve(n);
  for (std::size_t i = 0; i < n; ++i) data.push_back(rng.next_u32());
  return data;
}

}  // namespace

TEST(join, sort) {
  std::vector<std::uint32_t> data = random_data(6 * 1024);
  std::vector<std::uint32_t> sorted_data = data;
  std::sort(sorted_data.begin(), sorted_data.end());
  quick_sort(std::span<std::uint32_t>(data));
  EXPECT_EQ(data, sorted_data);
}

TEST(join, sort_in_pool) {
  std::vector<std::uint32_t> data = random_data(12 * 1024);

  wsstress::ThreadPool pool = wsstress::ThreadPoolBuilder().build();
  std::vector<std::uint32_t> sorted_data = data;
  std::sort(sorted_data.begin(), sorted_data.end());
  pool.install([&] { quick_sort(std::span<std::uint32_t>(data)); });
  EXPECT_EQ(data, sorted_data);
}

TEST(join, panic_propagate_a) {
  EXPECT_PANIC(wsstress::join([] { throw Panic("Hello, world!"); }, [] {}), "Hello, world!");
}

TEST(join, panic_propagate_b) {
  EXPECT_PANIC(wsstress::join([] {}, [] { throw Panic("Hello, world!"); }), "Hello, world!");
}

TEST(join, panic_propagate_both) {
  EXPECT_PANIC(wsstress::join([] { throw Panic("Hello, world!"); }, [] { throw Panic("Goodbye, world!"); }),
               "Hello, world!");
}

TEST(join, panic_b_still_executes) {
  bool x = false;
  try {
    wsstress::join([] { throw Panic("Hello, world!"); }, [&x] { x = true; });
    ADD_FAILURE() << "failed to propagate panic from closure A,";
  } catch (...) {
    EXPECT_TRUE(x) << "closure b failed to execute";
  }
}

TEST(join, join_context_both) {
  // If we're not in a pool, both should be marked stolen as they're injected.
  auto [a_migrated, b_migrated] = wsstress::join_context([](wsstress::FnContext a) { return a.migrated(); },
                                                         [](wsstress::FnContext b) { return b.migrated(); });
  EXPECT_TRUE(a_migrated);
  EXPECT_TRUE(b_migrated);
}

TEST(join, join_context_neither) {
  // If we're already in a 1-thread pool, neither job should be stolen.
  wsstress::ThreadPool pool = wsstress::ThreadPoolBuilder().num_threads(1).build();
  auto [a_migrated, b_migrated] = pool.install([] {
    return wsstress::join_context([](wsstress::FnContext a) { return a.migrated(); },
                                  [](wsstress::FnContext b) { return b.migrated(); });
  });
  EXPECT_FALSE(a_migrated);
  EXPECT_FALSE(b_migrated);
}

TEST(join, join_context_second) {
  // If we're already in a 2-thread pool, the second job should be stolen.
  Barrier barrier(2);
  wsstress::ThreadPool pool = wsstress::ThreadPoolBuilder().num_threads(2).build();
  auto [a_migrated, b_migrated] = pool.install([&] {
    return wsstress::join_context(
        [&](wsstress::FnContext a) {
          barrier.wait();
          return a.migrated();
        },
        [&](wsstress::FnContext b) {
          barrier.wait();
          return b.migrated();
        });
  });
  EXPECT_FALSE(a_migrated);
  EXPECT_TRUE(b_migrated);
}

TEST(join, join_counter_overflow) {
  constexpr std::uint32_t MAX = 500'000;

  std::uint32_t i = 0;
  std::uint32_t j = 0;
  wsstress::ThreadPool pool = wsstress::ThreadPoolBuilder().num_threads(2).build();

  // Hammer on join a bunch of times -- used to hit overflow debug-assertions
  // in JEC on 32-bit targets: https://github.com/rayon-rs/rayon/issues/797
  for (std::uint32_t k = 0; k < MAX; ++k) {
    pool.join([&i] { i += 1; }, [&j] { j += 1; });
  }

  EXPECT_EQ(i, MAX);
  EXPECT_EQ(j, MAX);
}

}  // namespace rayon_test
