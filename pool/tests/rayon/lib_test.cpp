// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// Port of rayon-core 1.10.1 src/test.rs (module `lib`).
//
// `build().unwrap()` is a build() that must not throw; handlers that Rust
// gives `Arc` clones share their state here through shared_ptr, since the
// detached workers may still run them after the test body returns.
#include <atomic>
#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

#include "rayon_support.hpp"

namespace rayon_test {

TEST(lib, worker_thread_index) {
  ThreadPool pool = ThreadPoolBuilder().num_threads(22).build();
  EXPECT_EQ(pool.current_num_threads(), 22u);
  EXPECT_EQ(pool.current_thread_index(), std::nullopt);
  // .unwrap(): value() throws (the test fails) if there is no index.
  std::size_t index = pool.install([&] { return pool.current_thread_index().value(); });
  EXPECT_LT(index, 22u);
}

TEST(lib, start_callback_called) {
  const std::size_t n_threads = 16;
  auto n_called = std::make_shared<std::atomic<std::size_t>>(0);
  // Wait for all the threads in the pool plus the one running tests.
  auto barrier = std::make_shared<Barrier>(n_threads + 1);

  auto b = barrier;
  auto nc = n_called;
  auto start_handler = [b, nc](std::size_t) {
    nc->fetch_add(1, std::memory_order_seq_cst);
    b->wait();
  };

  ThreadPoolBuilder conf;
  conf.num_threads(n_threads).start_handler(start_handler);
  // `let _ = conf.build().unwrap();`: the pool is dropped at once.
  (void)std::move(conf).build();

  // Wait for all the threads to have been scheduled to run.
  barrier->wait();

  // The handler must have been called on every started thread.
  EXPECT_EQ(n_called->load(std::memory_order_seq_cst), n_threads);
}

TEST(lib, exit_callback_called) {
  const std::size_t n_threads = 16;
  auto n_called = std::make_shared<std::atomic<std::size_t>>(0);
  // Wait for all the threads in the pool plus the one running tests.
  auto barrier = std::make_shared<Barrier>(n_threads + 1);

  auto b = barrier;
  auto nc = n_called;
  auto exit_handler = [b, nc](std::size_t) {
    nc->fetch_add(1, std::memory_order_seq_cst);
    b->wait();
  };

  ThreadPoolBuilder conf;
  conf.num_threads(n_threads).exit_handler(exit_handler);
  {
    (void)std::move(conf).build();
    // Drop the pool so it stops the running threads.
  }

  // Wait for all the threads to have been scheduled to run.
  barrier->wait();

  // The handler must have been called on every exiting thread.
  EXPECT_EQ(n_called->load(std::memory_order_seq_cst), n_threads);
}

TEST(lib, handler_panics_handled_correctly) {
  const std::size_t n_threads = 16;
  auto n_called = std::make_shared<std::atomic<std::size_t>>(0);
  // Wait for all the threads in the pool plus the one running tests.
  auto start_barrier = std::make_shared<Barrier>(n_threads + 1);
  auto exit_barrier = std::make_shared<Barrier>(n_threads + 1);

  auto start_handler = [](std::size_t) { throw Panic("ensure panic handler is called when starting"); };
  auto exit_handler = [](std::size_t) { throw Panic("ensure panic handler is called when exiting"); };

  auto sb = start_barrier;
  auto eb = exit_barrier;
  auto nc = n_called;
  auto panic_handler = [sb, eb, nc](std::exception_ptr) {  // n_threads: a constant, not captured
    std::size_t val = nc->fetch_add(1, std::memory_order_seq_cst);
    if (val < n_threads) {
      sb->wait();
    } else {
      eb->wait();
    }
  };

  ThreadPoolBuilder conf;
  conf.num_threads(n_threads).start_handler(start_handler).exit_handler(exit_handler).panic_handler(panic_handler);
  {
    ThreadPool pool = std::move(conf).build();

    // Wait for all the threads to start, panic in the start handler,
    // and been taken care of by the panic handler.
    start_barrier->wait();

    // Drop the pool so it stops the running threads.
  }

  // Wait for all the threads to exit, panic in the exit handler,
  // and been taken care of by the panic handler.
  exit_barrier->wait();

  // The panic handler must have been called twice on every thread.
  EXPECT_EQ(n_called->load(std::memory_order_seq_cst), 2 * n_threads);
}

TEST(lib, check_config_build) {
  ThreadPool pool = ThreadPoolBuilder().num_threads(22).build();
  EXPECT_EQ(pool.current_num_threads(), 22u);
}

// Rust checks that ThreadPoolBuildError is Send + Sync. The C++ analogue is
// what lets an exception object cross threads: it is a std::exception that can
// be copied and moved without throwing (std::exception_ptr, rethrow on another
// thread), and its observers are const and noexcept.
TEST(lib, check_error_send_sync) {
  static_assert(std::is_base_of_v<std::exception, ThreadPoolBuildError>);
  static_assert(std::is_nothrow_copy_constructible_v<ThreadPoolBuildError>);
  static_assert(std::is_nothrow_move_constructible_v<ThreadPoolBuildError>);
  static_assert(std::is_nothrow_destructible_v<ThreadPoolBuildError>);
  static_assert(noexcept(std::declval<const ThreadPoolBuildError&>().what()));
  static_assert(noexcept(std::declval<const ThreadPoolBuildError&>().kind()));
  static_assert(noexcept(std::declval<const ThreadPoolBuildError&>().code()));

  // Send: an error raised on one thread is observed intact on another.
  std::exception_ptr sent;
  std::thread([&] {
    try {
      throw ThreadPoolBuildError::io_error(std::make_error_code(std::errc::resource_unavailable_try_again));
    } catch (...) {
      sent = std::current_exception();
    }
  }).join();
  ASSERT_TRUE(sent);
  try {
    std::rethrow_exception(sent);
  } catch (const ThreadPoolBuildError& e) {
    EXPECT_EQ(e.kind(), ThreadPoolBuildError::Kind::IOError);
    EXPECT_EQ(e.code(), std::make_error_code(std::errc::resource_unavailable_try_again));
  }
}

TEST(lib, configuration) {
  auto start_handler = [](std::size_t) {};
  auto exit_handler = [](std::size_t) {};
  auto panic_handler = [](std::exception_ptr) {};
  auto thread_name = [](std::size_t i) { return "thread_name_" + std::to_string(i); };

  // Ensure we can call all public methods on Configuration
  (void)Configuration()
      .thread_name(thread_name)
      .num_threads(5)
      .panic_handler(panic_handler)
      .stack_size(static_cast<std::size_t>(4e6))
      .breadth_first()
      .start_handler(start_handler)
      .exit_handler(exit_handler)
      .build();
}

TEST(lib, default_pool) { (void)ThreadPoolBuilder{}.build(); }

// Test that custom spawned threads get their `WorkerThread` cleared once
// the pool is done with them, allowing them to be used with rayon again
// later. e.g. WebAssembly want to have their own pool of available threads.
TEST(lib, cleared_current_thread) {
  const std::size_t n_threads = 5;
  std::vector<std::thread> handles;
  std::optional<ThreadPool> pool;
  pool.emplace(ThreadPoolBuilder()
                   .num_threads(n_threads)
                   .spawn_handler([&](ThreadBuilder thread) -> std::error_code {
                     handles.emplace_back([t = std::move(thread)]() mutable {
                       t.run();

                       // Afterward, the current thread shouldn't be set anymore.
                       EXPECT_EQ(current_thread_index(), std::nullopt);
                     });
                     return {};
                   })
                   .build());
  EXPECT_EQ(handles.size(), n_threads);

  pool->install([] { EXPECT_TRUE(current_thread_index().has_value()); });
  pool.reset();  // drop(pool)

  // Wait for all threads to make their assertions and exit
  for (std::thread& handle : handles) handle.join();
}

}  // namespace rayon_test
