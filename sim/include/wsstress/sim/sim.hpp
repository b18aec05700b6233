// SPDX-License-Identifier: MIT OR Apache-2.0
// The deterministic simulator: SimPlatform runs every pool thread, and every
// outside thread of a scenario, as a Boost.Context fiber on one OS thread.
// Every atomic operation, fence, mutex and condvar operation, yield and thread
// start is a scheduling point at which the Scheduler's strategy (seeded random
// walk, PCT, or a bounded depth-first search) picks the fiber that runs next,
// so a seed fixes one interleaving and a recorded schedule replays it exactly.
//
// Memory: sequentially consistent, or x86-TSO - each fiber has a FIFO store
// buffer; its loads read its own newest buffered store first; RMWs, SeqCst
// stores and fences, lock operations and blocking calls drain it; and the
// strategy may flush one buffered store of any fiber at any scheduling point.
// That is what lets the store->load reorderings the sleep handshake's SeqCst
// fences exist for actually happen here. Or the C++ memory model (`cpp`,
// sim/cpp_memory.hpp): each atomic keeps its modification order, each fiber a
// vector clock, and a load reads any store C++20 allows it to, the choice
// being one more decision of the strategy; plain memory (Cell) is checked for
// data races against the same clocks.
//
// A run ends passed, or with a lost wake-up (no fiber can run while some have
// not finished), a livelock (the step budget ran out), a broken pool
// invariant, a use after free, or a failed scenario oracle.
//
// Use after free: every SimAtomic, SimMutex and SimCondVar carries a liveness
// stamp that its destructor clears, and each operation checks it before it
// schedules and again when its fiber gets the processor back (the object may
// have been freed meanwhile), so a pool that touches its own objects after freeing them (a
// setter notifying a registry its waiter has already freed) fails the run
// with the operation and the pool's source line, as RelacyPlatform's stamps
// do in Relacy. The check reads freed memory: it sees the cleared stamp unless
// the allocator has handed that memory to a new object of the same kind in
// the meantime, which would hide the error (never report a false one). Under
// ASan the check asks first whether the stamp's memory is freed, so the
// simulator's verdict (with its trace and reproducer) comes before ASan's.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "wsstress/core/scenario.hpp"
#include "wsstress/pool/platform/concept.hpp"
#include "wsstress/pool/trace.hpp"
#include "wsstress/sim/asan.hpp"
#include "wsstress/sim/strategies.hpp"

