// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// scope, scope_fifo, in_place_scope, in_place_scope_fifo (scope/mod.rs).
//
// A scope counts its outstanding jobs in a ScopeLatch that starts at one (the
// scope's own body). Each spawn increments it before the job is queued; each
// job, and the body, sets (decrements) it when done, having first recorded the
// first exception it saw. `complete` runs the body, waits for the count to reach
// zero - on a worker by running other jobs, elsewhere blocked on a lock latch -
// and then rethrows the first exception, so every spawned job has finished
// before anything leaves the scope.
//
// Lifetimes: a spawned job may borrow the scope's frame, so a job's closure is
// destroyed before the job decrements the latch; after the decrement nothing of
// the scope is touched.
#pragma once

#include <atomic>
#include <exception>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "wsstress/pool/broadcast.hpp"
#include "wsstress/pool/registry.hpp"

namespace wsstress::pool {

template <class P, class M>
class Scope;
template <class P, class M>
class ScopeFifo;

namespace detail {
// A scope job's body: moves the user's closure out, runs it with the scope,
// and destroys it before the job counts itself done.
template <class S, class BODY>
auto scope_job_body(S* scope, BODY&& body) {
  return [scope, body = std::optional<std::decay_t<BODY>>(std::forward<BODY>(body))]() mutable noexcept {
    scope->base().execute_job([&] {
      std::decay_t<BODY> f = std::move(*body);
      body.reset();
      f(*scope);
    });
  };
}

template <class S, class BODY>
auto scope_broadcast_body(S* scope, BODY&& body) {
  return [scope, body = std::decay_t<BODY>(std::forward<BODY>(body))]() noexcept {
    scope->base().execute_job([&] {
      BroadcastContext<typename S::Platform, typename S::Mutants>::with([&](auto ctx) { body(*scope, ctx); });
    });
  };
}
}  // namespace detail

template <class P, class M>
class ScopeBase {
  using Worker = WorkerThread<P, M>;

 public:
  // `registry` is where jobs go: given (ThreadPool::in_place_scope), else the
  // owner's pool, else the global pool.
  ScopeBase(Worker* owner, Registry<P, M>* registry)
      : registry_(registry != nullptr ? registry
                  : owner != nullptr  ? &owner->registry()
                                      : Registry<P, M>::global_registry()),
        panic_(nullptr), job_completed_latch_(1, owner) {}
  ScopeBase(const ScopeBase&) = delete;
  ScopeBase& operator=(const ScopeBase&) = delete;
  ~ScopeBase() { delete panic_.load(std::memory_order_relaxed); }

  Registry<P, M>& registry() const noexcept { return *registry_; }

  void increment() noexcept { job_completed_latch_.increment(); }

  // A counted job that runs body(*scope) (rayon's HeapJob + heap_job_ref).
  template <class S, class BODY>
  JobRef spawn_job_ref(S* scope, BODY&& body) {
    auto run = detail::scope_job_body(scope, std::forward<BODY>(body));
    auto job = std::make_unique<HeapJob<P, decltype(run)>>(std::move(run));
    increment();  // only once nothing can throw
    return HeapJob<P, decltype(run)>::into_job_ref(std::move(job));
  }

  // Runs body(*scope, ctx) once on every worker of the scope's pool.
  template <class S, class BODY>
  void spawn_broadcast(S* scope, BODY&& body) {
    inject_broadcast(detail::scope_broadcast_body(scope, std::forward<BODY>(body)));
  }

  template <class F>
  void inject_broadcast(F&& body) {
    auto* job = new ArcJob<P, M, std::decay_t<F>>(std::forward<F>(body));
    registry_->inject_broadcast([&](std::size_t) noexcept {
      increment();
      return job->new_job_ref();
    });
    job->release_creator();
  }

  // Runs the scope's body, waits for every job, rethrows the first exception.
  template <class F>
  ValueOrUnit<std::invoke_result_t<F>> complete(Worker* owner, F&& func) {
    auto result = execute_job_closure(std::forward<F>(func));
    job_completed_latch_.wait(owner);
    maybe_propagate_panic();
    return std::move(*result);  // engaged: only an exception leaves it empty, rethrown above
  }

  template <class F>
  void execute_job(F&& func) noexcept {
    (void)execute_job_closure(std::forward<F>(func));
  }

 private:
  template <class F>
  std::optional<ValueOrUnit<std::invoke_result_t<F>>> execute_job_closure(F&& func) noexcept {
    std::optional<ValueOrUnit<std::invoke_result_t<F>>> result;
    try {
      result.emplace(invoke_to_value(std::forward<F>(func)));
    } catch (...) {
      job_panicked(std::current_exception());
    }
    // The last access to the scope: once the count reaches zero its owner may
    // return and free it.
    job_completed_latch_.set();
    return result;
  }

  // Keeps the first exception; later ones are dropped, as in rayon.
  void job_panicked(std::exception_ptr err) noexcept {
    auto* boxed = new std::exception_ptr(std::move(err));
    std::exception_ptr* expected = nullptr;
    if (!panic_.compare_exchange_strong(expected, boxed, std::memory_order_release, std::memory_order_relaxed)) {
      delete boxed;
    }
  }

  void maybe_propagate_panic() {
    // Every job has finished (the latch synchronised with each), so relaxed will do.
    std::exception_ptr* panic = panic_.exchange(nullptr, std::memory_order_relaxed);
    if (panic != nullptr) {
      std::exception_ptr e = std::move(*panic);
      delete panic;
      std::rethrow_exception(e);
    }
  }

