// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// Port of rayon-core 1.10.1 src/broadcast/test.rs (module `broadcast`).
//
// crossbeam_channel::unbounded is `mpsc_channel<T>()` (rayon_support.hpp): Sender clones
// share the channel, and once every Sender is destroyed the channel is
// disconnected, so `rx.into_iter()` ends — which the spawn_broadcast tests rely
// on (the last Sender goes with the broadcast job, or with the pool's panic
// handler when the pool's registry is freed). `()` is wsstress::Unit;
// `unwind::halt_unwinding(f).is_err()` is "f threw"; `Arc<ThreadPool>` is
// std::shared_ptr<wsstress::ThreadPool>; `drop(pool)` is resetting an optional.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "rayon_support.hpp"

namespace rayon_test {
namespace {

std::vector<std::size_t> range(std::size_t n) {
  std::vector<std::size_t> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(i);
  return v;
}

}  // namespace

TEST(broadcast, broadcast_global) {
  std::vector<std::size_t> v = wsstress::broadcast([](wsstress::BroadcastContext ctx) { return ctx.index(); });
  EXPECT_EQ(v, range(wsstress::current_num_threads()));
}

TEST(broadcast, spawn_broadcast_global) {
  auto [tx, rx] = mpsc_channel<std::size_t>();
  wsstress::spawn_broadcast([tx = std::move(tx)](wsstress::BroadcastContext ctx) { tx.send(ctx.index()); });

  std::vector<std::size_t> v = rx.collect();
  std::sort(v.begin(), v.end());
  EXPECT_EQ(v, range(wsstress::current_num_threads()));
}

TEST(broadcast, broadcast_pool) {
  wsstress::ThreadPool pool = wsstress::ThreadPoolBuilder().num_threads(7).build();
  std::vector<std::size_t> v = pool.broadcast([](wsstress::BroadcastContext ctx) { return ctx.index(); });
  EXPECT_EQ(v, range(7));
}

TEST(broadcast, spawn_broadcast_pool) {
  auto [tx, rx] = mpsc_channel<std::size_t>();
  wsstress::ThreadPool pool = wsstress::ThreadPoolBuilder().num_threads(7).build();
  pool.spawn_broadcast([tx = std::move(tx)](wsstress::BroadcastContext ctx) { tx.send(ctx.index()); });

  std::vector<std::size_t> v = rx.collect();
  std::sort(v.begin(), v.end());
  EXPECT_EQ(v, range(7));
}

TEST(broadcast, broadcast_self) {
  wsstress::ThreadPool pool = wsstress::ThreadPoolBuilder().num_threads(7).build();
  std::vector<std::size_t> v =
      pool.install([] { return wsstress::broadcast([](wsstress::BroadcastContext ctx) { return ctx.index(); }); });
  EXPECT_EQ(v, range(7));
}

TEST(broadcast, spawn_broadcast_self) {
  auto [tx, rx] = mpsc_channel<std::size_t>();
  wsstress::ThreadPool pool = wsstress::ThreadPoolBuilder().num_threads(7).build();
  pool.spawn([tx = std::move(tx)]() mutable {
    wsstress::spawn_broadcast([tx = std::move(tx)](wsstress::BroadcastContext ctx) { tx.send(ctx.index()); });
  });

  std::vector<std::size_t> v = rx.collect();
  std::sort(v.begin(), v.end());
  EXPECT_EQ(v, range(7));
}

TEST(broadcast, broadcast_mutual) {
  std::atomic<std::size_t> count{0};
  wsstress::ThreadPool pool1 = wsstress::ThreadPoolBuilder().num_threads(3).build();
  wsstress::ThreadPool pool2 = wsstress::ThreadPoolBuilder().num_threads(7).build();
  pool1.install([&] {
    return pool2.broadcast([&](wsstress::BroadcastContext) {
      return pool1.broadcast([&](wsstress::BroadcastContext) { count.fetch_add(1, std::memory_order_relaxed); });
    });
  });
  EXPECT_EQ(count.load(), 3u * 7u);
}

TEST(broadcast, spawn_broadcast_mutual) {
  auto [tx, rx] = mpsc_channel<wsstress::Unit>();
  auto pool1 = std::make_shared<wsstress::ThreadPool>(wsstress::ThreadPoolBuilder().num_threads(3).build());
  wsstress::ThreadPool pool2 = wsstress::ThreadPoolBuilder().num_threads(7).build();
  pool1->spawn([pool1 = pool1, pool2 = std::move(pool2), tx = std::move(tx)]() mutable {
    pool2.spawn_broadcast([pool1 = std::move(pool1), tx = std::move(tx)](wsstress::BroadcastContext) {
      Sender<wsstress::Unit> tx2 = tx;
      pool1->spawn_broadcast([tx = std::move(tx2)](wsstress::BroadcastContext) { tx.send(wsstress::Unit{}); });
    });
  });
  EXPECT_EQ(rx.collect().size(), 3u * 7u);
}

TEST(broadcast, broadcast_mutual_sleepy) {
  std::atomic<std::size_t> count{0};
  wsstress::ThreadPool pool1 = wsstress::ThreadPoolBuilder().num_threads(3).build();
  wsstress::ThreadPool pool2 = wsstress::ThreadPoolBuilder().num_threads(7).build();
  pool1.install([&] {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    return pool2.broadcast([&](wsstress::BroadcastContext) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
      return pool1.broadcast([&](wsstress::BroadcastContext) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        count.fetch_add(1, std::memory_order_relaxed);
      });
    });
  });
  EXPECT_EQ(count.load(), 3u * 7u);
}