namespace wsstress::sim {

using pool::Event;
using pool::SrcLoc;

enum class MemoryModel { SC, TSO, CPP };
const char* memory_name(MemoryModel m) noexcept;  // "sc", "tso", "cpp"
std::optional<MemoryModel> parse_memory(std::string_view word) noexcept;
std::vector<std::string> memory_names();  // every model's word, for the CLI and its completions
inline constexpr MemoryModel kMemoryModels[] = {MemoryModel::SC, MemoryModel::TSO, MemoryModel::CPP};

// What a scheduling point does, for traces.
enum class Op : std::uint8_t {
  Load,
  Store,
  Rmw,
  Fence,
  Lock,
  Unlock,
  Wait,
  Notify,
  Yield,
  Start,
  Exit,
  Join,
  Sleep,
  Flush,
  Event,
  Wake,    // trace only: the fiber made fiber `detail` runnable
  Stale,   // trace only (cpp memory): the fiber's load read the store `detail` places back in mo
  Preempt  // trace only: the strategy switched from this runnable fiber to fiber `detail`
};
const char* op_name(Op op) noexcept;

struct ReadsFromRun;  // reads_from.hpp

struct SimConfig {
  std::uint64_t seed = 0;
  StrategyKind strategy = StrategyKind::Random;  // strategies.hpp
  MemoryModel memory = MemoryModel::SC;
  unsigned pct_depth = 3;                 // PCT: d (priority change points + 1)
  std::uint64_t pct_steps = 20000;        // PCT: k, the steps change points are drawn from
  unsigned preemption_bound = 2;          // DFS: preemptions per execution
  std::uint64_t step_budget = 5'000'000;  // more scheduling points = a livelock
  // TSO: the chance, per decision, that a random strategy flushes a buffered
  // store; 0 (the default) draws it per seed from kFlushPercents, so a sweep
  // runs short-lived and long-lived store buffers alike (strategy.cpp).
  unsigned flush_percent = 0;
  // cpp: the chance that a load with a choice reads an older store than the
  // newest; 0 (the default) draws it per seed from kStalePercents.
  unsigned stale_percent = 0;
  unsigned spurious_wakeup_per_mille = 5;  // chance a condvar waiter wakes spuriously
  std::vector<std::uint32_t> forced;       // a recorded schedule to follow (replay)
  // Replaying on other code (`replay --check-fix`): a recorded decision this
  // code cannot take is no error; from there on the run takes the
  // non-preemptive choice (ReadyView::keep_running, and the newest store for
  // a load), and SimResult::divergence says where it left the schedule.
  bool forced_then_keep_running = false;
  std::vector<std::uint8_t> fuzz_bytes;  // Fuzz: one byte per decision (a fuzzer's input), then the seed's draws
  bool record_trace = false;             // keep every point (for --trace / --trace-out)
  // Reads-from fuzzing (reads_from.hpp): the abstract schedule the
  // "reads-from" strategy steers toward, and where it reports the pairs seen;
  // the loop's, never in a reproducer (null: a random walk).
  ReadsFromRun* reads_from = nullptr;
};

// One scheduling point as recorded in a trace.
struct TracePoint {
  std::uint64_t step;
  std::uint32_t fiber;
  Op op;
  const char* file;
  unsigned line;
  std::uint64_t detail;    // the event kind, or the address operated on
  std::uint64_t arg = 0;   // an event's payload `a` (a gate's number, a latch)
  std::uint64_t arg2 = 0;  // and `b` (the is_blocked mutex of gate 2, the condvar of ThreadSleeping)
  // The operation ran inside the standard library (a lock in <unique_lock.h>):
  // file:line is the pool's last line before it.
  bool after_pool_line = false;
};

struct FiberInfo {
  std::uint32_t id;
  std::string name;
  std::string state;  // runnable, blocked on mutex ..., finished
  const char* file = "";
  unsigned line = 0;
};

struct SimResult {
  core::Verdict verdict;
  std::uint64_t steps = 0;
  std::uint64_t trace_hash = 0;
  std::vector<std::uint32_t> schedule;  // every choice made, for the reproducer
  std::vector<TracePoint> trace;        // with record_trace
  std::vector<std::string> fiber_names;
  std::string divergence;  // replay only: where the run left its schedule
  // DFS only: per decision, its alternatives, the non-preemptive default first.
  std::vector<std::vector<std::uint32_t>> decisions;
};

// Checking the checker (sim/tests/test_litmus.cpp): a flaw put into the
// cpp memory model on purpose, which the litmus suite must notice. None in
// every tool.
enum class CppFlaw { None, SeqCstFenceAsAcqRel, ReadOverwritten };
void set_cpp_flaw_for_tests(CppFlaw flaw) noexcept;

// Runs body() as the "main" fiber under a fresh scheduler until every fiber
// has finished or the run fails.
SimResult simulate(const SimConfig& config, const std::function<core::Verdict()>& body);

// ---- for the platform types: the scheduler in charge of the calling fiber ----

namespace detail {
void point(Op op, const void* addr, SrcLoc loc);
void on_event(const Event& e, SrcLoc loc);
[[noreturn]] void invariant_failed(const char* what, SrcLoc loc);
[[noreturn]] void pool_aborted(const char* why, SrcLoc loc);
// An operation on a destroyed object: fails the run (a fiber gives up the
// processor for good; the scheduler itself, in a dump or a store-buffer
// flush, records the failure and returns); outside a run, aborts.
void use_after_free(Op op, const void* addr, SrcLoc loc);
// The memory model of the calling fiber's run (SC outside a run): one query
// per atomic operation, not one per model.
MemoryModel memory();
bool tso();
// The C++ memory model (cpp_memory.hpp): on for the calling fiber's run.
struct History;
struct CellState;
bool cpp();
std::uint64_t cpp_load(History*& h, std::uint64_t latest, std::memory_order o);
void cpp_store(History*& h, std::uint64_t latest, std::uint64_t bits, std::memory_order o);
void cpp_rmw(History*& h, std::uint64_t latest, std::uint64_t bits, std::memory_order o, bool writes);
void cpp_fence(std::memory_order o);
void cell_access(CellState*& c, bool write, SrcLoc loc);
void free_history(History* h) noexcept;
void free_cell(CellState* c) noexcept;
// TSO store buffer of the current fiber.
bool buffered_load(const void* addr, std::uint64_t& bits);
void buffer_store(void* addr, std::uint64_t bits, void (*apply)(void*, std::uint64_t));
void drain();
// Mutex / condvar / thread primitives.
void mutex_lock(void* m, SrcLoc loc);
void mutex_unlock(void* m, SrcLoc loc);
void cond_wait(void* cv, void* m, SrcLoc loc);
void cond_notify(void* cv, bool all, SrcLoc loc);
std::uint32_t spawn(std::string name, std::function<void()> body);
void join(std::uint32_t fiber);
void sleep_ns(std::uint64_t ns);
void spin_wait(SrcLoc loc);
// A fiber's thread-local slot for `key` (one address per slot), made on first use.
void* tls(const void* key, void* (*make)(), void (*destroy)(void*));
std::uint64_t next_seed();
}  // namespace detail

// The liveness stamp (see the file comment). Volatile, so the destructor's
// store is not dropped as dead and every check really reads the memory.
class SimLiveness {
 public:
  SimLiveness() noexcept = default;
  SimLiveness(const SimLiveness&) = delete;
  SimLiveness& operator=(const SimLiveness&) = delete;
  ~SimLiveness() { stamp_ = 0; }
  bool alive() const noexcept { return !asan::is_poisoned(&stamp_) && stamp_ == kAlive; }
  void check(Op op, const void* owner, SrcLoc loc) const noexcept {
    if (!alive()) detail::use_after_free(op, owner, loc);
  }

