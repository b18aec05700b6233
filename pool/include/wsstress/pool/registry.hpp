// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// Registry and WorkerThread: a pool's shared state and each worker's own state
// (registry.rs), with the three ways into a pool.
//
// A Registry owns every queue (per worker: a Chase-Lev deque and a broadcast
// queue; one injector), the Sleep module and the terminate count. It is
// reference counted like rayon's Arc<Registry>: the ThreadPool handle, every
// worker, every spawned job and every cross-pool latch in flight hold a
// reference, so a pool's memory outlives the last thread that can touch it.
//
// in_worker(op) runs op on a worker of the pool, by one of three paths:
//   - the caller is a worker of this pool: call op directly;
//   - in_worker_cold: the caller is in no pool; inject a StackJob and block on
//     a thread-local LockLatch (reused, reset after each wait);
//   - in_worker_cross: the caller is a worker of another pool; inject, then
//     keep working in its own pool (wait_until) on a SpinLatch::cross.
// The global function in_worker skips the pool check: any worker of any pool
// runs op directly, and only a thread outside every pool enters the global pool.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <exception>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "wsstress/pool/builder.hpp"
#include "wsstress/pool/deque.hpp"
#include "wsstress/pool/handshake.hpp"
#include "wsstress/pool/injector.hpp"
#include "wsstress/pool/job.hpp"
#include "wsstress/pool/latch.hpp"
#include "wsstress/pool/mutants.hpp"
#include "wsstress/pool/refcount.hpp"
#include "wsstress/pool/sleep/sleep.hpp"
#include "wsstress/pool/trace.hpp"

namespace wsstress::pool {

// Tag of the thread-local LockLatch behind in_worker_cold.
struct ColdLatchTag;

// Intrusive counted reference to a Registry (rayon's Arc<Registry>). The count
// is a platform atomic, so engines schedule the keep-alive races around it.
template <class P, class M>
class RegistryRef {
 public:
  RegistryRef() noexcept = default;
  // Adopts a reference already counted for us.
  static RegistryRef adopt(Registry<P, M>* r) noexcept {
    RegistryRef ref;
    ref.r_ = r;
    return ref;
  }
  // Takes a new reference to a live registry.
  explicit RegistryRef(Registry<P, M>* r) noexcept : r_(r) {
    if (r_) r_->add_ref();
  }
  RegistryRef(const RegistryRef& other) noexcept : RegistryRef(other.r_) {}
  RegistryRef(RegistryRef&& other) noexcept : r_(std::exchange(other.r_, nullptr)) {}
  RegistryRef& operator=(RegistryRef other) noexcept {
    std::swap(r_, other.r_);
    return *this;
  }
  ~RegistryRef() { reset(); }

  // Gives up the reference without dropping it (the global registry is never freed).
  Registry<P, M>* release_for_global() noexcept { return std::exchange(r_, nullptr); }

  void reset() noexcept {
    if (Registry<P, M>* r = std::exchange(r_, nullptr)) r->release();
  }
  Registry<P, M>* get() const noexcept { return r_; }
  Registry<P, M>* operator->() const noexcept { return r_; }
  Registry<P, M>& operator*() const noexcept { return *r_; }
  explicit operator bool() const noexcept { return r_ != nullptr; }

 private:
  Registry<P, M>* r_ = nullptr;
};

// rayon's FnContext: whether a join half runs on another thread than the one
// that called join (stolen, or injected from outside the pool).
class FnContext {
 public:
  explicit FnContext(bool migrated) noexcept : migrated_(migrated) {}
  bool migrated() const noexcept { return migrated_; }

 private:
  bool migrated_;
};

// xorshift* (rayon's XorShift64Star): picks the first victim of a steal round.
class XorShift64Star {
 public:
  explicit XorShift64Star(std::uint64_t seed) noexcept : state_(seed == 0 ? 1 : seed) {}
  std::uint64_t next() noexcept {
    std::uint64_t x = state_;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    state_ = x;
    return x * 0x2545f4914f6cdd1dull;
  }
  std::size_t next_usize(std::size_t n) noexcept { return static_cast<std::size_t>(next() % n); }

