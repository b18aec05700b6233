// SPDX-License-Identifier: MIT OR Apache-2.0
// Reads-from fuzzing (RFF): Wolff, Shi, Zhang and Roychoudhury, "Greybox
// Fuzzing for Concurrency Testing", ASPLOS 2024. Where
// the schedule fuzzer's input is a stream of choices (one byte a decision),
// RFF's input is an abstract schedule: a few constraints "a load at read site
// R observes the store from write site W" (or, negated, "does not"); the
// decisions no constraint speaks of stay a seeded random walk. Its feedback is
// the reads-from pairs (R, W) a run showed: an input that shows a new pair is
// kept, and mutations add a constraint drawn from the pairs seen (a rare pair
// wanted, a common one forbidden), drop one or negate one.
//
// The steering is the strategy's (strategies/reads_from.cpp, registered as
// "reads-from"): a fiber about to load at a constrained site whose location's
// newest store is not the wanted one (or is the forbidden one) is postponed
// while another fiber can run, and a fiber about to make the wanted store runs
// first; under the C++ model the load picks the wanted store among those it
// may read. Blocking forces the choice where the postponement cannot hold:
// when every runnable fiber is postponed (the others wait on the sleep path's
// condvar, a mutex, a join, or sleep) the walk runs one anyway, and a fiber
// postponed for kReadsFromPatience decisions, or steered to an older store
// (cpp) for as many loads in a row, is let go, so neither a spinning fiber
// nor a spin loop fed a stale value forever makes a livelock of its own. A site is a pool line (file, line); a load
// observes, under SC and TSO, the newest store executed at its location (a
// store still in a TSO buffer counts: the approximation RFF's own scheduler
// makes), and under cpp the store the memory model gave it. The strategy
// keys the write sites by address and is not told when an atomic dies, so an
// atomic that takes a freed one's address inherits its sites: where the
// allocator reuses addresses differently from one process to the next
// (address-space randomisation; seen on join and cross), a loop's pairs, and
// so its corpus, can differ between processes with the same seed. A finding's
// reproducer is exact all the same. (Telling the strategy from SimAtomic's
// destructor made it deterministic, but changed the stale stack contents a
// stored use-after-free input reads: fuzz.cli.tso_input_catches_deque_pop_no_fence.)
//
// Two drivers share the feedback and the mutations (ReadsFromPairs below),
// and run an abstract schedule as the same bytes, a reads_from_fuzzer input
// (fuzz_input.hpp: the schedule fuzzer's header, then the constraints): the
// loop (src/sim/reads_from.cpp, `wsstress fuzz --target schedule
// --reads-from`) in this process, which picks what to mutate by its rarest
// pair; and libFuzzer's reads_from_fuzzer (fuzz/), whose custom mutator is
// the same mutation and whose features are its code coverage plus the pairs.
// Each mutation draws a fresh walk seed, so a finding is a reproducer like
// the schedule fuzzer's.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <unordered_map>

#include "wsstress/pool/platform/splitmix64.hpp"
#include "wsstress/sim/engine.hpp"