 private:
  static constexpr std::uint64_t kAlive = 0x51a7e11fe5ca1ab1ull;
  volatile std::uint64_t stamp_ = kAlive;
};

// An atomic whose every operation is a scheduling point. Values are kept as
// raw bits so a TSO store buffer can hold them (T must fit 64 bits).
template <class T>
class SimAtomic {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8, "SimAtomic holds up to 64-bit values");

 public:
  SimAtomic() noexcept : value_() {}
  SimAtomic(T v) noexcept : value_(v) {}  // NOLINT: mirrors std::atomic
  SimAtomic(const SimAtomic&) = delete;
  SimAtomic& operator=(const SimAtomic&) = delete;
  ~SimAtomic() { detail::free_history(history_); }

  T load(std::memory_order order, SrcLoc loc = SrcLoc::here()) const noexcept {
    enter(Op::Load, loc);
    const MemoryModel mm = detail::memory();
    std::uint64_t bits;
    if (mm == MemoryModel::CPP) return from_bits(detail::cpp_load(history_, to_bits(value_), order));
    if (mm == MemoryModel::TSO && detail::buffered_load(this, bits)) return from_bits(bits);
    return value_;
  }
  void store(T v, std::memory_order order, SrcLoc loc = SrcLoc::here()) noexcept {
    enter(Op::Store, loc);
    const MemoryModel mm = detail::memory();
    if (mm == MemoryModel::CPP) {
      detail::cpp_store(history_, to_bits(value_), to_bits(v), order);
      value_ = v;
    } else if (mm == MemoryModel::TSO && order != std::memory_order_seq_cst) {
      detail::buffer_store(const_cast<SimAtomic*>(this), to_bits(v), &apply);
    } else {
      if (mm == MemoryModel::TSO) detail::drain();
      value_ = v;
    }
  }
  T exchange(T v, std::memory_order order, SrcLoc loc = SrcLoc::here()) noexcept {
    const MemoryModel mm = rmw(loc);
    T old = value_;
    write(v, order, mm);
    return old;
  }
  bool compare_exchange_strong(T& expected, T desired, std::memory_order success, std::memory_order failure,
                               SrcLoc loc = SrcLoc::here()) noexcept {
    const MemoryModel mm = rmw(loc);
    if (std::memcmp(&value_, &expected, sizeof(T)) == 0) {
      write(desired, success, mm);
      return true;
    }
    if (mm == MemoryModel::CPP) detail::cpp_rmw(history_, to_bits(value_), 0, failure, false);
    expected = value_;
    return false;
  }
  bool compare_exchange_weak(T& expected, T desired, std::memory_order s, std::memory_order f,
                             SrcLoc loc = SrcLoc::here()) noexcept {
    return compare_exchange_strong(expected, desired, s, f, loc);
  }
  T fetch_add(T v, std::memory_order order, SrcLoc loc = SrcLoc::here()) noexcept {
    const MemoryModel mm = rmw(loc);
    T old = value_;
    write(static_cast<T>(old + v), order, mm);
    return old;
  }
  T fetch_sub(T v, std::memory_order order, SrcLoc loc = SrcLoc::here()) noexcept {
    const MemoryModel mm = rmw(loc);
    T old = value_;
    write(static_cast<T>(old - v), order, mm);
    return old;
  }