 private:
  std::uint64_t state_;
};

template <class P, class M>
class WorkerThread {
  struct CurrentTag;

 public:
  WorkerThread(RegistryRef<P, M> registry, std::size_t index);
  ~WorkerThread();
  WorkerThread(const WorkerThread&) = delete;
  WorkerThread& operator=(const WorkerThread&) = delete;

  // The calling thread's WorkerThread, in any pool of this instantiation, or null.
  static WorkerThread* current() noexcept { return current_slot(); }

  Registry<P, M>& registry() const noexcept { return *registry_; }
  std::size_t index() const noexcept { return index_; }

  // Pushes on our deque and tells the sleep module (no fence: see Sleep).
  // Always inlined: it is on join's fast path (rayon's push is #[inline]).
  [[gnu::always_inline]] void push(JobRef job) noexcept {
    trace<P>([&] { return ev(EventKind::JobPushed); });
    handshake::push_internal(worker_, registry_->sleep(), index_, job);
  }

  void push_fifo(JobRef job) noexcept { push(fifo_.push(job)); }

  bool local_deque_is_empty() const noexcept { return worker_.owner_is_empty(); }

  // Our deque first (LIFO, or FIFO when breadth-first), then our broadcast queue.
  JobRef take_local_job() noexcept {
    if (JobRef job = worker_.pop()) {
      trace<P>([&] { return ev(EventKind::JobPopped); });
      return job;
    }
    for (;;) {
      Steal s = broadcast_.steal();
      if (s.kind == StealKind::Success) {
        trace<P>([&] { return ev(EventKind::BroadcastJobTaken); });
        return s.job;
      }
      if (s.kind == StealKind::Empty) return JobRef();
      trace<P>([&] { return ev(EventKind::StealRetry, std::uint64_t(StealRetryFrom::BroadcastQueue)); });
    }
  }

  // Gate 5's question: is there work that came from outside the pool for us?
  bool has_injected_job() const noexcept;

  // Runs other jobs until `latch` is set.
  template <class L>
  void wait_until(L& latch) noexcept {
    CoreLatch<P, M>& core = latch.as_core_latch();
    if (!core.probe()) wait_until_cold(core);
  }

  void execute(JobRef job) noexcept { job.execute(); }

  // ---- introspection for state dumps ----
  const Deque<P, M>& local_deque() const noexcept { return worker_; }

 private:
  static WorkerThread*& current_slot() noexcept { return P::template thread_local_slot<CurrentTag, WorkerThread*>(); }
  Event ev(EventKind kind, std::uint64_t a = 0, std::uint64_t b = 0) const noexcept {
    return Event{kind, registry_.get(), static_cast<std::uint32_t>(index_), a, b};
  }

  [[gnu::cold, gnu::noinline]] void wait_until_cold(CoreLatch<P, M>& latch) noexcept;
  JobRef steal() noexcept;

  Deque<P, M>& worker_;
  Deque<P, M>& broadcast_;
  JobFifo<P, M> fifo_;
  std::size_t index_;
  XorShift64Star rng_;
  RegistryRef<P, M> registry_;
};

template <class P, class M>
class Registry {
  using Mutex = typename P::Mutex;
  template <class T>
  using Atomic = typename P::template Atomic<T>;

 public:
  using Worker = WorkerThread<P, M>;
  using Builder = BasicThreadPoolBuilder<P, M>;

  // Starts the workers (Registry::new). If a thread fails to start, or the name
  // callback throws, the workers already started are terminated (rayon a29cb5c)
  // and the error is thrown.
  static RegistryRef<P, M> create(Builder& builder);

  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // The registry of the calling worker, else the global one.
  static RegistryRef<P, M> current();
  static std::size_t current_num_threads();

  std::size_t num_threads() const noexcept { return n_threads_; }
  const void* id() const noexcept { return this; }
  Sleep<P, M>& sleep() noexcept { return sleep_; }

  // The calling thread's WorkerThread if it belongs to this registry.
  Worker* current_thread() const noexcept {
    Worker* w = Worker::current();
    return (w != nullptr && &w->registry() == this) ? w : nullptr;
  }

