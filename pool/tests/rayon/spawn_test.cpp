// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// Port of rayon-core 1.10.1 src/spawn/test.rs (module `spawn`).
//
// std::sync::mpsc::channel is `mpsc_channel<T>()` (rayon_support.hpp): once
// every Sender is destroyed `rx.recv()` throws and `rx.collect()` ends, which
// test_order! and test_mixed_order! rely on. A Rust panic payload `&str` is a
// `Panic` here: `err.downcast_ref::<&str>()` is "rethrow, catch const Panic&".
// rayon wraps the Sender in a Mutex inside panic handlers because an mpsc
// Sender is not Sync; this Sender is thread-safe, so no Mutex is needed.
//
// custom_panic_handler_*: rayon's handler sends the payload and the test
// thread downcasts it to &str. Here the handler does that downcast itself
// (`panic_message`) and sends its result — the message if the payload is a
// string, nullopt if not — and the test thread asserts on it exactly as rayon
// does. Sending the std::exception_ptr instead is correct C++ but trips a
// ThreadSanitizer false positive: the exception's reference count lives in the
// uninstrumented libstdc++ (__cxa_end_catch, exception_ptr::_M_release), so TSan
// reports the worker freeing the exception after the test thread read what().
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rayon_support.hpp"

namespace rayon_test {
namespace {

// err.downcast_ref::<&str>(): the message if the payload is a string panic.
std::optional<std::string> panic_message(std::exception_ptr err) {
  try {
    std::rethrow_exception(err);
  } catch (const Panic& p) {
    return std::string(p.what());
  } catch (...) {
    return std::nullopt;
  }
}

// ---- the spawn functions as values, for the test_order! macros ---------------

struct Spawn {
  template <class F>
  void operator()(F&& f) const {
    wsstress::spawn(std::forward<F>(f));
  }
};
struct SpawnFifo {
  template <class F>
  void operator()(F&& f) const {
    wsstress::spawn_fifo(std::forward<F>(f));
  }
};

// test_order!($outer_spawn, $inner_spawn)
template <class OuterSpawn, class InnerSpawn>
std::vector<int> test_order() {
  wsstress::ThreadPool pool = wsstress::ThreadPoolBuilder().num_threads(1).build();
  auto [tx, rx] = mpsc_channel<int>();
  pool.install([tx = std::move(tx)] {
    for (int i = 0; i < 10; ++i) {
      Sender<int> tx_i = tx;
      OuterSpawn{}([i, tx = std::move(tx_i)] {
        for (int j = 0; j < 10; ++j) {
          Sender<int> tx_j = tx;
          InnerSpawn{}([i, j, tx = std::move(tx_j)] { tx.send(i * 10 + j); });
        }
      });
    }
  });
  return rx.collect();
}

// spawn_send!($spawn, $tx, $i)
template <class S>
void spawn_send(const Sender<int>& tx0, int i) {
  Sender<int> tx = tx0;
  S{}([tx = std::move(tx), i] { tx.send(i); });
}

// test_mixed_order!($pos_spawn, $neg_spawn)
template <class PosSpawn, class NegSpawn>
std::vector<int> test_mixed_order() {
  wsstress::ThreadPool pool = wsstress::ThreadPoolBuilder().num_threads(1).build();
  auto [tx, rx] = mpsc_channel<int>();
  pool.install([tx = std::move(tx)] {
    spawn_send<PosSpawn>(tx, 0);
    spawn_send<NegSpawn>(tx, -1);
    spawn_send<PosSpawn>(tx, 1);
    spawn_send<NegSpawn>(tx, -2);
    spawn_send<PosSpawn>(tx, 2);
    spawn_send<NegSpawn>(tx, -3);
    spawn_send<PosSpawn>(tx, 3);
  });
  return rx.collect();
}

}  // namespace

TEST(spawn, spawn_then_join_in_worker) {
  auto [tx, rx] = mpsc_channel<int>();
  wsstress::scope(
      [tx = std::move(tx)](wsstress::Scope&) mutable { wsstress::spawn([tx = std::move(tx)] { tx.send(22); }); });
  EXPECT_EQ(22, rx.recv());
}

TEST(spawn, spawn_then_join_outside_worker) {
  auto [tx, rx] = mpsc_channel<int>();
  wsstress::spawn([tx = std::move(tx)] { tx.send(22); });
  EXPECT_EQ(22, rx.recv());
}

TEST(spawn, panic_fwd) {
  auto [tx, rx] = mpsc_channel<int>();

  auto panic_handler = [tx = std::move(tx)](std::exception_ptr err) {
    if (std::optional<std::string> msg = panic_message(err)) {
      if (*msg == "Hello, world!") {
        tx.send(1);
      } else {
        tx.send(2);
      }
    } else {
      tx.send(3);
    }
  };

  wsstress::ThreadPoolBuilder builder;
  builder.panic_handler(std::move(panic_handler));

  builder.build().spawn([] { throw Panic("Hello, world!"); });

  EXPECT_EQ(1, rx.recv());
}

/// Test what happens when the thread-pool is dropped but there are
/// still active asynchronous tasks. We expect the thread-pool to stay
/// alive and executing until those threads are complete.
TEST(spawn, termination_while_things_are_executing) {
  auto [tx0, rx0] = mpsc_channel<int>();
  auto [tx1, rx1] = mpsc_channel<int>();

  // Create a thread-pool and spawn some code in it, but then drop
  // our reference to it.
  {
    wsstress::ThreadPool thread_pool = wsstress::ThreadPoolBuilder().build();
    thread_pool.spawn([rx0 = std::move(rx0), tx1 = std::move(tx1)]() mutable {
      int data = rx0.recv();

      // At this point, we know the "main" reference to the
      // `ThreadPool` has been dropped, but there are still
      // active threads. Launch one more.
      wsstress::spawn([tx1 = std::move(tx1), data] { tx1.send(data); });
    });
  }

  tx0.send(22);
  int v = rx1.recv();
  EXPECT_EQ(v, 22);
}

TEST(spawn, custom_panic_handler_and_spawn) {
  auto [tx, rx] = mpsc_channel<std::optional<std::string>>();

  // Create a parallel closure that will send panics on the
  // channel; since the closure is potentially executed in parallel
  // with itself, we have to wrap `tx` in a mutex (not needed here:
  // this Sender is thread-safe). It sends the downcast payload (see top).
  auto panic_handler = [tx = std::move(tx)](std::exception_ptr e) { tx.send(panic_message(e)); };

  // Execute an async that will panic.
  wsstress::ThreadPoolBuilder builder;
  builder.panic_handler(std::move(panic_handler));
  builder.build().spawn([] { throw Panic("Hello, world!"); });

  // Check that we got back the panic we expected.
  std::optional<std::string> error = rx.recv();
  if (error) {
    EXPECT_EQ(*error, "Hello, world!");
  } else {
    ADD_FAILURE() << "did not receive a string from panic handler";
  }
}

TEST(spawn, custom_panic_handler_and_nested_spawn) {
  auto [tx, rx] = mpsc_channel<std::optional<std::string>>();

  // Create a parallel closure that will send panics on the
  // channel; since the closure is potentially executed in parallel
  // with itself, we have to wrap `tx` in a mutex (not needed here).
  // It sends the downcast payload (see top).
  auto panic_handler = [tx = std::move(tx)](std::exception_ptr e) { tx.send(panic_message(e)); };

  // Execute an async that will (eventually) panic.
  constexpr std::size_t PANICS = 3;
  wsstress::ThreadPoolBuilder builder;
  builder.panic_handler(std::move(panic_handler));
  builder.build().spawn([] {
    // launch 3 nested spawn-asyncs; these should be in the same
    // thread-pool and hence inherit the same panic handler
    for (std::size_t k = 0; k < PANICS; ++k) {
      wsstress::spawn([] { throw Panic("Hello, world!"); });
    }
  });

  // Check that we get back the panics we expected.
  for (std::size_t k = 0; k < PANICS; ++k) {
    std::optional<std::string> error = rx.recv();
    if (error) {
      EXPECT_EQ(*error, "Hello, world!");
    } else {
      ADD_FAILURE() << "did not receive a string from panic handler";
    }
  }
}

TEST(spawn, lifo_order) {
  // In the absence of stealing, `spawn()` jobs on a thread will run in LIFO order.
  std::vector<int> vec = test_order<Spawn, Spawn>();
  std::vector<int> expected;  // LIFO -> reversed
  for (int k = 99; k >= 0; --k) expected.push_back(k);
  EXPECT_EQ(vec, expected);
}

TEST(spawn, fifo_order) {
  // In the absence of stealing, `spawn_fifo()` jobs on a thread will run in FIFO order.
  std::vector<int> vec = test_order<SpawnFifo, SpawnFifo>();
  std::vector<int> expected;  // FIFO -> natural order
  for (int k = 0; k < 100; ++k) expected.push_back(k);
  EXPECT_EQ(vec, expected);
}

TEST(spawn, lifo_fifo_order) {
  // LIFO on the outside, FIFO on the inside
  std::vector<int> vec = test_order<Spawn, SpawnFifo>();
  std::vector<int> expected;
  for (int i = 9; i >= 0; --i) {
    for (int j = 0; j < 10; ++j) expected.push_back(i * 10 + j);
  }
  EXPECT_EQ(vec, expected);
}

TEST(spawn, fifo_lifo_order) {
  // FIFO on the outside, LIFO on the inside
  std::vector<int> vec = test_order<SpawnFifo, Spawn>();
  std::vector<int> expected;
  for (int i = 0; i < 10; ++i) {
    for (int j = 9; j >= 0; --j) expected.push_back(i * 10 + j);
  }
  EXPECT_EQ(vec, expected);
}

TEST(spawn, mixed_lifo_fifo_order) {
  std::vector<int> vec = test_mixed_order<Spawn, SpawnFifo>();
  std::vector<int> expected{3, -1, 2, -2, 1, -3, 0};
  EXPECT_EQ(vec, expected);
}

TEST(spawn, mixed_fifo_lifo_order) {
  std::vector<int> vec = test_mixed_order<SpawnFifo, Spawn>();
  std::vector<int> expected{0, -3, 1, -2, 2, -1, 3};
  EXPECT_EQ(vec, expected);
}

}  // namespace rayon_test
