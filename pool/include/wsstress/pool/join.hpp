// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// join and join_context (join/mod.rs): run two closures, potentially in parallel.
//
// On a worker, B is pushed on the local deque as a StackJob with a SpinLatch,
// A runs at once, then the worker pops its deque until it finds B (run inline)
// or the deque is empty, meaning B was stolen: it then waits on B's latch,
// running other work. Off a worker, the whole join is injected into the global
// pool (in_worker). Either way both halves have run before join returns. If A
// throws, join still waits for B (it may borrow from this frame) and rethrows
// A's exception; if only B throws, B's exception is rethrown. If both throw, A's
// wins, as in rayon.
#pragma once

#include <exception>
#include <type_traits>
#include <utility>

#include "wsstress/pool/registry.hpp"

namespace wsstress::pool {

namespace detail {
// A join half's result type: called with a FnContext (join_context) or with no
// argument (join; decayed, as the FnContext wrapper lambdas join used to build
// returned it).
template <bool kWithContext, class F>
struct JoinHalfResultOf {
  using type = std::invoke_result_t<F, FnContext>;
};
template <class F>
struct JoinHalfResultOf<false, F> {
  using type = std::remove_cvref_t<std::invoke_result_t<F>>;
};
template <bool kWithContext, class F>
using JoinHalfResult = typename JoinHalfResultOf<kWithContext, F>::type;

template <bool kWithContext, class F>
decltype(auto) call_join_half(F&& f, bool migrated) {
  if constexpr (kWithContext) {
    return std::forward<F>(f)(FnContext(migrated));
  } else {
    (void)migrated;
    return std::forward<F>(f)();
  }
}

// A threw: wait for B, which may borrow from join's frame, then rethrow A's
// exception. Cold, as rayon's join_recover_from_panic: out of join's frame.
template <class P, class M>
[[noreturn, gnu::cold, gnu::noinline]] void join_recover_from_panic(WorkerThread<P, M>& worker_thread,
                                                                    SpinLatch<P, M>& job_b_latch,
                                                                    std::exception_ptr error_a) {
  worker_thread.wait_until(job_b_latch);
  std::rethrow_exception(std::move(error_a));
}

// join and join_context share this body. join calls the user's closures
// directly instead of through FnContext-taking wrappers: one less closure
// object to build and one less pointer to follow per half on the fast path.
template <class P, class M, bool kWithContext, class A, class B>
auto join_impl(A&& oper_a, B&& oper_b)
    -> std::pair<ValueOrUnit<JoinHalfResult<kWithContext, A>>, ValueOrUnit<JoinHalfResult<kWithContext, B>>> {
  using RA = ValueOrUnit<JoinHalfResult<kWithContext, A>>;
  using RB = JoinHalfResult<kWithContext, B>;
  using Result = std::pair<RA, ValueOrUnit<RB>>;

  return in_worker<P, M>([&](WorkerThread<P, M>& worker_thread, bool injected) -> Result {
    auto call_b = [&oper_b](bool migrated) -> RB {
      return call_join_half<kWithContext>(std::forward<B>(oper_b), migrated);
    };
    StackJob<P, SpinLatch<P, M>, decltype(call_b), RB> job_b(std::move(call_b), SpinLatch<P, M>(worker_thread));
    const JobRef job_b_ref = job_b.as_job_ref();
    worker_thread.push(job_b_ref);

    // Run A; hopefully B is stolen meanwhile. If A throws, B may hold
    // references into this frame: it must finish first, then A's exception is
    // rethrown. A's value is returned straight from the try block, so the fast
    // path carries no optional and no live exception_ptr. The wait happens
    // outside the handler: on the fiber simulator, wait_until may switch
    // fibers, and the runtime's stack of caught exceptions is per thread.
    RA result_a = [&]() -> RA {
      std::exception_ptr error_a;
      try {
        return invoke_to_value([&]() -> JoinHalfResult<kWithContext, A> {
          return call_join_half<kWithContext>(std::forward<A>(oper_a), injected);
        });
      } catch (...) {
        error_a = std::current_exception();
      }
      join_recover_from_panic(worker_thread, job_b.latch, std::move(error_a));
    }();

    // Pop our deque down to B. Jobs above it (pushed by A and not yet run) run
    // first; an empty deque means B was stolen.
    while (!job_b.latch.probe()) {
      if (JobRef job = worker_thread.take_local_job()) {
        if (job == job_b_ref) {
          // B was not stolen; run it here. An exception propagates from here.
          auto result_b = job_b.run_inline(injected);
          return Result(std::move(result_a), std::move(result_b));
        }
        worker_thread.execute(job);
      } else {
        worker_thread.wait_until(job_b.latch);
        break;
      }
    }
    return Result(std::move(result_a), job_b.into_result());
  });
}
}  // namespace detail

template <class P, class M, class A, class B>
auto join_context(A&& oper_a, B&& oper_b)
    -> std::pair<ValueOrUnit<std::invoke_result_t<A, FnContext>>, ValueOrUnit<std::invoke_result_t<B, FnContext>>> {
  return detail::join_impl<P, M, true>(std::forward<A>(oper_a), std::forward<B>(oper_b));
}

template <class P, class M, class A, class B>
auto join(A&& oper_a, B&& oper_b)
    -> std::pair<ValueOrUnit<std::invoke_result_t<A>>, ValueOrUnit<std::invoke_result_t<B>>> {
  return detail::join_impl<P, M, false>(std::forward<A>(oper_a), std::forward<B>(oper_b));
}

}  // namespace wsstress::pool