  template <class OP>
  auto in_worker(OP&& op) -> ValueOrUnit<std::invoke_result_t<OP, Worker&, bool>>;
  // Cold, as in rayon (#[cold]): kept out of the callers' fast path and frame.
  template <class OP>
  [[gnu::cold, gnu::noinline]] auto in_worker_cold(OP&& op) -> ValueOrUnit<std::invoke_result_t<OP, Worker&, bool>>;
  template <class OP>
  [[gnu::cold, gnu::noinline]] auto in_worker_cross(Worker& current_thread, OP&& op)
      -> ValueOrUnit<std::invoke_result_t<OP, Worker&, bool>>;

  // Pushes on the calling worker's deque if it belongs here, else injects.
  void inject_or_push(JobRef job) noexcept {
    if (Worker* w = current_thread()) {
      w->push(job);
    } else {
      inject(job);
    }
  }

  // Into the global injector, from a thread that is not one of our workers.
  void inject(JobRef job) noexcept {
    trace<P>([&] { return Event{EventKind::JobsInjected, this, Event::kNoWorker, 1}; });
    WSSTRESS_CHECK_SYNC(P, terminate_count_.load(std::memory_order_acquire) != 0, "inject() on a terminated registry");
    handshake::inject(injected_jobs_, sleep_, Event::kNoWorker, job);
  }

  // One job into each worker's own broadcast queue; each runs only on its
  // worker. `job_ref_for(i)` makes worker i's JobRef: it is called under the
  // lock, just before that push, as rayon's lazy iterator is (the caller's
  // terminate count or scope count for each job is taken there).
  template <class JobRefFor>
  void inject_broadcast(JobRefFor&& job_ref_for) noexcept {
    trace<P>([&] { return Event{EventKind::JobBroadcast, this, Event::kNoWorker, n_threads_}; });
    handshake::inject_broadcast(
        broadcasts_mutex_, n_threads_, [this](std::size_t i) -> Deque<P, M>& { return *broadcasts_[i]; },
        [&](std::size_t i) noexcept {
          if (i == 0) {  // under the lock
            WSSTRESS_CHECK_SYNC(P, terminate_count_.load(std::memory_order_acquire) != 0,
                                "inject_broadcast() on a terminated registry");
          }
          return job_ref_for(i);
        },
        sleep_);
  }

  JobRef pop_injected_job(std::size_t worker_index) noexcept {
    for (;;) {
      Steal s = injected_jobs_.steal();
      if (s.kind == StealKind::Success) {
        trace<P>([&] { return Event{EventKind::JobUninjected, this, static_cast<std::uint32_t>(worker_index)}; });
        return s.job;
      }
      if (s.kind == StealKind::Empty) return JobRef();
      trace<P>([&] {
        return Event{EventKind::StealRetry, this, static_cast<std::uint32_t>(worker_index),
                     std::uint64_t(StealRetryFrom::Injector)};
      });
    }
  }

  // Called when spawning work that must keep the pool alive; balanced by
  // terminate() when that work ends.
  void increment_terminate_count() noexcept {
    const std::size_t previous = terminate_count_.fetch_add(1, std::memory_order_acq_rel);
    WSSTRESS_CHECK(P, previous != 0, "registry terminate count incremented from zero");
    if (previous == SIZE_MAX) abort_with<P>("overflow in registry terminate count");
  }

  // Drops one terminate count; the last one sets every worker's terminate latch
  // and wakes the worker if it sleeps on it (rayon #200: without the wake-up a
  // sleeping worker never exits).
  void terminate() noexcept {
    if (terminate_count_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      for (std::size_t i = 0; i < n_threads_; ++i) handshake::terminate_worker(thread_infos_[i].terminate, *this, i);
    }
  }

  void notify_worker_latch_is_set(std::size_t target_worker_index) noexcept {
    sleep_.notify_worker_latch_is_set(target_worker_index);
  }

