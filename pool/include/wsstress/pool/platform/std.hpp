// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rust Project Developers; The Rayon developers; The wsstress developers
// StdPlatform: the production instantiation of the platform policy.
//
// Every member is the plain standard facility (std::atomic, pthreads for stack
// sizes and names) or the one rayon-core itself runs on (on Linux, Rust std's
// futex Mutex and Condvar, platform/futex.hpp), with tracing and invariant
// checks switched off at compile time, so `Registry<StdPlatform, NoMutants>`
// compiles to what hand-written code would.
#pragma once

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>

#include "wsstress/pool/parse_usize.hpp"
#include "wsstress/pool/platform/concept.hpp"
#include "wsstress/pool/platform/futex.hpp"
#include "wsstress/pool/platform/num_cpus.hpp"
#include "wsstress/pool/platform/sanitizers.hpp"
#include "wsstress/pool/platform/splitmix64.hpp"

namespace wsstress::pool {

struct StdPlatform {
  template <class T>
  using Atomic = std::atomic<T>;
#if defined(__linux__)
  using Mutex = FutexMutex;
  using CondVar = FutexCondVar;
#else
  using Mutex = std::mutex;
  using CondVar = std::condition_variable;
#endif
  template <class T>
  using Cell = PlainCell<T>;

  static constexpr bool kTraced = false;
  static constexpr bool kCheckInvariants = false;
  static constexpr bool kCheckSyncInvariants = false;  // WSSTRESS_CHECK_SYNC (concept.hpp)

  // A SeqCst fence is the locked no-op rustc emits for rayon-core's fences on
  // x86-64 (`lock orl $0,-64(%rsp)`, below the live stack slots); with g++'s
  // own (`lock orq $0,(%rsp)`, on the slot the next loads read) fib ran 1.6x
  // rayon-core's time on Intel (pool/README.md, item 15). Both are the same
  // full barrier; TSan keeps the standard call it understands.
  static void fence(std::memory_order order) noexcept {
#if defined(__x86_64__) && !defined(WSSTRESS_TSAN)
    if (order == std::memory_order_seq_cst) {
      asm volatile("lock orl $0, -64(%%rsp)" ::: "memory", "cc");
      return;
    }
#endif
    std::atomic_thread_fence(order);
  }
  static void yield_now() noexcept { std::this_thread::yield(); }

  template <class Tag, class T>
  static T& thread_local_slot() noexcept {
    static thread_local T value{};
    return value;
  }

  // Seeds each worker's victim-choosing generator; any non-zero value will do,
  // so a global counter run through splitmix64 is enough (rayon hashes one too).
  static std::uint64_t next_rng_seed() noexcept {
    static std::atomic<std::uint64_t> counter{0};
    const std::uint64_t z = SplitMix64(counter.fetch_add(1, std::memory_order_relaxed)).next();
    return z == 0 ? 1 : z;
  }

  // num_cpus::get(), as rayon-core 1.10.1's default: the affinity mask capped
  // by the cgroup CPU quota. noexcept: only an allocation failure could throw,
  // and that aborts a Rust process too.
  static std::size_t default_num_threads() noexcept { return num_cpus::get(); }

  // The calling thread's full name, as std::thread::Builder::name gave it to
  // rayon's workers (thread::current().name()): set by the threads this
  // platform starts and by set_current_thread_name; nullopt otherwise. The OS
  // keeps only 15 bytes of it (pthread_getname_np).
  static const std::optional<std::string>& current_thread_name() noexcept { return name_slot(); }

  // Names the calling thread, for a custom spawn handler's own threads (what
  // rayon's examples do with std::thread::Builder::name(thread.name())).
  static void set_current_thread_name(std::optional<std::string> name) {
    // Linux keeps 15 bytes of an OS thread name; the full one stays here.
    if (name) pthread_setname_np(pthread_self(), name->substr(0, 15).c_str());
    name_slot() = std::move(name);
  }

  static void on_event(const Event&, SrcLoc) noexcept {}

