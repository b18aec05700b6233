// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// BasicThreadPool: a user-created pool (thread_pool/mod.rs).
//
// Destroying the handle drops the pool's terminate count; once no spawned job
// holds one either, every worker's terminate latch is set, each worker finishes
// what it holds, wakes if asleep, and exits. Like rayon, the destructor does not
// wait for the workers: they hold their own references to the registry, which
// is freed by whichever of them leaves last.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "wsstress/pool/broadcast.hpp"
#include "wsstress/pool/builder.hpp"
#include "wsstress/pool/join.hpp"
#include "wsstress/pool/registry.hpp"
#include "wsstress/pool/scope.hpp"
#include "wsstress/pool/spawn.hpp"

namespace wsstress::pool {

template <class P, class M>
class BasicThreadPool {
 public:
  using Builder = BasicThreadPoolBuilder<P, M>;

  explicit BasicThreadPool(Builder builder) : registry_(Registry<P, M>::create(builder)) {}
  BasicThreadPool(BasicThreadPool&& other) noexcept = default;
  BasicThreadPool& operator=(BasicThreadPool&& other) noexcept {
    if (this != &other) {
      terminate();
      registry_ = std::move(other.registry_);
    }
    return *this;
  }
  BasicThreadPool(const BasicThreadPool&) = delete;
  BasicThreadPool& operator=(const BasicThreadPool&) = delete;
  ~BasicThreadPool() { terminate(); }

  // Runs op on a worker of this pool and returns its value (or rethrows). From a
  // worker of this pool, op runs right here; from another pool's worker, that
  // worker keeps running its own pool's jobs while it waits (so, as rayon
  // warns, other work can interleave before op returns).
  template <class OP>
  std::invoke_result_t<OP> install(OP&& op) {
    using R = std::invoke_result_t<OP>;
    if constexpr (std::is_void_v<R>) {
      registry_->in_worker([&](WorkerThread<P, M>&, bool) { std::forward<OP>(op)(); });
    } else {
      return registry_->in_worker([&](WorkerThread<P, M>&, bool) { return std::forward<OP>(op)(); });
    }
  }

  template <class A, class B>
  auto join(A&& oper_a, B&& oper_b) {
    return install([&] { return pool::join<P, M>(std::forward<A>(oper_a), std::forward<B>(oper_b)); });
  }

  // scope / scope_fifo inside this pool (op runs on one of its workers).
  template <class OP>
  auto scope(OP&& op) {
    return install([&] { return pool::scope<P, M>(std::forward<OP>(op)); });
  }
  template <class OP>
  auto scope_fifo(OP&& op) {
    return install([&] { return pool::scope_fifo<P, M>(std::forward<OP>(op)); });
  }
  // op runs on the calling thread; the scope's jobs go to this pool.
  template <class OP>
  auto in_place_scope(OP&& op) {
    return do_in_place_scope<P, M>(registry_.get(), std::forward<OP>(op));
  }
  template <class OP>
  auto in_place_scope_fifo(OP&& op) {
    return do_in_place_scope_fifo<P, M>(registry_.get(), std::forward<OP>(op));
  }

  template <class OP>
  auto broadcast(OP&& op) {
    return broadcast_in<P, M>(std::forward<OP>(op), *registry_);
  }

  template <class OP>
  void spawn_broadcast(OP&& op) {
    spawn_broadcast_in<P, M>(std::forward<OP>(op), *registry_);
  }

  template <class F>
  void spawn(F&& func) {
    spawn_in<P, M>(std::forward<F>(func), *registry_);
  }

  template <class F>
  void spawn_fifo(F&& func) {
    spawn_fifo_in<P, M>(std::forward<F>(func), *registry_);
  }

  std::size_t current_num_threads() const noexcept { return registry_->num_threads(); }

  // The calling thread's index if it is a worker of this pool.
  std::optional<std::size_t> current_thread_index() const noexcept {
    if (auto* w = registry_->current_thread()) return w->index();
    return std::nullopt;
  }

  // Whether the calling worker of this pool has jobs in its local deque.
  std::optional<bool> current_thread_has_pending_tasks() const noexcept {
    if (auto* w = registry_->current_thread()) return !w->local_deque_is_empty();
    return std::nullopt;
  }

  // For engines and tests: the registry behind this handle.
  Registry<P, M>& registry() const noexcept { return *registry_; }
  const RegistryRef<P, M>& registry_ref() const noexcept { return registry_; }

 private:
  void terminate() noexcept {
    if (registry_) {
      registry_->terminate();
      registry_.reset();
    }
  }

  RegistryRef<P, M> registry_;
};

template <class P, class M>
BasicThreadPool<P, M> BasicThreadPoolBuilder<P, M>::build() {
  return BasicThreadPool<P, M>(std::move(*this));
}

template <class P, class M>
void BasicThreadPoolBuilder<P, M>::build_global() {
  Registry<P, M>::init_global_registry(*this)->wait_until_primed();
}

namespace detail {
// build_scoped's threads, as crossbeam's thread::scope keeps them: joinable,
// each with a slot for the exception its body threw (a Rust thread's panic is
// its join result), joined in spawn order before anything is rethrown.
template <class P>
class ScopedThreads {
 public:
  ScopedThreads() = default;
  ScopedThreads(const ScopedThreads&) = delete;
  ScopedThreads& operator=(const ScopedThreads&) = delete;
  ~ScopedThreads() { join_all(); }

  template <class F>
  std::error_code spawn(const ThreadOptions& options, F body) {
    // Allocated before the thread starts, so nothing can fail once it runs.
    auto slot = std::make_unique<Slot>();
    slots_.reserve(slots_.size() + 1);
    auto run = [error = &slot->error, body = std::move(body)]() mutable {
      try {
        body();
      } catch (...) {
        *error = std::current_exception();
      }
    };
    if (std::error_code ec = P::spawn_joinable_thread(options, std::move(run), &slot->handle)) return ec;
    slots_.push_back(std::move(slot));
    return {};
  }

