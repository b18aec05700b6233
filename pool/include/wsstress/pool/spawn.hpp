// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// spawn and spawn_fifo (spawn/mod.rs): fire-and-forget jobs.
//
// A spawned job is a HeapJob that holds one terminate count of its registry, so
// the pool's workers keep running until it has run even if the ThreadPool
// handle is gone. An exception escaping the job goes to the pool's panic
// handler; with none, the process aborts, as rayon-core does.
#pragma once

#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include "wsstress/pool/registry.hpp"

namespace wsstress::pool {

namespace detail {
template <class P, class M, class F>
JobRef spawn_job(F&& func, Registry<P, M>& registry) {
  // Ensure that registry cannot terminate until this job has executed: taken
  // first, as in rayon, and given back by the terminate() in the body.
  if (!M::kSpawnNoTerminateCount) registry.increment_terminate_count();
  // Rust aborts if building the job fails; C++ throws (a copy of func, or the
  // allocation), and then the count goes back so the pool can still terminate.
  struct GiveBack {
    Registry<P, M>* registry;
    ~GiveBack() {
      if (registry != nullptr) registry->terminate();
    }
  } give_back{M::kSpawnNoTerminateCount ? nullptr : &registry};

  auto body = [registry = RegistryRef<P, M>(&registry),
               func = std::optional<std::decay_t<F>>(std::forward<F>(func))]() mutable noexcept {
    auto call = [&] {
      // Rust moves the closure into the call: its captures die before
      // terminate(), which may let the workers exit.
      std::decay_t<F> f = std::move(*func);
      func.reset();
      f();
    };
    if (M::kSpawnNoCatchUnwind) {
      call();  // mutant: an exception meets this noexcept frame: std::terminate
    } else {
      registry->catch_unwind(call);
    }
    if (!M::kSpawnNoTerminateCount) registry->terminate();  // (*) permit the registry to terminate
  };
  auto job = std::make_unique<HeapJob<P, decltype(body)>>(std::move(body));
  give_back.registry = nullptr;
  return HeapJob<P, decltype(body)>::into_job_ref(std::move(job));
}
}  // namespace detail

template <class P, class M, class F>
void spawn_in(F&& func, Registry<P, M>& registry) {
  registry.inject_or_push(detail::spawn_job<P, M>(std::forward<F>(func), registry));
}

// On a worker of `registry`, through the worker's FIFO so its spawns run in
// order; from outside, through the injector (FIFO already).
template <class P, class M, class F>
void spawn_fifo_in(F&& func, Registry<P, M>& registry) {
  JobRef job = detail::spawn_job<P, M>(std::forward<F>(func), registry);
  if (WorkerThread<P, M>* worker = registry.current_thread()) {
    worker->push_fifo(job);
  } else {
    registry.inject(job);
  }
}

// Into the current worker's pool, or the global pool from outside.
template <class P, class M, class F>
void spawn(F&& func) {
  spawn_in<P, M>(std::forward<F>(func), *Registry<P, M>::current());
}

template <class P, class M, class F>
void spawn_fifo(F&& func) {
  spawn_fifo_in<P, M>(std::forward<F>(func), *Registry<P, M>::current());
}

}  // namespace wsstress::pool
