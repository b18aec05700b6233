// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// Port of rayon-core 1.10.1 src/thread_pool/test.rs (module `thread_pool`).
//
// `thread_pool.registry` (an Arc<Registry>) is `pool.registry_ref()` (a counted
// RegistryRef); `Result::unwrap()` on build is a build that must not throw;
// `halt_unwinding(|| builder.build()).is_err()` is "build() throws the panic".
#include <atomic>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "rayon_support.hpp"

namespace rayon_test {

namespace {

std::vector<int> range(int lo, int hi) {
  std::vector<int> v;
  for (int i = lo; i < hi; ++i) v.push_back(i);
  return v;
}
std::vector<int> range_rev(int lo, int hi) {
  std::vector<int> v;
  for (int i = hi; i-- > lo;) v.push_back(i);
  return v;
}

void join_a_lot(std::size_t n) {
  if (n > 0) {
    wsstress::join([&] { join_a_lot(n - 1); }, [&] { join_a_lot(n - 1); });
  }
}

// Creates a start/exit handler that increments an atomic counter.
std::pair<std::shared_ptr<std::atomic<std::size_t>>, std::function<void(std::size_t)>> count_handler() {
  auto count = std::make_shared<std::atomic<std::size_t>>(0);
  return {count, [count](std::size_t) { count->fetch_add(1, std::memory_order_seq_cst); }};
}

// Wait until a counter is no longer shared, then return its value
// (Arc::try_unwrap polled for up to 60 s; polled every 10 ms here).
std::size_t wait_for_counter(std::shared_ptr<std::atomic<std::size_t>> counter) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    if (counter.use_count() == 1) {
      // use_count() is a relaxed load; pair it with the releasing decrement of
      // the last other owner.
      std::atomic_thread_fence(std::memory_order_acquire);
      return counter->load(std::memory_order_seq_cst);
    }
    sleep_ms(10);
  }
  // That's too long!
  throw Panic("Counter is still shared!");
}

}  // namespace

TEST(thread_pool, panic_propagate) {
  EXPECT_PANIC(
      {
        ThreadPool thread_pool = ThreadPoolBuilder().build();
        thread_pool.install([] { throw Panic("Hello, world!"); });
      },
      "Hello, world!");
}

TEST(thread_pool, workers_stop) {
  wsstress::pool::RegistryRef<Platform, Mutants> registry;

  {
    // once we exit this block, thread-pool will be dropped
    ThreadPool thread_pool = ThreadPoolBuilder().num_threads(22).build();
    registry = thread_pool.install([&] {
      // do some work on these threads
      join_a_lot(22);

      return thread_pool.registry_ref();
    });
    EXPECT_EQ(registry->num_threads(), 22u);
  }

  // once thread-pool is dropped, registry should terminate, which
  // should lead to worker threads stopping
  registry->wait_until_stopped();
}

TEST(thread_pool, sleeper_stop) {
  wsstress::pool::RegistryRef<Platform, Mutants> registry;

  {
    // once we exit this block, thread-pool will be dropped
    ThreadPool thread_pool = ThreadPoolBuilder().num_threads(22).build();
    registry = thread_pool.registry_ref();

    // Give time for at least some of the thread pool to fall asleep.
    sleep_ms(1000);
  }

  // once thread-pool is dropped, registry should terminate, which
  // should lead to worker threads stopping
  registry->wait_until_stopped();
}

TEST(thread_pool, failed_thread_stack) {
  // Note: we first tried to force failure with a `usize::MAX` stack, but
  // macOS and Windows weren't fazed, or at least didn't fail the way we want.
  // They work with `isize::MAX`, but 32-bit platforms may feasibly allocate a
  // 2GB stack, so it might not fail until the second thread.
  const std::size_t stack_size = static_cast<std::size_t>(PTRDIFF_MAX);

  auto [start_count, start_handler] = count_handler();
  auto [exit_count, exit_handler] = count_handler();
  std::optional<ThreadPoolBuilder> builder;
  builder.emplace();
  builder->num_threads(10)
      .stack_size(stack_size)
      .start_handler(std::move(start_handler))
      .exit_handler(std::move(exit_handler));

  bool is_err = false;
  try {
    // build() consumes the builder, as in Rust.
    ThreadPool pool = std::move(*builder).build();
  } catch (const ThreadPoolBuildError&) {
    is_err = true;
  }
  builder.reset();
  EXPECT_TRUE(is_err) << "thread stack should have failed!";

  // With such a huge stack, 64-bit will probably fail on the first thread;
  // 32-bit might manage the first 2GB, but certainly fail the second.
  const std::size_t starts = wait_for_counter(std::move(start_count));
  EXPECT_LE(starts, 1u);
  EXPECT_EQ(starts, wait_for_counter(std::move(exit_count)));
}

