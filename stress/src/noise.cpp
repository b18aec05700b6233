// NoisyPlatform's hooks: noise at race windows, the worker table, progress and
// invariant failures. See noise.hpp.
#include "wsstress/stress/noise.hpp"

#include <sched.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>

namespace wsstress::stress {

const char* to_string(Phase p) noexcept {
  switch (p) {
    case Phase::Active: return "active";
    case Phase::Idle: return "idle";
    case Phase::Sleepy: return "sleepy";
    case Phase::Sleeping: return "sleeping";
    case Phase::Exited: return "exited";
  }
  return "?";
}

// ---- worker table ----

WorkerTable& WorkerTable::get() {
  // Leaked on purpose: detached workers report until the process ends.
  static auto* table = new WorkerTable;
  return *table;
}

WorkerSlot* WorkerTable::acquire(const void* registry, std::uint32_t index) {
  std::lock_guard<std::mutex> g(m_);
  WorkerSlot* slot = nullptr;
  for (WorkerSlot& s : slots_) {
    if (!s.in_use.load(std::memory_order_relaxed)) {
      slot = &s;
      break;
    }
  }
  if (slot == nullptr) slot = &slots_.emplace_back();
  slot->registry.store(registry, std::memory_order_relaxed);
  slot->index.store(index, std::memory_order_relaxed);
  slot->phase.store(Phase::Active, std::memory_order_relaxed);
  slot->rounds.store(0, std::memory_order_relaxed);
  slot->latch.store(0, std::memory_order_relaxed);
  slot->gate.store(0, std::memory_order_relaxed);
  slot->in_use.store(true, std::memory_order_release);
  return slot;
}

void WorkerTable::release(WorkerSlot* slot) {
  std::lock_guard<std::mutex> g(m_);
  slot->phase.store(Phase::Exited, std::memory_order_relaxed);
  slot->in_use.store(false, std::memory_order_release);
}

void WorkerTable::clear() {
  std::lock_guard<std::mutex> g(m_);
  for (WorkerSlot& s : slots_) s.in_use.store(false, std::memory_order_relaxed);
}

void WorkerTable::for_each(const std::function<void(const WorkerSlot&)>& f) {
  std::lock_guard<std::mutex> g(m_);
  for (const WorkerSlot& s : slots_) {
    if (s.in_use.load(std::memory_order_acquire)) f(s);
  }
}

// ---- noise ----

namespace {
std::atomic<int> g_level{0};
std::atomic<std::uint64_t> g_seed{0};
std::atomic<std::uint64_t> g_epoch{0};  // bumped by configure: threads reseed
std::atomic<std::uint64_t> g_thread_counter{0};
std::atomic<std::uint64_t> g_progress{0};
std::atomic<InvariantHandler> g_invariant_handler{nullptr};

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

struct ThreadNoise {
  std::uint64_t epoch = ~std::uint64_t{0};
  std::uint64_t state = 0;
  std::uint64_t next() {
    const std::uint64_t e = g_epoch.load(std::memory_order_relaxed);
    if (e != epoch) {
      // Each thread draws from its own stream of the run's seed, numbered in
      // the order threads first reach a noise point.
      epoch = e;
      state = g_seed.load(std::memory_order_relaxed) ^
              (0x2545f4914f6cdd1dull * (1 + g_thread_counter.fetch_add(1, std::memory_order_relaxed)));
    }
    return splitmix(state);
  }
};

thread_local ThreadNoise t_noise;
thread_local WorkerSlot* t_slot = nullptr;

void pause_us(unsigned us) {
  timespec ts{0, static_cast<long>(us) * 1000};
  nanosleep(&ts, nullptr);
}
}  // namespace

void Noise::configure(int level, std::uint64_t seed) noexcept {
  g_level.store(level, std::memory_order_relaxed);
  g_seed.store(seed, std::memory_order_relaxed);
  g_thread_counter.store(0, std::memory_order_relaxed);
  g_epoch.fetch_add(1, std::memory_order_relaxed);
}

int Noise::level() noexcept { return g_level.load(std::memory_order_relaxed); }

void Noise::point(unsigned weight) noexcept {
  const int level = g_level.load(std::memory_order_relaxed);
  if (level <= 0) return;
  const std::uint64_t r = t_noise.next();
  // Level 1: yield now and then. Level 2: more yields, short sleeps.
  // Level 3: frequent yields and sleeps up to 100 us.
  const unsigned yield_in = level == 1 ? 8 : level == 2 ? 4 : 2;
  const unsigned sleep_in = level == 1 ? 0 : level == 2 ? 32 : 8;
  const unsigned max_us = level == 2 ? 20 : 100;
  const std::uint64_t pick = r % 1024;
  if (sleep_in != 0 && pick * sleep_in < 1024u * weight) {
    pause_us(1 + static_cast<unsigned>((r >> 20) % max_us));
  } else if (pick * yield_in < 1024u * weight) {
    sched_yield();
  }
}

void Progress::tick() noexcept { g_progress.fetch_add(1, std::memory_order_relaxed); }
std::uint64_t Progress::read() noexcept { return g_progress.load(std::memory_order_relaxed); }

void set_invariant_handler(InvariantHandler handler) noexcept {
  g_invariant_handler.store(handler, std::memory_order_release);
}

// ---- the platform's hooks ----

void NoisyPlatform::on_event(const Event& e, SrcLoc) noexcept {
  WorkerSlot* slot = t_slot;
  switch (e.kind) {
    case EventKind::ThreadStart:
      t_slot = WorkerTable::get().acquire(e.registry, e.worker);
      return;
    case EventKind::ThreadTerminate:
      if (slot != nullptr) WorkerTable::get().release(slot);
      t_slot = nullptr;
      return;
    case EventKind::ThreadIdle:
      if (slot) {
        slot->latch.store(e.a, std::memory_order_relaxed);
        slot->rounds.store(0, std::memory_order_relaxed);
        slot->gate.store(0, std::memory_order_relaxed);
        slot->phase.store(Phase::Idle, std::memory_order_relaxed);
      }
      Noise::point();
      return;
    case EventKind::ThreadIdleRound:
      if (slot) slot->rounds.store(static_cast<std::uint32_t>(e.a), std::memory_order_relaxed);
      return;
    case EventKind::ThreadSleepy:
      if (slot) slot->phase.store(Phase::Sleepy, std::memory_order_relaxed);
      Noise::point(2);
      return;
    case EventKind::ThreadSleepGate:
      if (slot) slot->gate.store(static_cast<std::uint8_t>(e.a), std::memory_order_relaxed);
      Noise::point(2);
      return;
    case EventKind::ThreadSleeping:
      if (slot) slot->phase.store(Phase::Sleeping, std::memory_order_relaxed);
      Noise::point(4);
      return;
    case EventKind::ThreadAwoken:
    case EventKind::ThreadSleepInterruptedByLatch:
    case EventKind::ThreadSleepInterruptedByJob:
    case EventKind::ThreadSleepInterruptedByInjected:
      if (slot) {
        slot->phase.store(Phase::Idle, std::memory_order_relaxed);
        slot->gate.store(0, std::memory_order_relaxed);
      }
      return;
    case EventKind::ThreadFoundWork:
    case EventKind::ThreadSawLatchSet:
      if (slot) slot->phase.store(Phase::Active, std::memory_order_relaxed);
      Progress::tick();
      return;
    case EventKind::LatchSet:
      // Between a latch's set and the wake-up of its owner: the window of the
      // cross-pool keep-alive and of the late is_blocked lock.
      Noise::point(4);
      return;
    case EventKind::JobsInjected:
    case EventKind::JobBroadcast:
    case EventKind::ThreadNotify:
      Noise::point(2);
      return;
    case EventKind::JobPushed:
      Noise::point();
      return;
    case EventKind::JobPopped:
    case EventKind::JobStolen:
    case EventKind::JobUninjected:
    case EventKind::JobThreadCounts:
      return;
  }
}

void NoisyPlatform::invariant_failed(const char* what, SrcLoc loc) noexcept {
  if (InvariantHandler h = g_invariant_handler.load(std::memory_order_acquire)) h(what, loc);
  std::fprintf(stderr, "wsstress: pool invariant violated at %s:%u: %s\n", loc.file, loc.line, what);
  std::abort();
}

}  // namespace wsstress::stress
