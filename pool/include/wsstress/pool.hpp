// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// The production pool: rayon-core's API over StdPlatform with no mutants.
//
//   #include <wsstress/pool.hpp>
//   wsstress::ThreadPool pool(wsstress::ThreadPoolBuilder().num_threads(4));
//   auto [a, b] = pool.join([] { return 1; }, [] { return 2; });
//
// Everything here is an alias or a thin forwarder to the templates in
// wsstress/pool/, instantiated once for production.
#pragma once

#include "wsstress/pool/platform/std.hpp"
#include "wsstress/pool/thread_pool.hpp"

namespace wsstress {

using pool::FnContext;
using pool::max_num_threads;
using pool::ThreadPoolBuildError;
using pool::Unit;

using Platform = pool::StdPlatform;
using Mutants = pool::NoMutants;
using ThreadPool = pool::BasicThreadPool<Platform, Mutants>;
using ThreadPoolBuilder = pool::BasicThreadPoolBuilder<Platform, Mutants>;
using ThreadBuilder = pool::ThreadBuilder<Platform, Mutants>;
using BroadcastContext = pool::BroadcastContext<Platform, Mutants>;
using Scope = pool::Scope<Platform, Mutants>;
using ScopeFifo = pool::ScopeFifo<Platform, Mutants>;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
using Configuration [[deprecated("use ThreadPoolBuilder")]] = pool::BasicConfiguration<Platform, Mutants>;
[[deprecated("use ThreadPoolBuilder::build_global")]] inline void initialize(
    pool::BasicConfiguration<Platform, Mutants> c) {
  pool::initialize<Platform, Mutants>(std::move(c));
}
#pragma GCC diagnostic pop

template <class A, class B>
auto join(A&& oper_a, B&& oper_b) {
  return pool::join<Platform, Mutants>(std::forward<A>(oper_a), std::forward<B>(oper_b));
}
template <class A, class B>
auto join_context(A&& oper_a, B&& oper_b) {
  return pool::join_context<Platform, Mutants>(std::forward<A>(oper_a), std::forward<B>(oper_b));
}
template <class F>
void spawn(F&& func) {
  pool::spawn<Platform, Mutants>(std::forward<F>(func));
}
template <class F>
void spawn_fifo(F&& func) {
  pool::spawn_fifo<Platform, Mutants>(std::forward<F>(func));
}
template <class OP>
auto scope(OP&& op) {
  return pool::scope<Platform, Mutants>(std::forward<OP>(op));
}
template <class OP>
auto scope_fifo(OP&& op) {
  return pool::scope_fifo<Platform, Mutants>(std::forward<OP>(op));
}
template <class OP>
auto in_place_scope(OP&& op) {
  return pool::in_place_scope<Platform, Mutants>(std::forward<OP>(op));
}
template <class OP>
auto in_place_scope_fifo(OP&& op) {
  return pool::in_place_scope_fifo<Platform, Mutants>(std::forward<OP>(op));
}
template <class OP>
auto broadcast(OP&& op) {
  return pool::broadcast<Platform, Mutants>(std::forward<OP>(op));
}
template <class OP>
void spawn_broadcast(OP&& op) {
  pool::spawn_broadcast<Platform, Mutants>(std::forward<OP>(op));
}
inline std::optional<std::size_t> current_thread_index() noexcept {
  return pool::current_thread_index<Platform, Mutants>();
}
inline std::optional<bool> current_thread_has_pending_tasks() noexcept {
  return pool::current_thread_has_pending_tasks<Platform, Mutants>();
}
inline std::size_t current_num_threads() { return pool::current_num_threads<Platform, Mutants>(); }

// std::thread::current().name(): the full name a worker was started with (the
// OS keeps 15 bytes of it), or nullopt for a thread nobody named.
inline const std::optional<std::string>& current_thread_name() noexcept { return Platform::current_thread_name(); }
// Names the calling thread: for threads a custom spawn handler starts itself.
inline void set_current_thread_name(std::optional<std::string> name) {
  Platform::set_current_thread_name(std::move(name));
}

}  // namespace wsstress
