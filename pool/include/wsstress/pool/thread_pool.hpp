// BasicThreadPool: a user-created pool (thread_pool/mod.rs).
//
// Destroying the handle drops the pool's terminate count; once no spawned job
// holds one either, every worker's terminate latch is set, each worker finishes
// what it holds, wakes if asleep, and exits. Like rayon, the destructor does not
// wait for the workers: they hold their own references to the registry, which
// is freed by whichever of them leaves last.
#pragma once

#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>

#include "wsstress/pool/broadcast.hpp"
#include "wsstress/pool/builder.hpp"
#include "wsstress/pool/join.hpp"
#include "wsstress/pool/registry.hpp"
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