TEST(broadcast, spawn_broadcast_mutual_sleepy) {
  auto [tx, rx] = mpsc_channel<wsstress::Unit>();
  auto pool1 = std::make_shared<wsstress::ThreadPool>(wsstress::ThreadPoolBuilder().num_threads(3).build());
  wsstress::ThreadPool pool2 = wsstress::ThreadPoolBuilder().num_threads(7).build();
  pool1->spawn([pool1 = pool1, pool2 = std::move(pool2), tx = std::move(tx)]() mutable {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    pool2.spawn_broadcast([pool1 = std::move(pool1), tx = std::move(tx)](wsstress::BroadcastContext) {
      Sender<wsstress::Unit> tx2 = tx;
      std::this_thread::sleep_for(std::chrono::seconds(1));
      pool1->spawn_broadcast([tx = std::move(tx2)](wsstress::BroadcastContext) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        tx.send(wsstress::Unit{});
      });
    });
  });
  EXPECT_EQ(rx.collect().size(), 3u * 7u);
}

TEST(broadcast, broadcast_panic_one) {
  std::atomic<std::size_t> count{0};
  wsstress::ThreadPool pool = wsstress::ThreadPoolBuilder().num_threads(7).build();
  bool is_err = false;
  try {
    pool.broadcast([&](wsstress::BroadcastContext ctx) {
      count.fetch_add(1, std::memory_order_relaxed);
      if (ctx.index() == 3) throw Panic("Hello, world!");
    });
  } catch (...) {
    is_err = true;
  }
  EXPECT_EQ(count.load(), 7u);
  EXPECT_TRUE(is_err) << "broadcast panic should propagate!";
}

TEST(broadcast, spawn_broadcast_panic_one) {
  auto [tx, rx] = mpsc_channel<wsstress::Unit>();
  auto [panic_tx, panic_rx] = mpsc_channel<std::exception_ptr>();
  std::optional<wsstress::ThreadPool> pool(
      wsstress::ThreadPoolBuilder()
          .num_threads(7)
          .panic_handler([panic_tx = std::move(panic_tx)](std::exception_ptr e) { panic_tx.send(e); })
          .build());
  pool->spawn_broadcast([tx = std::move(tx)](wsstress::BroadcastContext ctx) {
    tx.send(wsstress::Unit{});
    if (ctx.index() == 3) throw Panic("Hello, world!");
  });
  pool.reset();  // including panic_tx
  EXPECT_EQ(rx.collect().size(), 7u);
  EXPECT_EQ(panic_rx.collect().size(), 1u);
}

TEST(broadcast, broadcast_panic_many) {
  std::atomic<std::size_t> count{0};
  wsstress::ThreadPool pool = wsstress::ThreadPoolBuilder().num_threads(7).build();
  bool is_err = false;
  try {
    pool.broadcast([&](wsstress::BroadcastContext ctx) {
      count.fetch_add(1, std::memory_order_relaxed);
      if (ctx.index() % 2 == 0) throw Panic("Hello, world!");
    });
  } catch (...) {
    is_err = true;
  }
  EXPECT_EQ(count.load(), 7u);
  EXPECT_TRUE(is_err) << "broadcast panic should propagate!";
}

TEST(broadcast, spawn_broadcast_panic_many) {
  auto [tx, rx] = mpsc_channel<wsstress::Unit>();
  auto [panic_tx, panic_rx] = mpsc_channel<std::exception_ptr>();
  std::optional<wsstress::ThreadPool> pool(
      wsstress::ThreadPoolBuilder()
          .num_threads(7)
          .panic_handler([panic_tx = std::move(panic_tx)](std::exception_ptr e) { panic_tx.send(e); })
          .build());
  pool->spawn_broadcast([tx = std::move(tx)](wsstress::BroadcastContext ctx) {
    tx.send(wsstress::Unit{});
    if (ctx.index() % 2 == 0) throw Panic("Hello, world!");
  });
  pool.reset();  // including panic_tx
  EXPECT_EQ(rx.collect().size(), 7u);
  EXPECT_EQ(panic_rx.collect().size(), 4u);
}

TEST(broadcast, broadcast_sleep_race) {
  const auto test_duration = std::chrono::seconds(1);
  wsstress::ThreadPool pool = wsstress::ThreadPoolBuilder().num_threads(7).build();
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < test_duration) {
    pool.broadcast([](wsstress::BroadcastContext ctx) {
      // A slight spread of sleep duration increases the chance that one
      // of the threads will race in the pool's idle sleep afterward.
      std::this_thread::sleep_for(std::chrono::microseconds(ctx.index()));
    });
  }
}

}  // namespace rayon_test