  // Runs f, routing an exception to the panic handler; with no handler, or a
  // handler that throws, the process aborts, as rayon-core does.
  template <class F>
  void catch_unwind(F&& f) noexcept {
    try {
      std::forward<F>(f)();
    } catch (...) {
      if (!panic_handler_) abort_with<P>("a job threw and the pool has no panic handler", std::current_exception());
      try {
        panic_handler_(std::current_exception());
      } catch (...) {
        abort_with<P>("the pool's panic handler threw", std::current_exception());
      }
    }
  }

  // Waits until every worker has entered its main loop.
  void wait_until_primed() {
    for (std::size_t i = 0; i < n_threads_; ++i) thread_infos_[i].primed.wait();
  }
  // Waits until every worker has left its main loop (tests).
  void wait_until_stopped() {
    for (std::size_t i = 0; i < n_threads_; ++i) thread_infos_[i].stopped.wait();
  }

  // ---- introspection for state dumps ----
  std::size_t injector_len() const noexcept { return injected_jobs_.len_relaxed(); }
  const Deque<P, M>& deque(std::size_t i) const noexcept { return *deques_[i]; }
  const Deque<P, M>& broadcast_queue(std::size_t i) const noexcept { return *broadcasts_[i]; }
  std::size_t terminate_count() const noexcept { return terminate_count_.load(std::memory_order_relaxed); }

  // The global registry, built with the default builder on first use; throws
  // ThreadPoolBuildError if that build (or an earlier build_global) failed.
  static Registry* global_registry();
  // Builds the global registry from `builder`; throws if it was built already.
  static Registry* init_global_registry(Builder& builder);

  // Arc<Registry>'s clone and drop (RefCount has Arc's orders).
  void add_ref() noexcept { refs_.increment(); }
  void release() noexcept {
    if (refs_.decrement()) delete this;
  }

 private:
  friend class WorkerThread<P, M>;
  friend class ThreadBuilder<P, M>;

  struct ThreadInfo {
    // Set when the worker enters its main loop.
    LockLatch<P, M> primed;
    // Set when the worker leaves it.
    LockLatch<P, M> stopped;
    // Set by terminate(). A CountLatch because it needs no registry reference.
    CountLatch<P, M> terminate;
  };

  Registry(std::size_t n_threads, Builder& builder);
  ~Registry() = default;

  void main_loop(std::size_t index);