TEST(thread_pool, panic_thread_name) {
  auto [start_count, start_handler] = count_handler();
  auto [exit_count, exit_handler] = count_handler();
  std::optional<ThreadPoolBuilder> builder;
  builder.emplace();
  builder->num_threads(10)
      .start_handler(std::move(start_handler))
      .exit_handler(std::move(exit_handler))
      .thread_name([](std::size_t i) -> std::string {
        if (i >= 5) {
          throw Panic("explicit panic");
        }
        return "panic_thread_name#" + std::to_string(i);
      });

  // halt_unwinding(|| builder.build()).is_err(): the panic itself propagates
  // out of build() (not a ThreadPoolBuildError).
  bool panicked = false;
  try {
    ThreadPool pool = std::move(*builder).build();
  } catch (const Panic&) {
    panicked = true;
  }
  builder.reset();
  EXPECT_TRUE(panicked) << "thread-name panic should propagate!";

  // Assuming they're created in order, threads 0 through 4 should have
  // been started already, and then terminated by the panic.
  EXPECT_EQ(5u, wait_for_counter(std::move(start_count)));
  EXPECT_EQ(5u, wait_for_counter(std::move(exit_count)));
}

TEST(thread_pool, self_install) {
  ThreadPool pool = ThreadPoolBuilder().num_threads(1).build();

  // If the inner `install` blocks, then nothing will actually run it!
  EXPECT_TRUE(pool.install([&] { return pool.install([] { return true; }); }));
}

TEST(thread_pool, mutual_install) {
  ThreadPool pool1 = ThreadPoolBuilder().num_threads(1).build();
  ThreadPool pool2 = ThreadPoolBuilder().num_threads(1).build();

  bool ok = pool1.install([&] {
    // This creates a dependency from `pool1` -> `pool2`
    return pool2.install([&] {
      // This creates a dependency from `pool2` -> `pool1`
      return pool1.install([] {
        // If they blocked on inter-pool installs, there would be no
        // threads left to run this!
        return true;
      });
    });
  });
  EXPECT_TRUE(ok);
}

TEST(thread_pool, mutual_install_sleepy) {
  ThreadPool pool1 = ThreadPoolBuilder().num_threads(1).build();
  ThreadPool pool2 = ThreadPoolBuilder().num_threads(1).build();

  bool ok = pool1.install([&] {
    // This creates a dependency from `pool1` -> `pool2`
    return pool2.install([&] {
      // Give `pool1` time to fall asleep.
      sleep_ms(1000);

      // This creates a dependency from `pool2` -> `pool1`
      return pool1.install([] {
        // Give `pool2` time to fall asleep.
        sleep_ms(1000);

        // If they blocked on inter-pool installs, there would be no
        // threads left to run this!
        return true;
      });
    });
  });
  EXPECT_TRUE(ok);
}

TEST(thread_pool, check_thread_pool_new) {
  // ThreadPool::new(Configuration) (deprecated): a pool built from the
  // configuration's builder.
  ThreadPool pool(std::move(Configuration().num_threads(22).into_builder()));
  EXPECT_EQ(pool.current_num_threads(), 22u);
}

// test_scope_order!(scope => spawn) / (scope_fifo => spawn_fifo)
template <bool Fifo>
std::vector<int> test_scope_order() {
  ThreadPoolBuilder builder;
  builder.num_threads(1);
  ThreadPool pool = std::move(builder).build();
  return pool.install([&] {
    std::vector<int> vec_storage;
    std::mutex vec_mutex;
    auto push = [&](int i) {
      std::lock_guard<std::mutex> g(vec_mutex);
      vec_storage.push_back(i);
    };
    if constexpr (Fifo) {
      pool.scope_fifo([&](ScopeFifo& scope) {
        for (int i = 0; i < 10; ++i) scope.spawn_fifo([&push, i](ScopeFifo&) { push(i); });
      });
    } else {
      pool.scope([&](Scope& scope) {
        for (int i = 0; i < 10; ++i) scope.spawn([&push, i](Scope&) { push(i); });
      });
    }
    return vec_storage;
  });
}

TEST(thread_pool, scope_lifo_order) {
  std::vector<int> vec = test_scope_order<false>();
  std::vector<int> expected = range_rev(0, 10);  // LIFO -> reversed
  EXPECT_EQ(vec, expected);
}

TEST(thread_pool, scope_fifo_order) {
  std::vector<int> vec = test_scope_order<true>();
  std::vector<int> expected = range(0, 10);  // FIFO -> natural order
  EXPECT_EQ(vec, expected);
}

