// SPDX-License-Identifier: MIT OR Apache-2.0
// NoisyPlatform's hooks: noise at race windows, the worker table, progress and
// invariant failures. See noise.hpp.
#include "wsstress/threads/noise.hpp"

#include <sched.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>

#include "wsstress/pool/platform/splitmix64.hpp"
#include "wsstress/threads/parallelism.hpp"

namespace wsstress::threads {

// ---- noise ----

namespace {
std::atomic<int> g_level{0};
std::atomic<std::uint64_t> g_seed{0};
std::atomic<std::uint64_t> g_epoch{0};  // bumped by configure: threads reseed
std::atomic<std::uint64_t> g_thread_counter{0};
std::atomic<InvariantHandler> g_invariant_handler{nullptr};

struct ThreadNoise {
  std::uint64_t epoch = ~std::uint64_t{0};
  SplitMix64 rng;
  SplitMix64 spurious_rng;  // a stream of its own: the other draws are as before spurious wake-ups
  void reseed_if_new_run() {
    const std::uint64_t e = g_epoch.load(std::memory_order_relaxed);
    if (e == epoch) return;
    // Each thread draws from its own stream of the run's seed, numbered in
    // the order threads first reach a noise point.
    epoch = e;
    const std::uint64_t seed = g_seed.load(std::memory_order_relaxed) ^
                               (0x2545f4914f6cdd1dull * (1 + g_thread_counter.fetch_add(1, std::memory_order_relaxed)));
    rng = SplitMix64(seed);
    spurious_rng = SplitMix64(seed ^ 0x5b0f2a9c3e7d4461ull);
  }
  std::uint64_t next() {
    reseed_if_new_run();
    return rng.next();
  }
  std::uint64_t next_spurious() {
    reseed_if_new_run();
    return spurious_rng.next();
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

bool Noise::spurious() noexcept {
  const int level = g_level.load(std::memory_order_relaxed);
  if (level <= 0) return false;
  const unsigned in = level == 1 ? 16 : level == 2 ? 8 : 4;
  return t_noise.next_spurious() % in == 0;
}

void set_invariant_handler(InvariantHandler handler) noexcept {
  g_invariant_handler.store(handler, std::memory_order_release);
}

// ---- the platform's hooks ----

// How much noise each event's race window gets (0: none).
static unsigned noise_weight(EventKind kind) noexcept {
  switch (kind) {
    case EventKind::ThreadIdle:
    case EventKind::JobPushed: return 1;
    case EventKind::ThreadSleepy:
    case EventKind::ThreadSleepGate:
    case EventKind::JobsInjected:
    case EventKind::JobBroadcast:
    case EventKind::ThreadNotify: return 2;
    // Between registering as sleeping and waiting; and between a latch's set
    // and the wake-up of its owner: the window of the cross-pool keep-alive
    // and of the late is_blocked lock.
    case EventKind::ThreadSleeping:
    case EventKind::LatchSet: return 4;
    default: return 0;
  }
}

void NoisyPlatform::on_event(const Event& e, SrcLoc) noexcept {
  t_slot = apply_event(t_slot, e);
  parallelism_event(e);
  if (e.kind == EventKind::ThreadFoundWork || e.kind == EventKind::ThreadSawLatchSet) Progress::tick();
  if (const unsigned weight = noise_weight(e.kind)) Noise::point(weight);
}

void NoisyPlatform::invariant_failed(const char* what, SrcLoc loc) noexcept {
  if (InvariantHandler h = g_invariant_handler.load(std::memory_order_acquire)) h(what, loc);
  std::fprintf(stderr, "wsstress: pool invariant violated at %s:%u: %s\n", loc.file, loc.line, what);
  std::abort();
}

}  // namespace wsstress::threads
