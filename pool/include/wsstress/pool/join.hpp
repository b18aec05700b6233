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
#include <optional>
#include <type_traits>
#include <utility>

#include "wsstress/pool/registry.hpp"

namespace wsstress::pool {

template <class P, class M, class A, class B>
auto join_context(A&& oper_a, B&& oper_b)
    -> std::pair<ValueOrUnit<std::invoke_result_t<A, FnContext>>, ValueOrUnit<std::invoke_result_t<B, FnContext>>> {
  using RA = ValueOrUnit<std::invoke_result_t<A, FnContext>>;
  using RB = std::invoke_result_t<B, FnContext>;
  using Result = std::pair<RA, ValueOrUnit<RB>>;

  return in_worker<P, M>([&](WorkerThread<P, M>& worker_thread, bool injected) -> Result {
    auto call_b = [&oper_b](bool migrated) -> RB { return std::forward<B>(oper_b)(FnContext(migrated)); };
    StackJob<SpinLatch<P, M>, decltype(call_b), RB> job_b(std::move(call_b), SpinLatch<P, M>(worker_thread));
    const JobRef job_b_ref = job_b.as_job_ref();
    worker_thread.push(job_b_ref);

    // Run A; hopefully B is stolen meanwhile.
    std::optional<RA> result_a;
    std::exception_ptr error_a;
    try {
      result_a.emplace(invoke_to_value(std::forward<A>(oper_a), FnContext(injected)));
    } catch (...) {
      error_a = std::current_exception();
    }
    if (error_a) {
      // B may hold references into this frame: it must finish first.
      worker_thread.wait_until(job_b.latch);
      std::rethrow_exception(error_a);
    }

    // Pop our deque down to B. Jobs above it (pushed by A and not yet run) run
    // first; an empty deque means B was stolen.
    while (!job_b.latch.probe()) {
      if (JobRef job = worker_thread.take_local_job()) {
        if (job == job_b_ref) {
          // B was not stolen; run it here. An exception propagates from here.
          auto result_b = job_b.run_inline(injected);
          return Result(std::move(*result_a), std::move(result_b));
        }
        worker_thread.execute(job);
      } else {
        worker_thread.wait_until(job_b.latch);
        break;
      }
    }
    return Result(std::move(*result_a), job_b.into_result());
  });
}

template <class P, class M, class A, class B>
auto join(A&& oper_a, B&& oper_b)
    -> std::pair<ValueOrUnit<std::invoke_result_t<A>>, ValueOrUnit<std::invoke_result_t<B>>> {
  return join_context<P, M>([&](FnContext) { return std::forward<A>(oper_a)(); },
                            [&](FnContext) { return std::forward<B>(oper_b)(); });
}

}  // namespace wsstress::pool
