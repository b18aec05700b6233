// SPDX-License-Identifier: MIT OR Apache-2.0
// The pieces every scenario is written with: what a run is asked to do
// (RunSpec), what it found (Verdict), and the context a scenario runs in
// (Ctx): its seeded generator, its oracle, the live state a hang dump reads
// (tracked pools, what each outside thread is blocked in), and the
// environment that starts outside threads and sleeps (Env<P>, which the
// simulator specialises for its fibers).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "wsstress/core/dump.hpp"
#include "wsstress/core/flag_taker.hpp"
#include "wsstress/pool/platform/splitmix64.hpp"
#include "wsstress/pool/thread_pool.hpp"

namespace wsstress::core {

struct RunSpec {
  std::string scenario = "mixed";
  std::string mutant = "none";
  std::size_t threads = 2;                                    // workers per pool
  std::size_t pools = 2;                                      // pools a scenario may use (cross uses at least 2)
  std::size_t iterations = 20;                                // programs per seed
  int noise = 1;                                              // 0 = off .. 3 = heavy
  double hang_timeout_s = default_hang_timeout(kRunCommand);  // no progress for this long = a hang (--hang-timeout)
  std::string input;       // the `program` scenario: a program's bytes (empty: from the seed)
  std::string input_path;  // where `input` came from, for replay commands
};

// Crash: the process running the pool under test died of a signal (the
// simulator's crash guard sees it from the parent process).
enum class VerdictKind { Pass, Bug, Crash, Hang, Internal };
const char* verdict_name(VerdictKind k) noexcept;

struct Verdict {
  VerdictKind kind = VerdictKind::Pass;
  std::string message;  // what went wrong, one line
  std::string dump;     // state of every pool and thread, for hangs and invariant failures
  // A stall in the simulator: why each sleeping worker was never woken
  // (sim/explain.hpp), one line each; empty elsewhere.
  std::vector<std::string> explanation{};
};

// Deterministic generator for program shapes.
using Rng = SplitMix64;

// What the watchdog can see of a run in progress. One per process; scenarios
// register pools and outside threads through Ctx.
class LiveState {
 public:
  static LiveState& get();

  // A dump callback per tracked pool, valid while registered.
  int track_pool(std::string name, const void* registry, std::function<PoolDump()> dump);
  bool is_tracked(const void* registry);
  void untrack_pool(int id);

  // What an outside thread is doing (nullptr: nothing blocking). A slot's
  // address is stable, so its owner updates it without taking the lock.
  struct ThreadSlot;
  ThreadSlot* register_thread(std::string name);
  static void set_status(ThreadSlot* slot, const char* what) noexcept;
  void unregister_thread(ThreadSlot* slot);

  // Every tracked pool's dump; its stall is Idle when every pool reads
  // "nothing to wake for", Missed when one reads a missed wake-up, NoPool when
  // no pool was tracked since the last reset (a program that runs no pool
  // code), Other otherwise.
  PoolDump dump_pools();
  std::string dump_threads();
  void reset();

 private:
  struct Tracked {
    int id;
    std::string name;
    const void* registry;
    std::function<PoolDump()> dump;
  };
  std::mutex m_;
  std::vector<Tracked> pools_;
  std::vector<std::unique_ptr<ThreadSlot>> threads_;
  int next_id_ = 0;
  bool tracked_any_ = false;  // a pool was tracked since the last reset
};

// A run's dump: every tracked pool, every outside thread's status, and workers
// of pools no longer tracked.
std::string dump_live_state();

struct LiveState::ThreadSlot {
  std::string name;  // written under LiveState's lock
  std::atomic<const char*> what{nullptr};
  std::atomic<bool> in_use{false};
};

// Outside threads and sleeps, for real threads; the simulator specialises it.
template <class P>
struct Env {
  using Thread = std::thread;
  template <class F>
  static Thread start(F&& f) {
    return std::thread(std::forward<F>(f));
  }
  static void join(Thread& t) { t.join(); }
  static void sleep_us(std::uint64_t us) { std::this_thread::sleep_for(std::chrono::microseconds(us)); }
  static void yield() { std::this_thread::yield(); }
  // Whether a scenario must allow the reorderings of weak memory (see
  // ScenarioInfo::sc_oracle). No for real threads: x86 could keep a worker's
  // push in its store buffer while another worker goes from sleepy to asleep
  // (a steal round and two locked CASes), but that window is nanoseconds
  // against microseconds, and no real-thread run has shown it (README, "The
  // default sweep"); TSan runs the threads without reordering.
  static bool reorders_memory() { return false; }