namespace wsstress::sim {

// A pool line, as a number stable across runs and builds of one source tree:
// a hash of the file's name (not its folder) and the line. 0: the value an
// atomic had before any store the run saw.
using SiteId = std::uint32_t;
inline constexpr StrategyKind kReadsFromStrategy{"reads-from"};  // strategies/reads_from.cpp
SiteId site_id(const char* file, unsigned line) noexcept;

struct ReadsFrom {
  SiteId read = 0, write = 0;
  bool negated = false;  // the load must not observe that store
};

// The strategy's link to the loop: the constraints a run steers toward, and
// what it saw. SimConfig::reads_from points at one (null: a plain random walk,
// as when a reproducer's replay hands over to the strategy).
struct ReadsFromRun {
  std::vector<ReadsFrom> constraints;
  // Out: every (read << 32 | write) pair the run's loads showed, in order
  // (repeats included), and how many times blocking forced a postponed load.
  std::vector<std::uint64_t> pairs;
  std::uint64_t forced = 0;
  // Out: a readable name for each site seen ("sleep.hpp:245").
  std::function<void(SiteId, const char*, unsigned)> name_site;
};

// What one mutation works on: the header's memory model and sizes and the
// constraints (the walk seed is drawn afresh each time).
struct AbstractSchedule {
  std::uint8_t flags = 0;  // the schedule header's byte 1 (fuzz_input.hpp)
  std::vector<ReadsFrom> constraints;
};

// What RFF learns across runs and how it mutates from it: every pair seen and
// how many loads showed it, the write sites each read site was seen to
// observe, and the sites' names ("sleep.hpp:245").
class ReadsFromPairs {
 public:
  // Counts one run's pairs (ReadsFromRun::pairs); returns those no run showed
  // before, in the order seen.
  std::vector<std::uint64_t> note(const std::vector<std::uint64_t>& pairs);
  std::uint64_t count(std::uint64_t pair) const;  // loads that showed it (0: never seen)
  std::size_t size() const { return seen_.size(); }
  // RFF's mutations, one a call: add a constraint (a rare pair seen wanted, a
  // common one forbidden), drop one, negate one, or retarget one to another
  // store its read site was seen to observe; one time in eight new flags.
  // At most max_constraints (0: the constraints are left alone).
  void mutate(AbstractSchedule& s, SplitMix64& rng, unsigned max_constraints);
  // For ReadsFromRun::name_site, so that describe() names sites.
  void name_site(SiteId s, const char* file, unsigned line);
  std::string describe(const ReadsFrom& c) const;  // "R <- W" / "R </- W"

 private:
  void add_constraint(AbstractSchedule& s, SplitMix64& rng);
  std::string name(SiteId s) const;

  std::unordered_map<std::uint64_t, std::uint64_t> seen_;      // pair -> loads that showed it
  std::vector<std::uint64_t> pairs_;                           // the keys of seen_, in the order seen
  std::unordered_map<SiteId, std::vector<SiteId>> writes_of_;  // read site -> write sites seen
  std::unordered_map<SiteId, std::string> names_;
};

// Decisions a load stays postponed before it is let go.
inline constexpr std::uint64_t kReadsFromPatience = 64;

struct ReadsFromOptions {
  std::string mutant = "none";
  std::string scenario;    // one of schedule_fuzz_scenarios(); empty: the mutant's catalog scenario
  std::uint64_t seed = 1;  // the loop's generator: corpus picks, mutations, walk seeds
  std::uint64_t max_schedules = 1000;
  double max_seconds = 0;  // 0: no time limit
  // Constraints an abstract schedule may hold; 0 leaves the walk alone (the
  // loop without RFF's steering: a seeded random walk per schedule, the
  // ablation the measurement compares with).
  unsigned max_constraints = 4;
};

struct ReadsFromResult {
  bool found = false;
  std::uint64_t schedules = 0;  // run, the failing one included
  double seconds = 0;
  std::size_t corpus = 0;                // abstract schedules kept
  std::size_t pairs = 0;                 // distinct reads-from pairs seen
  std::uint64_t forced = 0;              // postponements blocking overrode, over every run
  Repro repro;                           // the failing run's (exact), when found
  std::vector<std::string> constraints;  // the failing input's, as "R <- W" / "R </- W"
  std::vector<std::uint8_t> input;       // the failing abstract schedule as a reads_from_fuzzer input
};

// The scenario the loop runs: `scenario` if given, else the mutant's catalog
// scenario (inject for the clean pool).
std::string reads_from_scenario(const std::string& mutant, const std::string& scenario);

// Runs the loop until a schedule fails or the budget is spent; `progress`
// (may be empty) is told the schedules run so far every 100.
ReadsFromResult reads_from_fuzz(const ReadsFromOptions& o,
                                const std::function<void(const ReadsFromResult&)>& progress = {});

}  // namespace wsstress::sim