  void join_all() noexcept {
    for (auto& slot : slots_) {
      if (!slot->joined) pthread_join(slot->handle, nullptr);
      slot->joined = true;
    }
  }

  // The first thread's exception in spawn order (call after join_all).
  std::exception_ptr first_exception() const noexcept {
    for (const auto& slot : slots_) {
      if (slot->error) return slot->error;
    }
    return nullptr;
  }

 private:
  struct Slot {
    pthread_t handle{};
    std::exception_ptr error;
    bool joined = false;
  };
  std::vector<std::unique_ptr<Slot>> slots_;
};

// What build_scoped's closure ended with: with_pool's value, or the exception
// that escaped it (or the build: a panic, in Rust terms), or the build error.
template <class R>
struct ScopedOutcome {
  std::optional<ValueOrUnit<R>> value;
  std::exception_ptr panic;
  std::exception_ptr build_error;
};

// Builds the pool, calls with_pool, and drops the pool (so its workers leave).
template <class P, class M, class F>
auto build_and_call(BasicThreadPoolBuilder<P, M>&& builder, F& with_pool)
    -> ScopedOutcome<std::invoke_result_t<F&, BasicThreadPool<P, M>&>> {
  ScopedOutcome<std::invoke_result_t<F&, BasicThreadPool<P, M>&>> outcome;
  std::optional<BasicThreadPool<P, M>> pool;
  try {
    pool.emplace(std::move(builder));
  } catch (const ThreadPoolBuildError&) {
    outcome.build_error = std::current_exception();
    return outcome;
  } catch (...) {
    outcome.panic = std::current_exception();
    return outcome;
  }
  try {
    outcome.value.emplace(invoke_to_value(with_pool, *pool));
  } catch (...) {
    outcome.panic = std::current_exception();
  }
  return outcome;
}
}  // namespace detail

// rayon runs this inside crossbeam's thread::scope: every thread is joined,
// then a panic of with_pool (or of the build) is resumed; else the threads'
// panics are (crossbeam gives rayon all of them; we rethrow the first, in
// spawn order); else the build's error or with_pool's value is returned.
template <class P, class M>
template <class W, class F>
auto BasicThreadPoolBuilder<P, M>::build_scoped(W&& wrapper, F&& with_pool)
    -> std::invoke_result_t<F&, BasicThreadPool<P, M>&> {
  using R = std::invoke_result_t<F&, BasicThreadPool<P, M>&>;
  detail::ScopedThreads<P> threads;
  spawn_handler([&](ThreadBuilder<P, M> thread) -> std::error_code {
    ThreadOptions options{thread.name(), thread.stack_size()};
    return threads.spawn(options, [&wrapper, t = std::move(thread)]() mutable { wrapper(std::move(t)); });
  });
  detail::ScopedOutcome<R> outcome = detail::build_and_call(std::move(*this), with_pool);
  // The pool is gone (or was never built): its workers leave their loops.
  threads.join_all();
  if (outcome.panic) std::rethrow_exception(outcome.panic);
  if (std::exception_ptr e = threads.first_exception()) std::rethrow_exception(e);
  if (outcome.build_error) std::rethrow_exception(outcome.build_error);
  if constexpr (!std::is_void_v<R>) return std::move(*outcome.value);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

// rayon's deprecated Configuration: a builder under an older name.
template <class P, class M>
class [[deprecated("use ThreadPoolBuilder")]] BasicConfiguration {
 public:
  using Builder = BasicThreadPoolBuilder<P, M>;
  BasicConfiguration& thread_name(typename Builder::ThreadNameFn f) {
    b_.thread_name(std::move(f));
    return *this;
  }
  BasicConfiguration& num_threads(std::size_t n) {
    b_.num_threads(n);
    return *this;
  }
  BasicConfiguration& panic_handler(typename Builder::PanicHandler h) {
    b_.panic_handler(std::move(h));
    return *this;
  }
  BasicConfiguration& stack_size(std::size_t n) {
    b_.stack_size(n);
    return *this;
  }
  BasicConfiguration& breadth_first() {
    b_.breadth_first();
    return *this;
  }
  BasicConfiguration& start_handler(typename Builder::StartHandler h) {
    b_.start_handler(std::move(h));
    return *this;
  }
  BasicConfiguration& exit_handler(typename Builder::ExitHandler h) {
    b_.exit_handler(std::move(h));
    return *this;
  }
  BasicThreadPool<P, M> build() { return b_.build(); }
  Builder& into_builder() noexcept { return b_; }

 private:
  Builder b_;
};

// rayon's deprecated initialize(): builds the global pool from a Configuration.
template <class P, class M>
[[deprecated("use ThreadPoolBuilder::build_global")]] void initialize(BasicConfiguration<P, M> config) {
  config.into_builder().build_global();
}

#pragma GCC diagnostic pop

// The calling worker's index in its pool, or nullopt off the pool.
template <class P, class M>
std::optional<std::size_t> current_thread_index() noexcept {
  if (auto* w = WorkerThread<P, M>::current()) return w->index();
  return std::nullopt;
}

template <class P, class M>
std::optional<bool> current_thread_has_pending_tasks() noexcept {
  if (auto* w = WorkerThread<P, M>::current()) return !w->local_deque_is_empty();
  return std::nullopt;
}

// Threads in the calling worker's pool, or in the global pool off any pool.
template <class P, class M>
std::size_t current_num_threads() {
  return Registry<P, M>::current_num_threads();
}

}  // namespace wsstress::pool
