// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// Jobs: what the deques, the injector and the broadcast queues carry (job.rs).
//
// A JobRef is one pointer to a JobHeader, the first base of every job type, which
// holds the function that runs it. rayon-core's JobRef is two words (data pointer
// plus execute fn); one word lets a deque slot be a single lock-free atomic, which
// a Chase-Lev buffer needs because a thief may read a slot the owner is
// overwriting (the thief then fails its CAS and discards what it read).
//
// StackJob lives in the frame of the thread that waits for it (join's B half,
// install's injected closure); HeapJob is owned by the queue until it runs
// (spawn); ArcJob is shared by several JobRefs (spawn_broadcast). A result slot
// holds nothing, a value, or the exception the closure threw: exceptions play
// the role of Rust panics and are rethrown where the result is collected.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "wsstress/pool/platform/src_loc.hpp"
#include "wsstress/pool/refcount.hpp"

namespace wsstress::pool {

// The value of a closure that returns void.
struct Unit {
  friend constexpr bool operator==(Unit, Unit) noexcept { return true; }
};

template <class T>
using ValueOrUnit = std::conditional_t<std::is_void_v<T>, Unit, T>;

// Calls f(args...) and returns its value, or Unit for a void closure.
template <class F, class... A>
ValueOrUnit<std::invoke_result_t<F, A...>> invoke_to_value(F&& f, A&&... args) {
  using R = std::invoke_result_t<F, A...>;
  static_assert(!std::is_reference_v<R>, "pool closures must return by value");
  if constexpr (std::is_void_v<R>) {
    std::forward<F>(f)(std::forward<A>(args)...);
    return Unit{};
  } else {
    return std::forward<F>(f)(std::forward<A>(args)...);
  }
}

// Where rayon aborts (its AbortIfPanic guards, a panic inside a panic) or a
// port-only invariant breaks, we abort too. Where rayon panics in the
// caller's thread we throw instead (README, "Panics and aborts"). The abort
// goes through the platform: a process abort in production, the run's
// failure in the simulator, the model's failure (with its history) in Relacy.
template <class P>
[[noreturn]] void abort_with(const char* why, SrcLoc loc = SrcLoc::here()) noexcept {
  P::abort_pool(why, loc);
}

// The same, naming the exception that caused it: Rust's panic hook prints a
// panic's message before rayon aborts on it, so a user sees what was thrown.
template <class P>
[[noreturn]] void abort_with(const char* why, std::exception_ptr cause, SrcLoc loc = SrcLoc::here()) noexcept {
  std::string text = why;  // the whole what(), however long (an allocation failure here aborts too)
  try {
    std::rethrow_exception(cause);
  } catch (const std::exception& e) {
    text += ": ";
    text += e.what();
  } catch (...) {
    text += " (an exception that is not a std::exception)";
  }
  P::abort_pool(text.c_str(), loc);
}

struct JobHeader {
  using ExecuteFn = void (*)(JobHeader*) noexcept;
  ExecuteFn execute_fn;
};

// Non-owning handle to a job; each JobRef must be executed exactly once.
class JobRef {
 public:
  constexpr JobRef() noexcept = default;
  constexpr explicit JobRef(JobHeader* header) noexcept : header_(header) {}
  void execute() const noexcept { header_->execute_fn(header_); }
  JobHeader* header() const noexcept { return header_; }
  explicit operator bool() const noexcept { return header_ != nullptr; }
  friend bool operator==(JobRef, JobRef) noexcept = default;

 private:
  JobHeader* header_ = nullptr;
};

// Nothing, a value, or the exception the closure threw. Written by the thread
// that runs the job, read by the one that waits for it after the latch: plain
// memory, ordered by the latch's Release set and Acquire probe (a platform
// cell, so that Relacy checks that order).
template <class P, class T>
class JobResult {
 public:
  using Slot = std::variant<std::monostate, T, std::exception_ptr>;