// test_spawn_order!(spawn) / (spawn_fifo)
template <bool Fifo>
std::vector<int> test_spawn_order() {
  ThreadPoolBuilder builder;
  builder.num_threads(1);
  ThreadPool pool_owned = std::move(builder).build();
  ThreadPool* pool = &pool_owned;
  auto [tx0, rx] = mpsc_channel<int>();
  {
    std::optional<Sender<int>> tx(std::move(tx0));
    // `move ||`: the closure owns tx, which is dropped when install is done.
    pool->install([pool, tx = std::move(tx)]() mutable {
      for (int i = 0; i < 10; ++i) {
        Sender<int> tx2 = *tx;
        if constexpr (Fifo) {
          pool->spawn_fifo([tx2, i] { tx2.send(i); });
        } else {
          pool->spawn([tx2, i] { tx2.send(i); });
        }
      }
      tx.reset();
    });
  }
  return rx.collect();
}

TEST(thread_pool, spawn_lifo_order) {
  std::vector<int> vec = test_spawn_order<false>();
  std::vector<int> expected = range_rev(0, 10);  // LIFO -> reversed
  EXPECT_EQ(vec, expected);
}

TEST(thread_pool, spawn_fifo_order) {
  std::vector<int> vec = test_spawn_order<true>();
  std::vector<int> expected = range(0, 10);  // FIFO -> natural order
  EXPECT_EQ(vec, expected);
}

namespace {

// Create matching scopes for every thread pool.
template <class S>
void nest(std::span<ThreadPool> pools, std::vector<S*> scopes, const std::function<void(std::span<S* const>)>& op) {
  if (!pools.empty()) {
    ThreadPool& pool = pools.front();
    std::span<ThreadPool> tail = pools.subspan(1);
    auto body = [&](S& s) {
      std::vector<S*> inner = std::move(scopes);
      inner.push_back(&s);
      nest<S>(tail, std::move(inner), op);
    };
    if constexpr (std::is_same_v<S, ScopeFifo>) {
      pool.scope_fifo(body);
    } else {
      pool.scope(body);
    }
  } else {
    op(scopes);
  }
}

std::vector<ThreadPool> ten_single_thread_pools() {
  std::vector<ThreadPool> pools;
  for (int i = 0; i < 10; ++i) pools.push_back(ThreadPoolBuilder().num_threads(1).build());
  return pools;
}

}  // namespace

TEST(thread_pool, nested_scopes) {
  std::vector<ThreadPool> pools = ten_single_thread_pools();

  std::atomic<std::size_t> counter{0};
  nest<Scope>(pools, {}, [&](std::span<Scope* const> scopes) {
    for (Scope* s : scopes) {
      s->spawn([&counter](Scope&) {
        // Our 'scope lets us borrow the counter in every pool.
        counter.fetch_add(1, std::memory_order_relaxed);
      });
    }
  });
  EXPECT_EQ(counter.load(), pools.size());
}

TEST(thread_pool, nested_fifo_scopes) {
  std::vector<ThreadPool> pools = ten_single_thread_pools();

  std::atomic<std::size_t> counter{0};
  nest<ScopeFifo>(pools, {}, [&](std::span<ScopeFifo* const> scopes) {
    for (ScopeFifo* s : scopes) {
      s->spawn_fifo([&counter](ScopeFifo&) {
        // Our 'scope lets us borrow the counter in every pool.
        counter.fetch_add(1, std::memory_order_relaxed);
      });
    }
  });
  EXPECT_EQ(counter.load(), pools.size());
}

TEST(thread_pool, in_place_scope_no_deadlock) {
  ThreadPool pool = ThreadPoolBuilder().num_threads(1).build();
  auto [tx, rx] = mpsc_channel<Unit>();
  Receiver<Unit>& rx_ref = rx;
  pool.in_place_scope([tx = std::move(tx), &rx_ref](Scope& s) mutable {
    // With regular scopes this closure would never run because this scope op
    // itself would block the only worker thread.
    s.spawn([tx = std::move(tx)](Scope&) { tx.send(Unit{}); });
    rx_ref.recv();
  });
}

TEST(thread_pool, in_place_scope_fifo_no_deadlock) {
  ThreadPool pool = ThreadPoolBuilder().num_threads(1).build();
  auto [tx, rx] = mpsc_channel<Unit>();
  Receiver<Unit>& rx_ref = rx;
  pool.in_place_scope_fifo([tx = std::move(tx), &rx_ref](ScopeFifo& s) mutable {
    // With regular scopes this closure would never run because this scope op
    // itself would block the only worker thread.
    s.spawn_fifo([tx = std::move(tx)](ScopeFifo&) { tx.send(Unit{}); });
    rx_ref.recv();
  });
}

}  // namespace rayon_test