  [[noreturn]] static void invariant_failed(const char* what, SrcLoc loc) noexcept {
    std::fprintf(stderr, "wsstress: pool invariant violated at %s:%u: %s\n", loc.file, loc.line, what);
    std::abort();
  }

  // rayon's abort (an AbortIfPanic guard, a panic in a panic): the process ends.
  [[noreturn]] static void abort_pool(const char* why, SrcLoc) noexcept {
    std::fprintf(stderr, "wsstress pool: %s; aborting\n", why);
    std::abort();
  }

  // Starts a detached thread running `body` (rayon detaches its workers too; the
  // registry is kept alive by the references the workers hold).
  template <class F>
  static std::error_code spawn_thread(const ThreadOptions& options, F&& body) {
    return start_pthread(options, std::forward<F>(body), nullptr);
  }

  // Starts a joinable thread (for build_scoped); join it with pthread_join.
  template <class F>
  static std::error_code spawn_joinable_thread(const ThreadOptions& options, F&& body, pthread_t* handle) {
    return start_pthread(options, std::forward<F>(body), handle);
  }

  // std::thread's stack size when none is asked for (library/std/src/thread:
  // min_stack): RUST_MIN_STACK if it parses as a usize, else 2 MiB, read once.
  // rayon-core's workers get this unless the builder sets stack_size; the
  // OS default (8 MiB under the usual ulimit) would be four times theirs.
  static std::size_t rust_min_stack() noexcept {
    static const std::size_t size = [] {
      const char* v = std::getenv("RUST_MIN_STACK");
      const std::optional<std::size_t> parsed = v != nullptr ? parse_usize(v) : std::nullopt;
      return parsed.value_or(std::size_t{2} * 1024 * 1024);
    }();
    return size;
  }

 private:
  static std::optional<std::string>& name_slot() noexcept {
    static thread_local std::optional<std::string> name;
    return name;
  }

  template <class F>
  static std::error_code start_pthread(const ThreadOptions& options, F&& body, pthread_t* joinable) {
    using Body = std::decay_t<F>;
    pthread_attr_t attr;
    if (int rc = pthread_attr_init(&attr); rc != 0) return {rc, std::generic_category()};
    struct AttrGuard {
      pthread_attr_t* a;
      ~AttrGuard() { pthread_attr_destroy(a); }
    } guard{&attr};
    {
      // As Rust's std does: the builder's size, else Rust's default
      // (rust_min_stack); at least PTHREAD_STACK_MIN, and on EINVAL (not a
      // page multiple) rounded up to whole pages. A size the OS cannot map
      // fails later, in pthread_create.
      std::size_t size = std::max<std::size_t>(options.stack_size.value_or(rust_min_stack()), PTHREAD_STACK_MIN);
      if (pthread_attr_setstacksize(&attr, size) == EINVAL) {
        const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
        size = size > SIZE_MAX - page ? SIZE_MAX & ~(page - 1) : (size + page - 1) & ~(page - 1);
        if (int rc = pthread_attr_setstacksize(&attr, size); rc != 0) return {rc, std::generic_category()};
      }
    }
    pthread_attr_setdetachstate(&attr, joinable ? PTHREAD_CREATE_JOINABLE : PTHREAD_CREATE_DETACHED);
    struct Start {
      Body body;
      std::optional<std::string> name;
    };
    auto start = std::make_unique<Start>(Start{std::forward<F>(body), options.name});
    pthread_t tid;
    int rc = pthread_create(
        &tid, &attr,
        [](void* arg) -> void* {
          std::unique_ptr<Start> s(static_cast<Start*>(arg));
          set_current_thread_name(std::move(s->name));
          s->body();
          return nullptr;
        },
        start.get());
    if (rc != 0) return {rc, std::generic_category()};
    start.release();
    if (joinable) *joinable = tid;
    return {};
  }
};

static_assert(Platform<StdPlatform>);

}  // namespace wsstress::pool