  // The count has a cache line of its own, as an Arc's counts sit apart from
  // the 128-aligned Registry in rayon: a cross-pool SpinLatch::set takes and
  // drops a reference while the waiting pool's workers read the fields below.
  alignas(128) RefCount<P> refs_;
  alignas(128) const std::size_t n_threads_;
  std::unique_ptr<ThreadInfo[]> thread_infos_;
  std::vector<std::unique_ptr<Deque<P, M>>> deques_;
  // Pushed by any thread under broadcasts_mutex_, stolen by their worker.
  std::vector<std::unique_ptr<Deque<P, M>>> broadcasts_;
  Mutex broadcasts_mutex_;
  Sleep<P, M> sleep_;
  Injector<P, M> injected_jobs_;
  typename Builder::PanicHandler panic_handler_;
  typename Builder::StartHandler start_handler_;
  typename Builder::ExitHandler exit_handler_;
  // Zero means terminated. The ThreadPool handle holds one count (the global
  // registry's is never released); each spawned job holds one while queued.
  Atomic<std::size_t> terminate_count_;
};

// ---------------------------------------------------------------------------
// Registry: construction, global registry, main loop

template <class P, class M>
Registry<P, M>::Registry(std::size_t n_threads, Builder& builder)
    : refs_(1), n_threads_(n_threads), thread_infos_(std::make_unique<ThreadInfo[]>(n_threads)),
      sleep_(n_threads, this), terminate_count_(1) {
  const auto flavor = builder.get_breadth_first() ? Deque<P, M>::Flavor::Fifo : Deque<P, M>::Flavor::Lifo;
  deques_.reserve(n_threads);
  broadcasts_.reserve(n_threads);
  for (std::size_t i = 0; i < n_threads; ++i) {
    deques_.push_back(std::make_unique<Deque<P, M>>(flavor));
    broadcasts_.push_back(std::make_unique<Deque<P, M>>(Deque<P, M>::Flavor::Fifo));
  }
  panic_handler_ = builder.take_panic_handler();
  start_handler_ = builder.take_start_handler();
  exit_handler_ = builder.take_exit_handler();
}

template <class P, class M>
RegistryRef<P, M> Registry<P, M>::create(Builder& builder) {
  const std::size_t n_threads = std::min(builder.get_num_threads(), max_num_threads());
  RegistryRef<P, M> registry = RegistryRef<P, M>::adopt(new Registry(n_threads, builder));

  // If we leave early, by error or exception, terminate the workers we started.
  struct Terminator {
    Registry* r;
    ~Terminator() {
      if (r) r->terminate();
    }
  } terminator{registry.get()};

  for (std::size_t index = 0; index < n_threads; ++index) {
    ThreadBuilder<P, M> thread(builder.get_thread_name(index), builder.get_stack_size(), registry, index);
    if (std::error_code ec = builder.spawn(std::move(thread))) throw ThreadPoolBuildError::io_error(ec);
  }
  terminator.r = nullptr;
  return registry;
}

namespace detail {
// The global registry of one instantiation, and whether building it was tried.
template <class P, class M>
struct GlobalRegistryState {
  static inline std::mutex mutex;
  static inline std::atomic<Registry<P, M>*> registry{nullptr};
  static inline bool attempted = false;  // guarded by mutex
};
}  // namespace detail

template <class P, class M>
Registry<P, M>* Registry<P, M>::global_registry() {
  using G = detail::GlobalRegistryState<P, M>;
  if (Registry* r = G::registry.load(std::memory_order_acquire)) return r;
  std::lock_guard<std::mutex> lock(G::mutex);
  std::string why = ThreadPoolBuildError::global_already_initialized().what();
  if (!G::attempted) {
    G::attempted = true;
    Builder builder;
    try {
      // Leaked on purpose: the global pool lives as long as the process.
      G::registry.store(create(builder).release_for_global(), std::memory_order_release);
    } catch (const ThreadPoolBuildError& e) {
      why = e.what();
    }
  }
  if (Registry* r = G::registry.load(std::memory_order_acquire)) return r;
  // Building it failed, now or earlier: rayon panics with this message.
  throw std::runtime_error("The global thread pool has not been initialized.: " + why);
}

template <class P, class M>
Registry<P, M>* Registry<P, M>::init_global_registry(Builder& builder) {
  using G = detail::GlobalRegistryState<P, M>;
  std::lock_guard<std::mutex> lock(G::mutex);
  if (G::attempted) throw ThreadPoolBuildError::global_already_initialized();
  G::attempted = true;
  Registry* r = create(builder).release_for_global();
  G::registry.store(r, std::memory_order_release);
  return r;
}

template <class P, class M>
RegistryRef<P, M> Registry<P, M>::current() {
  if (Worker* w = Worker::current()) return RegistryRef<P, M>(&w->registry());
  return RegistryRef<P, M>(global_registry());
}

template <class P, class M>
std::size_t Registry<P, M>::current_num_threads() {
  if (Worker* w = Worker::current()) return w->registry().num_threads();
  return global_registry()->num_threads();
}

template <class P, class M>
void ThreadBuilder<P, M>::run() {
  // Rust's run(self) makes a second call a compile error; here it is a call on
  // a moved-from builder, refused before it touches anything.
  if (!registry_) throw std::logic_error("ThreadBuilder::run called twice");
  RegistryRef<P, M> registry = std::move(registry_);
  registry->main_loop(index_);
}

template <class P, class M>
void Registry<P, M>::main_loop(std::size_t index) {
  // Holds a registry reference until the worker is done with it.
  WorkerThread<P, M> worker_thread(RegistryRef<P, M>(this), index);
  thread_infos_[index].primed.set();

  if (start_handler_) catch_unwind([&] { start_handler_(index); });

  CountLatch<P, M>& my_terminate_latch = thread_infos_[index].terminate;
  trace<P>([&] {
    return Event{EventKind::ThreadStart, this, static_cast<std::uint32_t>(index),
                 reinterpret_cast<std::uintptr_t>(&my_terminate_latch.as_core_latch())};
  });
  // A pool's idle workers sleep on their own terminate latch.
  worker_thread.wait_until(my_terminate_latch);

  // rayon's debug_assert: only checked platforms (the engines, like rayon's
  // debug-build tests) look; production skips the pop and the steal.
  WSSTRESS_CHECK_SYNC(P, !worker_thread.take_local_job(), "a worker exited with work left in its deque");
  thread_infos_[index].stopped.set();
  trace<P>([&] { return Event{EventKind::ThreadTerminate, this, static_cast<std::uint32_t>(index)}; });
  if (exit_handler_) catch_unwind([&] { exit_handler_(index); });
}

// ---------------------------------------------------------------------------
// WorkerThread

template <class P, class M>
WorkerThread<P, M>::WorkerThread(RegistryRef<P, M> registry, std::size_t index)
    : worker_(*registry->deques_[index]), broadcast_(*registry->broadcasts_[index]), index_(index),
      rng_(P::next_rng_seed()), registry_(std::move(registry)) {
  if (current_slot() != nullptr) abort_with<P>("a thread can be the worker of one pool only");
  current_slot() = this;
}

template <class P, class M>
WorkerThread<P, M>::~WorkerThread() {
  // Clear the thread-local before the registry reference goes (rayon 249ad3f):
  // a thread that outlives its worker must not look like one.
  current_slot() = nullptr;
}

template <class P, class M>
bool WorkerThread<P, M>::has_injected_job() const noexcept {
  return handshake::has_injected_job(broadcast_, registry_->injected_jobs_);
}

template <class P, class M>
void WorkerThread<P, M>::wait_until_cold(CoreLatch<P, M>& latch) noexcept {
  // Local work first, then other workers', then the injector: finish what was
  // started before taking on something new.
  auto find_work = [this]() noexcept {
    JobRef job = take_local_job();
    if (!job) job = steal();
    if (!job) job = registry_->pop_injected_job(index_);
    return job;
  };
  handshake::wait_until_cold(registry_->sleep_, index_, latch, find_work, [this] { return has_injected_job(); });
  trace<P>([&] { return ev(EventKind::ThreadSawLatchSet, reinterpret_cast<std::uintptr_t>(&latch)); });
}

template <class P, class M>
JobRef WorkerThread<P, M>::steal() noexcept {
  WSSTRESS_CHECK_SYNC(P, local_deque_is_empty(), "stealing with local work left");
  const std::size_t num_threads = registry_->n_threads_;
  if (num_threads <= 1) return JobRef();
  for (;;) {
    bool retry = false;
    const std::size_t start = rng_.next_usize(num_threads);
    for (std::size_t k = 0; k < num_threads; ++k) {
      const std::size_t victim = (start + k) % num_threads;
      if (victim == index_) continue;
      Steal s = registry_->deques_[victim]->steal();
      if (s.kind == StealKind::Success) {
        trace<P>([&] { return ev(EventKind::JobStolen, victim); });
        return s.job;
      }
      if (s.kind == StealKind::Retry) {
        trace<P>([&] { return ev(EventKind::StealRetry, std::uint64_t(StealRetryFrom::Deque)); });
        retry = true;
      }
    }
    if (!retry) return JobRef();
  }
}

// ---------------------------------------------------------------------------
// in_worker and its three paths

namespace detail {
// The closure in_worker_cold and in_worker_cross inject. rayon asserts
// `injected && !worker_thread.is_null()` inside the job, so a failure is the
// job's panic: StackJob keeps it and the caller's into_result rethrows it.
template <class P, class M, class OP>
auto injected_call(std::remove_reference_t<OP>& op) {
  return [&op](bool injected) -> std::invoke_result_t<OP, WorkerThread<P, M>&, bool> {
    WorkerThread<P, M>* worker_thread = WorkerThread<P, M>::current();
    if (!injected || worker_thread == nullptr) {
      throw std::logic_error("assertion failed: injected && !worker_thread.is_null()");
    }
    return std::forward<OP>(op)(*worker_thread, true);
  };
}
}  // namespace detail

template <class P, class M>
template <class OP>
auto Registry<P, M>::in_worker(OP&& op) -> ValueOrUnit<std::invoke_result_t<OP, Worker&, bool>> {
  Worker* worker_thread = Worker::current();
  if (worker_thread == nullptr) return in_worker_cold(std::forward<OP>(op));
  if (&worker_thread->registry() != this) {
    // The mutant blocks this worker of another pool like an outside thread.
    if (M::kCrossIsCold) return in_worker_cold(std::forward<OP>(op));
    return in_worker_cross(*worker_thread, std::forward<OP>(op));
  }
  // The mutant injects even here, and blocks the only thread that could run it.
  if (M::kSelfInstallBlocks) return in_worker_cold(std::forward<OP>(op));
  // Same pool: we are already where op must run.
  return invoke_to_value(std::forward<OP>(op), *worker_thread, false);
}

template <class P, class M>
template <class OP>
auto Registry<P, M>::in_worker_cold(OP&& op) -> ValueOrUnit<std::invoke_result_t<OP, Worker&, bool>> {
  using R = std::invoke_result_t<OP, Worker&, bool>;
  // One latch per thread (and instantiation), whatever OP is.
  LockLatch<P, M>& lock_latch = P::template thread_local_slot<ColdLatchTag, LockLatch<P, M>>();
  auto call = detail::injected_call<P, M, OP>(op);
  StackJob<P, LatchRef<LockLatch<P, M>>, decltype(call), R> job(std::move(call), LatchRef<LockLatch<P, M>>(lock_latch));
  inject(job.as_job_ref());
  // Reset so the same thread-local latch serves this thread's next cold call.
  if (M::kColdLatchNoReset) {
    job.latch.get().wait();
  } else {
    job.latch.get().wait_and_reset();
  }
  return job.into_result();
}

template <class P, class M>
template <class OP>
auto Registry<P, M>::in_worker_cross(Worker& current_thread, OP&& op)
    -> ValueOrUnit<std::invoke_result_t<OP, Worker&, bool>> {
  using R = std::invoke_result_t<OP, Worker&, bool>;
  // Our caller is a worker of another pool: it keeps running its own pool's
  // jobs while it waits, and may sleep there; the cross latch wakes it.
  auto call = detail::injected_call<P, M, OP>(op);
  // On a 128-byte boundary: the other pool's worker writes the result and the
  // latch while we spin below; straddling two lines, the job cost two line
  // transfers each way (cross_install at one thread 18 % slower; pool/README.md,
  // item 14). rayon-core's frame happens to put its job on such a boundary.
  alignas(128) StackJob<P, SpinLatch<P, M>, decltype(call), R> job(std::move(call),
                                                                   SpinLatch<P, M>::cross(current_thread));
  inject(job.as_job_ref());
  current_thread.wait_until(job.latch);
  return job.into_result();
}

// Any worker of any pool (of this instantiation) runs op directly; other
// threads go to the global pool.
template <class P, class M, class OP>
auto in_worker(OP&& op) -> ValueOrUnit<std::invoke_result_t<OP, WorkerThread<P, M>&, bool>> {
  if (WorkerThread<P, M>* owner_thread = WorkerThread<P, M>::current()) {
    return invoke_to_value(std::forward<OP>(op), *owner_thread, false);
  }
  return Registry<P, M>::global_registry()->in_worker_cold(std::forward<OP>(op));
}

// ---------------------------------------------------------------------------
// SpinLatch (needs the Registry)

template <class P, class M>
SpinLatch<P, M>::SpinLatch(const WorkerThread<P, M>& thread) noexcept
    : SpinLatch(&thread.registry(), thread.index(), false) {}

template <class P, class M>
SpinLatch<P, M> SpinLatch<P, M>::cross(const WorkerThread<P, M>& thread) noexcept {
  return SpinLatch(&thread.registry(), thread.index(), true);
}

template <class P, class M>
void SpinLatch<P, M>::set() noexcept {
  // Read every field before the set: once it is set the owner may return and
  // free this latch.
  Registry<P, M>* registry = registry_;
  const std::size_t target = target_worker_index_;
  // A waiter in another pool may see the latch, return, and drop the last
  // reference to its pool before we notify it (rayon cbd484c; sleep/README.md §8): hold one.
  RegistryRef<P, M> keep_alive;
  if (cross_ && !M::kCrossLatchNoKeepAlive) keep_alive = RegistryRef<P, M>(registry);
  [[maybe_unused]] const std::uintptr_t latch_addr = reinterpret_cast<std::uintptr_t>(&core_latch_);
  const bool owner_slept = core_latch_.set();
  trace<P>([&] {
    return Event{EventKind::LatchSet, registry, static_cast<std::uint32_t>(target), latch_addr, owner_slept};
  });
  handshake::wake_latch_owner<M>(owner_slept, *registry, target);
}

// ---------------------------------------------------------------------------
// ScopeLatch: counts the jobs of a broadcast or of a scope down to zero.
// On a worker (of any pool) the waiter keeps working and is woken through its
// own registry; elsewhere it blocks on a CountLockLatch.
//
// Deviation (rayon-core 1.12.0's keep-alive, commit 32d3774a): 1.10.1's ScopeLatch::set borrows
// the waiter's registry across the set, and the waiter may return, drop the
// scope and, once its pool is dropped and its worker exits, free that registry
// before the notify, the same race SpinLatch::cross guards
// against. Production takes a reference before the set, and only for the
// decrement that reaches zero: the others never touch the registry, and until
// that last decrement has set the core latch the waiter cannot return, so the
// scope (and its registry reference) is still alive. (Taking it on every
// decrement cost two RMWs on the registry's refcount per scope job.) The
// mutant kScopeLatchNoKeepAlive restores 1.10.1's code.
template <class P, class M>
class ScopeLatch {
 public:
  ScopeLatch(std::size_t count, WorkerThread<P, M>* owner)
      : registry_(owner != nullptr ? RegistryRef<P, M>(&owner->registry()) : RegistryRef<P, M>()),
        worker_index_(owner != nullptr ? owner->index() : 0), stealing_(count), blocking_(count) {}

