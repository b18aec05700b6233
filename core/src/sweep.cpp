// SPDX-License-Identifier: MIT OR Apache-2.0
// The seed loop shared by `run` (real threads) and `sim`. See sweep.hpp.
#include "wsstress/core/sweep.hpp"

#include <signal.h>
#include <time.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>

namespace wsstress::core {

std::uint64_t seeds_in_shard(const SeedRange& seeds, const Shard& shard) noexcept {
  const std::uint64_t span = seeds.to - seeds.from;  // an inclusive range holds span + 1 seeds
  // All 2^64 seeds in one shard: one more than a count can hold (the CLI
  // refuses it); saturate rather than wrap to zero.
  if (span == UINT64_MAX && shard.count == 1) return UINT64_MAX;
  return span / shard.count + ((span % shard.count) >= shard.index ? 1 : 0);
}

SweepOutcome sweep(const SweepPlan& plan, const std::function<bool(std::uint64_t)>& run_seed,
                   const ProgressFn& progress) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  SweepOutcome out;
  out.planned = seeds_in_shard(plan.seeds, plan.shard);
  Clock::time_point last_progress = start - std::chrono::seconds(1);
  for (std::uint64_t k = 0; k < out.planned; ++k) {
    if (plan.max_seconds > 0 && elapsed() >= plan.max_seconds) {
      out.budget_exhausted = true;
      break;
    }
    if ((out.stopped_by_signal = StopSignals::requested()) != 0) break;
    const std::uint64_t seed = plan.seeds.from + plan.shard.index + k * plan.shard.count;
    const bool failed = run_seed(seed);
    ++out.runs;
    if (progress && Clock::now() - last_progress >= std::chrono::milliseconds(100)) {
      last_progress = Clock::now();
      progress(out.runs, out.planned, elapsed());
    }
    if (failed && plan.stop_on_failure) break;
  }
  out.elapsed_s = elapsed();
  if (progress) progress(out.runs, out.planned, out.elapsed_s);
  return out;
}

namespace {
std::atomic<int> g_stop_signal{0};
std::atomic<std::int64_t> g_first_ns{0};  // CLOCK_MONOTONIC of the first signal
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};
// A second signal this soon after the first is the same request: coreutils'
// `timeout` and a terminal's Ctrl-C reach both the process and its group.
constexpr std::int64_t kSameRequestNs = 1'000'000'000;
struct sigaction g_previous_stop[3];
volatile sig_atomic_t g_installed[3];

std::int64_t monotonic_ns() noexcept {  // clock_gettime is async-signal-safe
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Async-signal-safe: atomics, clock_gettime, signal() and raise(). The first
// signal is kept; one within kSameRequestNs of it is the same request and is
// dropped; a later one ends the process as the signal would.
extern "C" void on_stop_signal(int sig) {
  const int saved_errno = errno;
  int none = 0;
  if (g_stop_signal.compare_exchange_strong(none, sig, std::memory_order_relaxed)) {
    g_first_ns.store(monotonic_ns(), std::memory_order_relaxed);
    errno = saved_errno;
    return;
  }
  const std::int64_t first = g_first_ns.load(std::memory_order_relaxed);
  if (first == 0 || monotonic_ns() - first < kSameRequestNs) {
    errno = saved_errno;
    return;
  }
  for (int i = 0; i < 3; ++i) {
    if (g_installed[i]) signal(kStopSignals[i], SIG_DFL);
  }
  raise(sig);
}
}  // namespace

StopSignals::StopSignals() {
  g_stop_signal.store(0, std::memory_order_relaxed);
  g_first_ns.store(0, std::memory_order_relaxed);
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sa.sa_flags = SA_RESTART;  // blocking calls go on; the sweep looks between seeds
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 3; ++i) {
    sigaction(kStopSignals[i], nullptr, &g_previous_stop[i]);
    // An ignored signal stays ignored (nohup, a script's background job).
    g_installed[i] = g_previous_stop[i].sa_handler != SIG_IGN;
    if (g_installed[i]) sigaction(kStopSignals[i], &sa, nullptr);
  }
}

StopSignals::~StopSignals() {
  for (int i = 0; i < 3; ++i) sigaction(kStopSignals[i], &g_previous_stop[i], nullptr);
}

int StopSignals::requested() noexcept { return g_stop_signal.load(std::memory_order_relaxed); }

std::string signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
  }
  return "signal " + std::to_string(sig);
}

VerdictKind worse(VerdictKind a, VerdictKind b) noexcept {
  auto rank = [](VerdictKind k) {
    switch (k) {
      case VerdictKind::Pass: return 0;
      case VerdictKind::Bug: return 1;
      case VerdictKind::Crash: return 2;
      case VerdictKind::Hang: return 3;
      case VerdictKind::Internal: return 4;
    }
    return 4;
  };
  return rank(a) >= rank(b) ? a : b;
}

}  // namespace wsstress::core