  Registry<P, M>* registry_;
  // Kept alive by the scope's caller for as long as the scope runs.
  RegistryRef<P, M> registry_ref_{registry_};
  typename P::template Atomic<std::exception_ptr*> panic_;
  ScopeLatch<P, M> job_completed_latch_;
};

// A fork-join scope: spawned jobs may borrow from the frame around it.
template <class P, class M>
class Scope {
 public:
  using Platform = P;
  using Mutants = M;

  Scope(WorkerThread<P, M>* owner, Registry<P, M>* registry) : base_(owner, registry) {}
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

  // Spawns body(scope) into the scope's pool. It is pushed on the calling
  // worker's deque if that worker belongs to the pool, injected otherwise (the
  // scope may be in place, or shared with another thread).
  template <class BODY>
  void spawn(BODY&& body) {
    base_.registry().inject_or_push(base_.spawn_job_ref(this, std::forward<BODY>(body)));
  }

  // Runs body(scope, ctx) once on every worker of the scope's pool.
  template <class BODY>
  void spawn_broadcast(BODY&& body) {
    base_.spawn_broadcast(this, std::forward<BODY>(body));
  }

  ScopeBase<P, M>& base() noexcept { return base_; }

 private:
  ScopeBase<P, M> base_;
};

// A scope whose spawns, per worker, run in the order they were made.
template <class P, class M>
class ScopeFifo {
 public:
  using Platform = P;
  using Mutants = M;

  ScopeFifo(WorkerThread<P, M>* owner, Registry<P, M>* registry)
      : base_(owner, registry), fifos_(std::make_unique<JobFifo<P, M>[]>(base_.registry().num_threads())) {}
  ScopeFifo(const ScopeFifo&) = delete;
  ScopeFifo& operator=(const ScopeFifo&) = delete;

  // On a worker of the pool: through this scope's FIFO for that worker; from
  // elsewhere: through the injector.
  template <class BODY>
  void spawn_fifo(BODY&& body) {
    JobRef job = base_.spawn_job_ref(this, std::forward<BODY>(body));
    if (WorkerThread<P, M>* worker = base_.registry().current_thread()) {
      worker->push(fifos_[worker->index()].push(job));
    } else {
      base_.registry().inject(job);
    }
  }

  template <class BODY>
  void spawn_broadcast(BODY&& body) {
    base_.spawn_broadcast(this, std::forward<BODY>(body));
  }

  ScopeBase<P, M>& base() noexcept { return base_; }

 private:
  ScopeBase<P, M> base_;
  std::unique_ptr<JobFifo<P, M>[]> fifos_;
};

namespace detail {
template <class R, class F>
R drop_unit(F&& f) {
  if constexpr (std::is_void_v<R>) {
    std::forward<F>(f)();
  } else {
    return std::forward<F>(f)();
  }
}

template <class S, class OP>
auto run_scope(WorkerThread<typename S::Platform, typename S::Mutants>* owner,
               Registry<typename S::Platform, typename S::Mutants>* registry, OP& op) {
  S scope(owner, registry);
  return scope.base().complete(owner, [&] { return op(scope); });
}
}  // namespace detail

// Creates a scope on a worker (entering the global pool from outside) and
// returns op(scope)'s value once every job spawned in it has finished.
template <class P, class M, class OP>
std::invoke_result_t<OP&, Scope<P, M>&> scope(OP&& op) {
  using R = std::invoke_result_t<OP&, Scope<P, M>&>;
  return detail::drop_unit<R>([&] {
    return in_worker<P, M>(
        [&](WorkerThread<P, M>& owner, bool) { return detail::run_scope<Scope<P, M>>(&owner, nullptr, op); });
  });
}

template <class P, class M, class OP>
std::invoke_result_t<OP&, ScopeFifo<P, M>&> scope_fifo(OP&& op) {
  using R = std::invoke_result_t<OP&, ScopeFifo<P, M>&>;
  return detail::drop_unit<R>([&] {
    return in_worker<P, M>(
        [&](WorkerThread<P, M>& owner, bool) { return detail::run_scope<ScopeFifo<P, M>>(&owner, nullptr, op); });
  });
}

// Like scope, but op runs on the calling thread, whatever it is; jobs go to
// `registry` (or the caller's pool, or the global pool).
template <class P, class M, class OP>
std::invoke_result_t<OP&, Scope<P, M>&> do_in_place_scope(Registry<P, M>* registry, OP&& op) {
  using R = std::invoke_result_t<OP&, Scope<P, M>&>;
  return detail::drop_unit<R>(
      [&] { return detail::run_scope<Scope<P, M>>(WorkerThread<P, M>::current(), registry, op); });
}

template <class P, class M, class OP>
std::invoke_result_t<OP&, ScopeFifo<P, M>&> do_in_place_scope_fifo(Registry<P, M>* registry, OP&& op) {
  using R = std::invoke_result_t<OP&, ScopeFifo<P, M>&>;
  return detail::drop_unit<R>(
      [&] { return detail::run_scope<ScopeFifo<P, M>>(WorkerThread<P, M>::current(), registry, op); });
}

template <class P, class M, class OP>
auto in_place_scope(OP&& op) {
  return do_in_place_scope<P, M>(nullptr, std::forward<OP>(op));
}

template <class P, class M, class OP>
auto in_place_scope_fifo(OP&& op) {
  return do_in_place_scope_fifo<P, M>(nullptr, std::forward<OP>(op));
}

}  // namespace wsstress::pool