  void increment() noexcept {
    if (registry_) {
      stealing_.increment();
    } else {
      blocking_.increment();
    }
  }

  void set() noexcept {
    if (registry_) {
      if (M::kScopeLatchNoKeepAlive) {
        set_borrowing_registry();
        return;
      }
      RegistryRef<P, M> keep_alive;
      std::size_t index = 0;
      // Read our fields before the set: once it is set the owner may free us.
      if (stealing_.set([&]() noexcept {
            keep_alive = registry_;
            index = worker_index_;
          })) {
        keep_alive->notify_worker_latch_is_set(index);
      }
    } else {
      blocking_.set();
    }
  }

  // `owner` must be the thread that created the latch.
  void wait(WorkerThread<P, M>* owner) {
    if (registry_) {
      owner->wait_until(stealing_);
    } else {
      blocking_.wait();
    }
  }

 private:
  // The mutant: 1.10.1's `latch.set_and_tickle_one(registry, *worker_index)`.
  // Its arguments (the `&Arc<Registry>` coerced to `&Registry`, and the index)
  // are evaluated before the call, so the pointer and the index are read
  // before the decrement; the registry itself is then used after the set
  // without a reference.
  void set_borrowing_registry() noexcept {
    Registry<P, M>* registry = registry_.get();
    const std::size_t index = worker_index_;
    if (stealing_.set()) registry->notify_worker_latch_is_set(index);
  }

  // Set when the latch was made on a worker (rayon's Stealing variant): that
  // worker's registry, which set() wakes it through; empty otherwise (Blocking).
  RegistryRef<P, M> registry_;
  std::size_t worker_index_;
  CountLatch<P, M> stealing_;
  CountLockLatch<P, M> blocking_;
};

}  // namespace wsstress::pool