  // The workers of a scenario's pools started as threads the scenario joins
  // (rayon's spawn_handler, as build_scoped uses it), so that every thread a
  // run started has ended when it returns: a leak checker run between two fuzz
  // inputs then never meets a worker still inside glibc's thread-exit
  // bookkeeping. Join only after the pools terminated.
  class JoinedWorkers {
   public:
    template <class M>
    typename pool::BasicThreadPoolBuilder<P, M>::SpawnHandler handler() {
      return [this](pool::ThreadBuilder<P, M> thread) -> std::error_code {
        const pool::ThreadOptions options{thread.name(), thread.stack_size()};
        return threads_.spawn(options, [t = std::move(thread)]() mutable { t.run(); });
      };
    }
    void join_all() noexcept { threads_.join_all(); }

   private:
    pool::detail::ScopedThreads<P> threads_;
  };
};

// The context of one scenario run.
template <class P, class M>
class Ctx {
 public:
  using Pool = pool::BasicThreadPool<P, M>;
  using Builder = pool::BasicThreadPoolBuilder<P, M>;

  Ctx(const RunSpec& spec, std::uint64_t seed) : spec(spec), seed(seed), rng(seed) {}

  const RunSpec spec;
  const std::uint64_t seed;
  Rng rng;

  // Records the first oracle failure; later ones only count. The message is
  // a literal or a callable that builds it only on failure: checks run at
  // every leaf, and a message built eagerly cost a heap allocation each
  // (one in seven of schedule_fuzzer's allocations).
  void check(bool ok, const char* what) {
    if (!ok) record_failure(what);
  }
  template <class Describe>
  requires std::is_invocable_r_v<std::string, Describe&>
  void check(bool ok, Describe&& describe) {
    if (!ok) record_failure(describe());
  }
  bool failed() {
    std::lock_guard<std::mutex> g(m_);
    return failures_ > 0;
  }
  Verdict verdict() {
    std::lock_guard<std::mutex> g(m_);
    if (failures_ == 0) return Verdict{};
    std::string msg = failure_;
    if (failures_ > 1) msg += " (and " + std::to_string(failures_ - 1) + " more)";
    return Verdict{VerdictKind::Bug, msg, {}};
  }

  // A pool whose state the watchdog can dump while it lives.
  class TrackedPool {
   public:
    TrackedPool(std::string name, Builder builder) : pool_(std::make_unique<Pool>(std::move(builder))) {
      Pool* p = pool_.get();
      id_ = LiveState::get().track_pool(std::move(name), &p->registry(), [p] { return dump_registry(p->registry()); });
    }
    ~TrackedPool() { LiveState::get().untrack_pool(id_); }
    TrackedPool(const TrackedPool&) = delete;
    TrackedPool& operator=(const TrackedPool&) = delete;
    Pool& operator*() const { return *pool_; }
    Pool* operator->() const { return pool_.get(); }

   private:
    std::unique_ptr<Pool> pool_;
    int id_;
  };

  std::unique_ptr<TrackedPool> make_pool(const std::string& name, Builder builder = Builder(),
                                         std::size_t min_threads = 1) {
    builder.num_threads(std::max(spec.threads, min_threads));
    return std::make_unique<TrackedPool>(name, std::move(builder));
  }

  // Marks what an outside thread is about to block in, for the hang dump.
  class ThreadStatus {
   public:
    explicit ThreadStatus(std::string name) : slot_(LiveState::get().register_thread(std::move(name))) {}
    ~ThreadStatus() { LiveState::get().unregister_thread(slot_); }
    void set(const char* what) noexcept { LiveState::set_status(slot_, what); }

   private:
    LiveState::ThreadSlot* slot_;
  };

 private:
  void record_failure(std::string what) {
    std::lock_guard<std::mutex> g(m_);
    if (failure_.empty()) failure_ = std::move(what);
    ++failures_;
  }
  std::mutex m_;
  std::string failure_;
  int failures_ = 0;
};

}  // namespace wsstress::core
