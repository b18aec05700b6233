// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// ThreadPoolBuilder and its error type (lib.rs), and ThreadBuilder
// (registry.rs): the configuration a Registry is built from.
//
// C++ spellings of the Rust API: handlers are std::function; a spawn handler
// returns a std::error_code instead of io::Result; build() throws
// ThreadPoolBuildError instead of returning Err. Everything else - defaults,
// the RAYON_NUM_THREADS variable and its fallbacks, the soft cap at
// max_num_threads() - is rayon-core's.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>

#include "wsstress/pool/parse_usize.hpp"
#include "wsstress/pool/platform/concept.hpp"
#include "wsstress/pool/sleep/counters.hpp"

namespace wsstress::pool {

template <class P, class M>
class RegistryRef;
template <class P, class M>
class Registry;
template <class P, class M>
class BasicThreadPool;

// The most threads a pool can have (rayon's max_num_threads): the width of the
// sleep counters' thread fields. Larger requests are capped to it.
constexpr std::size_t max_num_threads() noexcept { return kThreadsMax; }

class ThreadPoolBuildError : public std::runtime_error {
 public:
  enum class Kind { GlobalPoolAlreadyInitialized, IOError };

  static ThreadPoolBuildError global_already_initialized() {
    return ThreadPoolBuildError(Kind::GlobalPoolAlreadyInitialized, {},
                                "The global thread pool has already been initialized.");
  }
  static ThreadPoolBuildError io_error(std::error_code code) {
    return ThreadPoolBuildError(Kind::IOError, code, code.message());
  }

  Kind kind() const noexcept { return kind_; }
  std::error_code code() const noexcept { return code_; }

 private:
  ThreadPoolBuildError(Kind kind, std::error_code code, const std::string& what)
      : std::runtime_error(what), kind_(kind), code_(code) {}
  Kind kind_;
  std::error_code code_;
};

// Parses a thread count the way Rust's usize::from_str does (ASCII digits, an
// optional leading '+', nothing else); nullopt if the text is not a number.
inline std::optional<std::size_t> parse_thread_count(std::string_view text) noexcept { return parse_usize(text); }

// The thread count a builder asking for `requested` threads gets, given the
// environment (rayon's get_num_threads): an explicit non-zero request wins;
// otherwise RAYON_NUM_THREADS if it parses and is non-zero; 0 there means "the
// CPU count"; an unparsable value falls through to the deprecated
// RAYON_RS_NUM_CPUS, then to the CPU count. rayon-core documents this fallback
// and reports nothing; wsstress's CLI warns about a bad value.
inline std::size_t resolve_num_threads(std::size_t requested, const char* rayon_num_threads,
                                       const char* rayon_rs_num_cpus, std::size_t cpus) noexcept {
  if (requested > 0) return requested;
  if (rayon_num_threads) {
    if (auto n = parse_thread_count(rayon_num_threads)) return *n > 0 ? *n : cpus;
  }
  if (rayon_rs_num_cpus) {
    if (auto n = parse_thread_count(rayon_rs_num_cpus); n && *n > 0) return *n;
  }
  return cpus;
}

// Handed to the spawn handler, which must arrange for run() to be called on a
// new thread (rayon's ThreadBuilder). Move-only.
template <class P, class M>
class ThreadBuilder {
 public:
  ThreadBuilder(std::optional<std::string> name, std::optional<std::size_t> stack_size, RegistryRef<P, M> registry,
                std::size_t index)
      : name_(std::move(name)), stack_size_(stack_size), registry_(std::move(registry)), index_(index) {}
  ThreadBuilder(ThreadBuilder&&) noexcept = default;
  ThreadBuilder& operator=(ThreadBuilder&&) noexcept = default;

  std::size_t index() const noexcept { return index_; }
  const std::optional<std::string>& name() const noexcept { return name_; }
  std::optional<std::size_t> stack_size() const noexcept { return stack_size_; }

  // The worker's main loop; returns once the pool has terminated.
  void run();

 private:
  std::optional<std::string> name_;
  std::optional<std::size_t> stack_size_;
  RegistryRef<P, M> registry_;
  std::size_t index_;
};

template <class P, class M>
class BasicThreadPoolBuilder {
 public:
  using PanicHandler = std::function<void(std::exception_ptr)>;
  using StartHandler = std::function<void(std::size_t)>;
  using ExitHandler = std::function<void(std::size_t)>;
  using ThreadNameFn = std::function<std::string(std::size_t)>;
  // Starts a thread that calls builder.run(); returns an error code on failure.
  using SpawnHandler = std::function<std::error_code(ThreadBuilder<P, M>)>;