  void set_value(T&& value) { slot_.write().template emplace<1>(std::move(value)); }
  void set_exception(std::exception_ptr e) noexcept { slot_.write().template emplace<2>(std::move(e)); }
  // The value, or the captured exception rethrown.
  T into_return_value() {
    Slot& slot = slot_.read();
    if (auto* e = std::get_if<2>(&slot)) std::rethrow_exception(*e);
    if (auto* v = std::get_if<1>(&slot)) return std::move(*v);
    // rayon: JobResult::None => unreachable!(), a panic in the reading thread.
    throw std::logic_error("internal error: entered unreachable code");
  }

 private:
  typename P::template Cell<Slot> slot_;
};

// A job in the stack frame of the thread waiting for it. `F` is called with
// `true` when it runs through `execute` (it migrated, or was injected) and with
// the caller's value through run_inline. The closure is a platform cell too:
// the owner writes it, and the thread that executes it reads it after the
// queue's publication (a steal's Acquire of the deque slot).
template <class P, class L, class F, class R>
class StackJob : public JobHeader {
 public:
  using Value = ValueOrUnit<R>;

  StackJob(F func, L latch)
      : JobHeader{&StackJob::execute}, latch(std::move(latch)), func_(std::in_place, std::move(func)) {}
  StackJob(const StackJob&) = delete;
  StackJob& operator=(const StackJob&) = delete;

  JobRef as_job_ref() noexcept { return JobRef(this); }

  // Runs the closure on the waiting thread itself; exceptions propagate.
  Value run_inline(bool stolen) {
    std::optional<F>& func = func_.write();  // moved out: a write
    F f = std::move(*func);
    func.reset();
    return invoke_to_value(std::move(f), stolen);
  }

  Value into_result() { return result_.into_return_value(); }

  L latch;

 private:
  static void execute(JobHeader* header) noexcept {
    auto* self = static_cast<StackJob*>(header);
    {
      // The closure is moved out and destroyed before the latch is set: once it
      // is set the owner may return and free this frame.
      std::optional<F>& func = self->func_.write();  // moved out: a write
      F f = std::move(*func);
      func.reset();
      try {
        self->result_.set_value(invoke_to_value(std::move(f), true));
      } catch (...) {
        self->result_.set_exception(std::current_exception());
      }
    }
    self->latch.set();
  }

  typename P::template Cell<std::optional<F>> func_;
  JobResult<P, Value> result_;
};

// A job owned by whatever queue holds it; deletes itself after running. The
// body must not throw (spawn wraps user code in the registry's panic handling).
// Its closure is a platform cell: written by the spawner, read by the thread
// that runs it after the queue's publication.
template <class P, class F>
class HeapJob : public JobHeader {
 public:
  explicit HeapJob(F body) : JobHeader{&HeapJob::execute}, body_(std::move(body)) {}

  static JobRef into_job_ref(std::unique_ptr<HeapJob> job) noexcept { return JobRef(job.release()); }

 private:
  static void execute(JobHeader* header) noexcept {
    std::unique_ptr<HeapJob> self(static_cast<HeapJob*>(header));
    self->body_.read()();
  }

  typename P::template Cell<F> body_;
};

// A job shared by several JobRefs, each holding one reference (Arc in rayon);
// the last one to run frees it. The count is a platform atomic so the simulator
// schedules it like any other shared word; the closure, which every worker
// reads, is a platform cell. The creator holds the first reference (Arc::new
// starts at one) until it has made every JobRef.
template <class P, class M, class F>
class ArcJob : public JobHeader {
 public:
  explicit ArcJob(F body)
      : JobHeader{&ArcJob::execute}, refs_(M::kArcJobNoCreatorRef ? 0 : 1), body_(std::move(body)) {}

  // ArcJob::as_static_job_ref: a new JobRef holding one reference.
  JobRef new_job_ref() noexcept {
    refs_.increment();
    return JobRef(this);
  }
  // Drops one reference (a JobRef's once it ran).
  void release() noexcept {
    if (refs_.decrement()) delete this;
  }
  // Drops the creator's reference, once every JobRef is made.
  void release_creator() noexcept {
    if (!M::kArcJobNoCreatorRef) release();  // the bug: no creator reference to drop
  }

 private:
  static void execute(JobHeader* header) noexcept {
    auto* self = static_cast<ArcJob*>(header);
    self->body_.read()();
    self->release();
  }

  RefCount<P> refs_;
  typename P::template Cell<F> body_;
};

}  // namespace wsstress::pool
