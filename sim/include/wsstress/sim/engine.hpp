// SPDX-License-Identifier: MIT OR Apache-2.0
// The simulator engine over the scenarios: one run (a scenario, a seed, a
// strategy, a memory model, a mutant), the bounded depth-first search, the
// reproducer file, and the shrinker.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "wsstress/core/campaign_spec.hpp"
#include "wsstress/core/result.hpp"
#include "wsstress/core/scenarios.hpp"
#include "wsstress/sim/sim.hpp"

namespace wsstress::sim {

using SimRunFn = SimResult (*)(const core::RunSpec& spec, const SimConfig& config);

// The simulator runner of a catalog mutant ("none": the clean pool), or null.
SimRunFn find_sim_runner(const std::string& mutant);

// The simulator runs every mutant with a two-round idle spin instead of 32:
// the sleep protocol and its gates are the same, and a schedule reaches them
// in tens of steps instead of hundreds.
template <class M>
struct ShortSpin : M {
  static constexpr unsigned kRoundsUntilSleepy = 2;
};

template <class M0>
SimResult sim_run_one(const core::RunSpec& spec, const SimConfig& config) {
  using M = ShortSpin<M0>;
  return simulate(config, [&]() -> core::Verdict {
    core::Ctx<SimPlatform, M> c(spec, config.seed);
    return core::run_scenario(c);
  });
}

// ---- bounded depth-first search ----

struct DfsReport {
  std::uint64_t executions = 0;
  std::uint64_t steps = 0;
  bool exhausted = false;  // every schedule within the bound was run
  std::optional<SimResult> failure;
  SimConfig failing_config;  // with `forced` = the failing schedule
};

// Explores every schedule with at most config.preemption_bound preemptions
// (a switch away from a runnable fiber, or a TSO flush), until one fails, the
// space is exhausted, or a limit is hit.
DfsReport dfs_explore(SimRunFn run, const core::RunSpec& spec, SimConfig config, std::uint64_t max_executions,
                      double max_seconds);

// The same tree walk over any simulated program: `run` executes it once under
// the config it is given (a `simulate(config, body)` call, whose `forced`
// schedule is the prefix to follow). A program that always passes is
// explored to the end: the litmus tests collect outcomes this way.
using SimProgram = std::function<SimResult(const SimConfig& config)>;
DfsReport dfs_explore(const SimProgram& run, SimConfig config, std::uint64_t max_executions, double max_seconds);

// ---- reproducer files ----

struct Repro {
  core::RunSpec spec;
  SimConfig config;     // seed, strategy, memory, knobs; `forced` = the schedule
  std::string verdict;  // what the recorded run found
  std::string message;
  std::uint64_t trace_hash = 0;
  std::string build;  // the build id of the executable that wrote it ("" in older files)
  // A shrunk reproducer: what it was found as ("seed 1710, strategy pct,
  // 9 preemptions") and how it replays; empty otherwise.
  std::string shrunk_from{};
};

// The running executable's GNU build id in hex ("unknown" without one).
const std::string& build_id();

std::string write_repro(const Repro& r);
// Parses a reproducer; a refusal says why in one line.
Result<Repro> read_repro(const std::string& text);

// ---- shrinking ----

struct ShrinkReport {
  Repro before, after;
  std::uint64_t attempts = 0;
  std::size_t preemptions_before = 0, preemptions_after = 0;
};

// Minimises a failing reproducer: the program (iterations, threads, pools)
// and the schedule (shorter, fewer preemptions), keeping only changes under
// which the run still fails the same way.
ShrinkReport shrink(const Repro& failing);

// Counts a schedule's preemptions (decisions other than the default).
std::size_t count_preemptions(SimRunFn run, const Repro& r);

// ---- a campaign: seeds (one shard of them) in the simulator ----

struct SimCampaignSpec {
  core::CampaignSpec base;                // scenario, mutant, sizes, seeds, shard, budget
  SimConfig config;                       // strategy, memory model, knobs (seed set per run)
  std::uint64_t max_executions = 100000;  // DFS: per seed
  // Run the seeds in a child process, so that a fatal signal in the pool under
  // test is a `crash` finding with its reproducer instead of the end of the
  // command (guard.cpp). The parent writes every report.
  bool crash_guard = false;
};

struct SimFailure {
  std::uint64_t seed = 0;
  SimResult result;
  Repro repro;
  double at_seconds = 0;
};

struct SimCampaignReport {
  SimCampaignSpec spec;
  std::uint64_t seeds_planned = 0, runs = 0;
  std::uint64_t executions = 0;  // simulated executions (DFS runs many per seed)
  std::uint64_t steps = 0;       // scheduling points, all executions
  bool dfs_exhausted = true;     // DFS: every seed's space explored within bound
  double elapsed_s = 0;
  bool budget_exhausted = false;
  int stopped_by_signal = 0;  // as in threads::CampaignReport
  std::vector<SimFailure> failures;
  core::VerdictKind overall() const;
};

SimCampaignReport run_sim_campaign(const SimCampaignSpec& spec, const core::ProgressFn& progress);

// ---- the parts guard.cpp shares with the campaign ----

class CrashJournal;
SimCampaignReport run_guarded_campaign(const SimCampaignSpec& spec, const core::ProgressFn& progress);
void journal_seed_done(CrashJournal& journal, const SimCampaignReport& report);
// A failure of `seed` under `cfg` (whose `forced` replays it), as the report keeps it.
SimFailure make_sim_failure(const core::RunSpec& run, std::uint64_t seed, const SimConfig& cfg, SimResult result,
                            double at_seconds);

// How a process that ran the pool under test ended, as a verdict message:
// "killed by SIGSEGV (signal 11)", "exited with status 1".
std::string process_end_text(int wait_status);

// The text `body` returns, computed in a forked child, so that a crash of the
// pool under test ends the child and not the caller; and how the child ended.
struct ChildAnswer {
  bool started = false;  // the pipe and the fork worked (else nothing ran)
  bool clean = false;    // the child exited with status 0 after answering
  int status = 0;        // waitpid's, for process_end_text
  std::string text;
};
ChildAnswer answer_in_child(const std::function<std::string()>& body);

}  // namespace wsstress::sim