  // 0 (the default) means: from RAYON_NUM_THREADS, else the CPU count.
  BasicThreadPoolBuilder& num_threads(std::size_t n) & noexcept {
    num_threads_ = n;
    return *this;
  }
  BasicThreadPoolBuilder&& num_threads(std::size_t n) && noexcept { return std::move(num_threads(n)); }
  BasicThreadPoolBuilder& thread_name(ThreadNameFn f) & {
    thread_name_ = std::move(f);
    return *this;
  }
  BasicThreadPoolBuilder&& thread_name(ThreadNameFn f) && { return std::move(thread_name(std::move(f))); }
  BasicThreadPoolBuilder& stack_size(std::size_t bytes) & noexcept {
    stack_size_ = bytes;
    return *this;
  }
  BasicThreadPoolBuilder&& stack_size(std::size_t bytes) && noexcept { return std::move(stack_size(bytes)); }
  // Receives exceptions escaping spawned jobs; without one they abort the process.
  BasicThreadPoolBuilder& panic_handler(PanicHandler h) & {
    panic_handler_ = std::move(h);
    return *this;
  }
  BasicThreadPoolBuilder&& panic_handler(PanicHandler h) && { return std::move(panic_handler(std::move(h))); }
  BasicThreadPoolBuilder& start_handler(StartHandler h) & {
    start_handler_ = std::move(h);
    return *this;
  }
  BasicThreadPoolBuilder&& start_handler(StartHandler h) && { return std::move(start_handler(std::move(h))); }
  BasicThreadPoolBuilder& exit_handler(ExitHandler h) & {
    exit_handler_ = std::move(h);
    return *this;
  }
  BasicThreadPoolBuilder&& exit_handler(ExitHandler h) && { return std::move(exit_handler(std::move(h))); }
  BasicThreadPoolBuilder& spawn_handler(SpawnHandler h) & {
    spawn_handler_ = std::move(h);
    return *this;
  }
  BasicThreadPoolBuilder&& spawn_handler(SpawnHandler h) && { return std::move(spawn_handler(std::move(h))); }
  // Deprecated in rayon: workers pop their own deque FIFO.
  BasicThreadPoolBuilder& breadth_first() & noexcept {
    breadth_first_ = true;
    return *this;
  }
  BasicThreadPoolBuilder&& breadth_first() && noexcept { return std::move(breadth_first()); }

  // Builds a pool; throws ThreadPoolBuildError (defined in thread_pool.hpp).
  BasicThreadPool<P, M> build();
  // Builds the global pool and waits until its workers run; throws if it
  // exists already (defined in thread_pool.hpp).
  void build_global();
  // Builds a pool whose workers are joinable threads that each call
  // wrapper(ThreadBuilder) (which must call run()), passes the pool to
  // with_pool, then drops the pool and joins every worker. Then it rethrows
  // with_pool's exception, else the first exception a wrapper threw, else a
  // build's ThreadPoolBuildError; or returns with_pool's value. Defined in
  // thread_pool.hpp.
  template <class W, class F>
  auto build_scoped(W&& wrapper, F&& with_pool) -> std::invoke_result_t<F&, BasicThreadPool<P, M>&>;

  // ---- read by Registry::create ----
  std::size_t get_num_threads() const noexcept {
    return resolve_num_threads(num_threads_, std::getenv("RAYON_NUM_THREADS"), std::getenv("RAYON_RS_NUM_CPUS"),
                               P::default_num_threads());
  }
  std::optional<std::string> get_thread_name(std::size_t index) {
    if (!thread_name_) return std::nullopt;
    return thread_name_(index);
  }
  std::optional<std::size_t> get_stack_size() const noexcept { return stack_size_; }
  bool get_breadth_first() const noexcept { return breadth_first_; }
  PanicHandler take_panic_handler() { return std::move(panic_handler_); }
  StartHandler take_start_handler() { return std::move(start_handler_); }
  ExitHandler take_exit_handler() { return std::move(exit_handler_); }

  std::error_code spawn(ThreadBuilder<P, M> thread) {
    if (spawn_handler_) return spawn_handler_(std::move(thread));
    ThreadOptions options{thread.name(), thread.stack_size()};
    return P::spawn_thread(options, [t = std::move(thread)]() mutable { t.run(); });
  }

 private:
  std::size_t num_threads_ = 0;
  ThreadNameFn thread_name_;
  std::optional<std::size_t> stack_size_;
  PanicHandler panic_handler_;
  StartHandler start_handler_;
  ExitHandler exit_handler_;
  SpawnHandler spawn_handler_;
  bool breadth_first_ = false;
};

}  // namespace wsstress::pool
