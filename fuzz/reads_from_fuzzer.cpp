// SPDX-License-Identifier: MIT OR Apache-2.0
// reads_from_fuzzer: reads-from fuzzing (RFF: Wolff, Shi, Zhang and
// Roychoudhury, "Greybox Fuzzing for Concurrency Testing", ASPLOS 2024; issue
// #42) under libFuzzer. An input is an abstract schedule
// (sim/include/wsstress/sim/fuzz_input.hpp): schedule_fuzzer's header (the
// scenario, memory model, sizes and walk seed), then reads-from constraints
// "the load at pool line R observes the store from pool line W" (or not),
// which the "reads-from" strategy steers the simulator toward
// (wsstress/sim/reads_from.hpp). Its features are libFuzzer's coverage of the
// pool's code plus one extra counter per reads-from pair the run's loads
// showed (hashed into kPairSlots), so an input that shows a new pair is kept,
// as in RFF. Its mutator is RFF's (LLVMFuzzerCustomMutator, the same
// ReadsFromPairs::mutate as `wsstress fuzz --target schedule --reads-from`):
// add a constraint drawn from the pairs this process has seen (a rare one
// wanted, a common one forbidden), drop, negate or retarget one, sometimes
// new header flags, and always a fresh walk seed; libFuzzer's byte mutations
// are not used, since a random 32-bit site would name no pool line. Byte 0
// stays the seed input's (the seed corpus holds one per scenario) unless
// --scenario pins the scenario. A failing run aborts with the verdict and the
// command that converts the input into an exact reproducer.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "simulator_target.hpp"

namespace {
std::string g_mutant = "none";
std::string g_scenario;                 // empty: byte 0 picks
wsstress::sim::ReadsFromPairs g_pairs;  // every run's pairs in this process: the mutator draws from them

constexpr std::size_t kPairSlots = 1u << 12;  // a few hundred pairs per scenario: few collisions
// Read by libFuzzer (which clears them before each input); plain bytes the
// standalone driver ignores.
__attribute__((used, section("__libfuzzer_extra_counters"))) std::uint8_t g_extra[kPairSlots];

// A pair's counter: set once per run whatever the loads that showed it
// (RFF keeps an input for a pair never seen, not for a count).
void mark(std::uint64_t pair) { g_extra[wsstress::SplitMix64::mix(pair) % kPairSlots] = 1; }
}  // namespace

// Its options: simulator_target_options (simulator_target.hpp).
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  const auto options = wsstress::fuzz::simulator_target_options(argc, argv, "reads_from_fuzzer");
  g_mutant = options.mutant;
  g_scenario = options.scenario;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace wsstress;
  const sim::ReadsFromInput in = sim::decode_reads_from_input(data, size, g_mutant, g_scenario);
  if (sim::schedule_input_is_too_long(in.schedule)) return -1;  // not run, not kept in the corpus
  sim::ReadsFromRun walk;
  walk.name_site = [](sim::SiteId s, const char* file, unsigned line) { g_pairs.name_site(s, file, line); };
  const sim::SimResult r = sim::run_reads_from_input(in, walk);
  for (const std::uint64_t p : walk.pairs) mark(p);
  g_pairs.note(walk.pairs);
  if (r.verdict.kind == core::VerdictKind::Pass) return 0;
  std::string cs;
  for (const sim::ReadsFrom& c : in.constraints) cs += (cs.empty() ? "" : ", ") + g_pairs.describe(c);
  fuzz::report_finding("reads_from", in.schedule, r, g_mutant, g_scenario,
                       {"constraints: " + (cs.empty() ? std::string("none (the walk alone)") : cs)});
}

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned seed) {
  wsstress::SplitMix64 rng(seed);
  const std::vector<std::uint8_t> out = wsstress::sim::mutate_reads_from_input(
      data, size, g_scenario, g_pairs, rng, wsstress::sim::ReadsFromOptions{}.max_constraints);
  const std::size_t n = std::min(out.size(), max_size);  // a shorter input drops its last constraints
  std::copy(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n), data);
  return n;
}