 private:
  // A scheduling point between two liveness checks: another fiber may free
  // this atomic while its caller is off the processor.
  void enter(Op op, SrcLoc loc) const noexcept {
    live_.check(op, this, loc);
    detail::point(op, this, loc);
    live_.check(op, this, loc);
  }
  MemoryModel rmw(SrcLoc loc) const noexcept {
    enter(Op::Rmw, loc);
    const MemoryModel mm = detail::memory();
    if (mm == MemoryModel::TSO) detail::drain();  // a locked instruction drains the buffer
    return mm;
  }
  // An RMW's write: it reads the newest value (value_) and writes after it in mo.
  void write(T v, std::memory_order order, MemoryModel mm) noexcept {
    if (mm == MemoryModel::CPP) detail::cpp_rmw(history_, to_bits(value_), to_bits(v), order, true);
    value_ = v;
  }
  static std::uint64_t to_bits(T v) noexcept {
    std::uint64_t b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
  }
  static T from_bits(std::uint64_t b) noexcept {
    T v;
    std::memcpy(&v, &b, sizeof(T));
    return v;
  }
  // A buffered store reaching memory after its atomic was destroyed is a use
  // after free too (the store is dropped, not written into freed memory).
  static void apply(void* self, std::uint64_t bits) noexcept {
    auto* a = static_cast<SimAtomic*>(self);
    if (!a->live_.alive()) {
      detail::use_after_free(Op::Flush, self, SrcLoc{"(store buffer)", 0});
      return;
    }
    a->value_ = from_bits(bits);
  }

  SimLiveness live_;
  mutable T value_;                             // the newest value in modification order
  mutable detail::History* history_ = nullptr;  // cpp memory: the modification order, made at the first access
};

// Plain memory shared between fibers (a job's closure and result, LockLatch's
// flag): the pool's PlainCell, plus under the C++ memory model a race check of
// every access against the fibers' clocks (the constructor is a write).
template <class T>
class SimCell {
 public:
  template <class... A>
  explicit SimCell(A&&... args) : value_(std::forward<A>(args)...) {
    if (detail::cpp()) detail::cell_access(state_, true, SrcLoc{"(the cell's construction)", 0});
  }
  SimCell(const SimCell&) = delete;
  SimCell& operator=(const SimCell&) = delete;
  ~SimCell() { detail::free_cell(state_); }

  T& write(SrcLoc loc = SrcLoc::here()) noexcept {
    if (detail::cpp()) detail::cell_access(state_, true, loc);
    return value_;
  }
  T& read(SrcLoc loc = SrcLoc::here()) noexcept {
    if (detail::cpp()) detail::cell_access(state_, false, loc);
    return value_;
  }

 private:
  T value_;
  detail::CellState* state_ = nullptr;
};

class SimMutex {
 public:
  void lock(SrcLoc loc = SrcLoc::here()) {
    live.check(Op::Lock, this, loc);
    detail::mutex_lock(this, loc);
  }
  void unlock(SrcLoc loc = SrcLoc::here()) {
    live.check(Op::Unlock, this, loc);
    detail::mutex_unlock(this, loc);
  }
  bool try_lock(SrcLoc loc = SrcLoc::here());
  SimLiveness live;
  std::uint32_t owner = 0;                                  // fiber id + 1; 0: free (managed by the scheduler)
  std::shared_ptr<const std::vector<std::uint32_t>> clock;  // cpp memory: the last unlocker's clock
};

