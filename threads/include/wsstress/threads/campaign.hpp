// SPDX-License-Identifier: MIT OR Apache-2.0
// A campaign: one scenario over a range of seeds (optionally one shard of it),
// with one mutant, on real threads. It returns a report - the data every
// renderer (text, JSON) works from - and never prints: progress and fatal
// outcomes (a hang, a broken invariant) go to hooks the caller provides. A
// fatal outcome cannot be recovered from in-process (the pool's threads are
// stuck or its state is corrupt), so that hook must end the process.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "wsstress/core/campaign_spec.hpp"
#include "wsstress/core/scenario.hpp"
#include "wsstress/core/sweep.hpp"
#include "wsstress/threads/parallelism.hpp"

namespace wsstress::threads {

// The real-thread engine speaks core's vocabulary: specs, verdicts, seeds, dumps.
using namespace core;

struct SeedFailure {
  std::uint64_t seed = 0;
  Verdict verdict;
  std::string replay;     // the command line that runs this seed again
  double at_seconds = 0;  // since the campaign started
};

struct CampaignReport {
  CampaignSpec spec;
  std::uint64_t seeds_planned = 0;
  std::uint64_t runs = 0;
  std::vector<SeedFailure> failures;
  double elapsed_s = 0;
  bool budget_exhausted = false;  // stopped by max_seconds before the last seed
  int stopped_by_signal = 0;      // stopped by SIGINT/SIGTERM/SIGHUP before the last seed (StopSignals)
  ParallelismFigure parallelism;  // a figure, not a verdict (parallelism.hpp)
  // With spec.control: the clean pool's figure over the same seeds, and
  // whether this run's rate is above it (rate_above at 1 %, p its p-value).
  std::optional<ParallelismFigure> control;
  bool parallelism_above_control = false;
  double parallelism_p = 1;
  VerdictKind overall() const;
};

struct CampaignHooks {
  // Called at most ten times a second, and once at the end.
  ProgressFn progress;
  // Called before each seed runs (the ThreadSanitizer runner names the seed in
  // flight, since a TSan report ends the process from inside the pool).
  std::function<void(std::uint64_t seed)> seed_started;
  // A hang, a broken invariant or (with crash_is_fatal) a crash: `report`
  // ends with that failure. Must not return.
  std::function<void(const CampaignReport& report)> fatal;
  // A crash signal (SIGSEGV, SIGBUS, SIGABRT) while a seed runs: true ends the
  // campaign through `fatal` with a `crash` failure (wsstress run); false
  // passes the signal on to the handler in place before the campaign (a
  // fuzzing engine, which saves its input). The replay line is written first
  // either way.
  bool crash_is_fatal = false;
};

std::string replay_command(const std::string& program, const RunSpec& spec, std::uint64_t seed);

// Runs a campaign. One campaign runs at a time in a process (its watchdog and
// handlers are the process's); starting a second throws std::logic_error.
CampaignReport run_campaign(const CampaignSpec& spec, const CampaignHooks& hooks);

// A campaign kept up across calls, for a fuzz target whose engine calls it
// once per input: its watchdog and handlers start once, not per
// input, and it samples no parallelism figure. Each run() is one seed of one
// spec (the spec may change between calls; spec.repeat and the sweep's
// fields are not used); the watchdog counts only while a run is in flight.
class ResidentCampaign {
 public:
  ResidentCampaign(std::string program, CampaignHooks hooks);
  ~ResidentCampaign();
  ResidentCampaign(const ResidentCampaign&) = delete;
  ResidentCampaign& operator=(const ResidentCampaign&) = delete;
  // The report of one run of `seed` (runs 1, a failure if it failed); a
  // fatal outcome goes to hooks.fatal instead.
  CampaignReport run(const RunSpec& spec, std::uint64_t seed);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace wsstress::threads
