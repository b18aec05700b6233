// SPDX-License-Identifier: MIT OR Apache-2.0
// schedule_fuzzer: the input bytes drive the deterministic simulator - the
// scenario, its sizes and seed, the program (for the program scenario), and
// then every scheduling and store-buffer decision, one byte each - so
// libFuzzer's coverage of the pool's own code (instantiated on SimPlatform)
// steers toward new interleavings of the sleep handshake. The oracle is the
// simulator's: a lost wake-up, a livelock, a broken pool invariant or a failed
// scenario check ends the run with the reproducer, which replays exactly.
// --mutant (default none) puts a historical bug back; --scenario pins the
// scenario (byte 0 then picks nothing): options after -ignore_remaining_args=1.
// A program whose work is too large for this target (schedule_input_is_too_long)
// is skipped: its run would take tens of thousands of points.
//
// Feedback beyond the code's edges (after "Greybox
// Fuzzing for Concurrency Testing", ASPLOS 2024): libFuzzer's extra counters
// count, for each pool event, which event another fiber reported just before
// it (the interleaving's shape at the grain of rayon-core's log events), and
// each way out of sleep() (latch, JEC moved, injected job, asleep, awoken) per
// worker index with that predecessor. Code coverage alone saturates long
// before the gate-5 races: every gate is reached in every run.
#include <cstdint>
#include <string>

#include "simulator_target.hpp"
#include "wsstress/sim/observer.hpp"

namespace {
std::string g_mutant = "none";
std::string g_scenario;  // empty: byte 0 picks
wsstress::sim::SimRunFn g_run = nullptr;

using wsstress::pool::EventKind;
constexpr std::size_t kKinds = 32;  // EventKind fits in five bits
constexpr std::size_t kPairs = kKinds * kKinds;
constexpr std::size_t kOutcomes = 4 * kKinds * 8;  // worker index % 4, predecessor, outcome

// Read by libFuzzer (which clears them before each input); plain bytes the
// standalone driver ignores.
__attribute__((used, section("__libfuzzer_extra_counters"))) std::uint8_t g_extra[kPairs + kOutcomes];

std::uint32_t g_last_fiber = ~0u;
unsigned g_last_kind = 0;

int outcome_of(EventKind k) {
  switch (k) {
    case EventKind::ThreadSleepInterruptedByLatch: return 0;
    case EventKind::ThreadSleepInterruptedByJob: return 1;
    case EventKind::ThreadSleepInterruptedByInjected: return 2;
    case EventKind::ThreadSleeping: return 3;
    case EventKind::ThreadAwoken: return 4;
    default: return -1;
  }
}

void bump(std::size_t i) {
  if (g_extra[i] != 0xff) ++g_extra[i];
}

void observe(std::uint32_t fiber, const wsstress::pool::Event& e) {
  const unsigned kind = static_cast<unsigned>(e.kind) % kKinds;
  if (fiber != g_last_fiber && g_last_fiber != ~0u) {
    bump(g_last_kind * kKinds + kind);
    if (const int o = outcome_of(e.kind); o >= 0) bump(kPairs + ((e.worker % 4) * kKinds + g_last_kind) * 8 + o);
  }
  g_last_fiber = fiber;
  g_last_kind = kind;
}
}  // namespace

// Its options: simulator_target_options (simulator_target.hpp).
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  const auto options = wsstress::fuzz::simulator_target_options(argc, argv, "schedule_fuzzer");
  g_mutant = options.mutant;
  g_run = wsstress::sim::find_sim_runner(g_mutant);  // every catalog mutant has one
  g_scenario = options.scenario;
  wsstress::sim::set_event_observer(&observe);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace wsstress;
  const sim::ScheduleInput in = sim::decode_schedule_input(data, size, g_mutant, g_scenario);
  if (sim::schedule_input_is_too_long(in)) return -1;  // not run, not kept in the corpus
  g_last_fiber = ~0u;
  const sim::SimResult r = g_run(in.spec, in.config);
  if (r.verdict.kind == core::VerdictKind::Pass) return 0;
  fuzz::report_finding("schedule", in, r, g_mutant, g_scenario);
}