class SimCondVar {
 public:
  void wait(std::unique_lock<SimMutex>& lock, SrcLoc loc = SrcLoc::here()) {
    live.check(Op::Wait, this, loc);
    lock.mutex()->live.check(Op::Wait, lock.mutex(), loc);
    detail::cond_wait(this, lock.mutex(), loc);
  }
  void notify_one(SrcLoc loc = SrcLoc::here()) {
    live.check(Op::Notify, this, loc);
    detail::cond_notify(this, false, loc);
  }
  void notify_all(SrcLoc loc = SrcLoc::here()) {
    live.check(Op::Notify, this, loc);
    detail::cond_notify(this, true, loc);
  }
  SimLiveness live;  // checked again by the scheduler after each scheduling point
};

struct SimPlatform {
  template <class T>
  using Atomic = SimAtomic<T>;
  using Mutex = SimMutex;
  using CondVar = SimCondVar;
  template <class T>
  using Cell = SimCell<T>;

  static constexpr bool kTraced = true;
  static constexpr bool kCheckInvariants = true;
  static constexpr bool kCheckSyncInvariants = false;  // WSSTRESS_CHECK_SYNC (concept.hpp)

  static void fence(std::memory_order order, SrcLoc loc = SrcLoc::here()) noexcept {
    detail::point(Op::Fence, nullptr, loc);
    const MemoryModel mm = detail::memory();
    if (mm == MemoryModel::CPP) detail::cpp_fence(order);
    if (mm == MemoryModel::TSO && order == std::memory_order_seq_cst) detail::drain();
  }
  static void yield_now(SrcLoc loc = SrcLoc::here()) noexcept {
    detail::point(Op::Yield, nullptr, loc);
    if (detail::tso()) detail::drain();  // a system call
  }
  // The Injector's spin-waits: a plain yield would let DFS (which keeps
  // running the last fiber) and PCT (the highest priority) spin forever on a
  // write whose writer they never schedule.
  static void spin_loop_hint(SrcLoc loc = SrcLoc::here()) noexcept { detail::spin_wait(loc); }
  template <class Tag, class T>
  static T& thread_local_slot() noexcept {
    static const char key = 0;  // one object per (Tag, T): its address names the slot, no type-name compare
    return *static_cast<T*>(detail::tls(
        &key, [] { return static_cast<void*>(new T{}); }, [](void* p) { delete static_cast<T*>(p); }));
  }
  static std::uint64_t next_rng_seed() noexcept { return detail::next_seed(); }
  static std::size_t default_num_threads() noexcept { return 2; }
  static void on_event(const Event& e, SrcLoc loc) noexcept { detail::on_event(e, loc); }
  [[noreturn]] static void invariant_failed(const char* what, SrcLoc loc) noexcept {
    detail::invariant_failed(what, loc);
  }
  // The pool's abort ends the run with a bug verdict, not the process.
  [[noreturn]] static void abort_pool(const char* why, SrcLoc loc) noexcept { detail::pool_aborted(why, loc); }
  template <class F>
  static std::error_code spawn_thread(const pool::ThreadOptions& options, F&& body) {
    auto shared = std::make_shared<std::decay_t<F>>(std::forward<F>(body));
    detail::spawn(options.name.value_or("worker"), [shared] { (*shared)(); });
    return {};
  }
};

static_assert(pool::Platform<SimPlatform>);

}  // namespace wsstress::sim

namespace wsstress::core {

// Outside threads and sleeps in the simulator: fibers and virtual time.
template <>
struct Env<sim::SimPlatform> {
  using Thread = std::uint32_t;
  template <class F>
  static Thread start(F&& f) {
    auto shared = std::make_shared<std::decay_t<F>>(std::forward<F>(f));
    return sim::detail::spawn("outside", [shared] { (*shared)(); });
  }
  static void join(Thread& t) { sim::detail::join(t); }
  static void sleep_us(std::uint64_t us) { sim::detail::sleep_ns(us * 1000); }
  static void yield() { sim::SimPlatform::yield_now(); }
  static bool reorders_memory() { return sim::detail::memory() != sim::MemoryModel::SC; }
  // A fiber holds no OS thread to join: the workers keep the default spawn.
  struct JoinedWorkers {
    template <class M>
    typename pool::BasicThreadPoolBuilder<sim::SimPlatform, M>::SpawnHandler handler() {
      return {};
    }
    void join_all() noexcept {}
  };
};

}  // namespace wsstress::core
