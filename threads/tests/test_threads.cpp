// SPDX-License-Identifier: MIT OR Apache-2.0
// The stress engine in-process: every scenario passes on the clean pool with
// noise, the oracle turns a failed check into a bug verdict, shards split a
// seed range exactly, and replay commands carry every knob.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>

#include "wsstress/core/catalog.hpp"
#include "wsstress/core/run_flags.hpp"
#include "wsstress/core/scenarios.hpp"
#include "wsstress/threads/campaign.hpp"
#include "wsstress/threads/parallelism.hpp"
#include "wsstress/threads/runner.hpp"

namespace {
using namespace wsstress::threads;

RunSpec spec_for(const std::string& scenario) {
  RunSpec s;
  s.scenario = scenario;
  s.threads = 2;
  s.pools = 2;
  s.iterations = 8;
  s.noise = 2;
  return s;
}

class EveryScenario : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryScenario, CleanPoolPassesTwentySeedsWithNoise) {
  RunFn run = find_runner("none");
  ASSERT_NE(run, nullptr);
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    Verdict v = run(spec_for(GetParam()), seed);
    ASSERT_EQ(v.kind, VerdictKind::Pass) << GetParam() << " seed " << seed << ": " << v.message;
  }
}

INSTANTIATE_TEST_SUITE_P(Scenarios, EveryScenario, ::testing::ValuesIn(pool_scenario_names()),
                         [](const auto& info) { return info.param; });

// Mixed draws every scenario with a weight, rendezvous
// included, except the SC-only oracles where the engine reorders memory.
TEST(Mixed, DrawsEveryScenarioByWeightAndScOraclesOnlyUnderSc) {
  for (const bool weak : {false, true}) {
    std::map<std::string, unsigned> seen;
    unsigned total = 0;
    for (const ScenarioInfo& s : kScenarios) total += mixed_draws(s, weak);
    for (unsigned at = 0; at < total; ++at) ++seen[mixed_pick(at, weak)];
    for (const ScenarioInfo& s : kScenarios) {
      const std::string name = s.name;
      if (find_external(name) != nullptr) {  // the external programs: never drawn
        EXPECT_EQ(seen[name], 0u) << name;
        continue;
      }
      const unsigned expected = name == "mixed" || (weak && name == "rendezvous") ? 0 : s.mixed_weight;
      EXPECT_GT(s.mixed_weight + (name == "mixed"), 0u) << name;
      EXPECT_EQ(seen[name], expected) << name << (weak ? " (weak memory)" : "");
    }
  }
}

TEST(Runner, UnknownScenarioIsAnInternalVerdict) {
  Verdict v = find_runner("none")(spec_for("no-such-thing"), 0);
  EXPECT_EQ(v.kind, VerdictKind::Internal);
  EXPECT_NE(v.message.find("no-such-thing"), std::string::npos);
}

TEST(Runner, EveryCatalogMutantHasARunner) {
  for (const MutantInfo& m : mutant_catalog()) EXPECT_NE(find_runner(m.name), nullptr) << m.name;
  EXPECT_EQ(find_runner("bogus"), nullptr);
}

// The catalog and the policy types come from the one list (pool/mutants.hpp),
// in its order, the clean pool first (the matrix's rows follow the catalog),
// and every policy has a real-thread runner (the simulator's: sim.Runner.*).
TEST(Runner, TheCatalogListsExactlyTheMutantList) {
  namespace pm = wsstress::pool::mutants;
  std::vector<std::string> listed(std::begin(pm::kPolicyNames), std::end(pm::kPolicyNames));
  std::vector<std::string> catalog;
  for (const MutantInfo& m : mutant_catalog()) catalog.push_back(m.name);
  EXPECT_EQ(catalog, listed);
  EXPECT_EQ(listed.front(), "none");
  for (const std::string& name : listed) EXPECT_NE(find_runner(name), nullptr) << name;
}

// Every record of the list says what a reader of the matrix needs: where the
// bug comes from, what goes wrong, a scenario that exists, and its place in
// the list (what the engines' tables are keyed by). What the engines expect
// of it is engines/'s (engines.Expectations.*).
TEST(Runner, EveryCatalogRecordIsComplete) {
  const auto scenarios = scenario_names();
  std::size_t place = 0;
  for (const MutantInfo& m : mutant_catalog()) {
    EXPECT_FALSE(m.history.empty()) << m.name;
    EXPECT_FALSE(m.failure.empty()) << m.name;
    EXPECT_NE(std::find(scenarios.begin(), scenarios.end(), m.scenario), scenarios.end()) << m.name;
    EXPECT_EQ(static_cast<std::size_t>(m.id), place++) << m.name;
    EXPECT_EQ(m.harmless(), m.name == "none" || m.negative_control) << m.name;
  }
  EXPECT_EQ(place, kMutantCount);
}

// One classifier for every engine's verdict.
TEST(FailureKind, EachEnginesVerdictHasItsKind) {
  EXPECT_EQ(classify_failure("hang", "no progress for 2 s"), FailureKind::Hang);
  EXPECT_EQ(classify_failure("hang (killed)", ""), FailureKind::Hang);
  EXPECT_EQ(classify_failure("DEADLOCK", ""), FailureKind::Hang);
  EXPECT_EQ(classify_failure("LIVELOCK", ""), FailureKind::Hang);
  EXPECT_EQ(classify_failure("DATA RACE", ""), FailureKind::DataRace);
  EXPECT_EQ(classify_failure("USER ASSERT FAILED", ""), FailureKind::Assertion);
  EXPECT_EQ(classify_failure("ACCESS TO FREED MEMORY", ""), FailureKind::UseAfterFree);
  EXPECT_EQ(classify_failure("bug", "use after free: lock on a destroyed pool object at x:1"),
            FailureKind::UseAfterFree);
  EXPECT_EQ(classify_failure("bug", "pool invariant violated at counters.hpp:90: jec parity"), FailureKind::Assertion);
  EXPECT_EQ(classify_failure("bug", "join returned 3, expected 4"), FailureKind::WrongResult);
  EXPECT_EQ(classify_failure("crash (signal 6)", "wsstress pool: job result missing; aborting"),
            FailureKind::Assertion);
  EXPECT_EQ(classify_failure("crash (signal 11)", ""), FailureKind::Crash);
  EXPECT_EQ(classify_failure("bug", "std::terminate: a thread let an exception escape: x"), FailureKind::Crash);
  EXPECT_EQ(classify_failure("crash (signal 6)", "ERROR: AddressSanitizer: heap-use-after-free on address"),
            FailureKind::UseAfterFree);
}

TEST(FailureKind, SetsPrintAndParseBothWays) {
  const FailureKinds set = FailureKind::Hang | FailureKind::Crash;
  EXPECT_EQ(to_string_set(set), "hang|crash");
  EXPECT_EQ(parse_failure_kinds("hang|crash"), set);
  EXPECT_EQ(parse_failure_kinds("data_race"), static_cast<FailureKinds>(FailureKind::DataRace));
  EXPECT_EQ(parse_failure_kinds("hang|nope"), 0u);
  EXPECT_EQ(parse_failure_kinds(""), 0u);
}

// Every mutant that some engine is expected to catch says how it fails; the
// clean pool and the negative controls allow no failure at all.
TEST(FailureKind, TheCatalogNamesEveryMutantsKinds) {
  for (const MutantInfo& m : mutant_catalog()) {
    const bool harmless = m.name == "none" || m.negative_control;
    if (harmless) {
      EXPECT_EQ(m.kinds, 0u) << m.name;
    } else {
      EXPECT_NE(m.kinds, 0u) << m.name << " has no expected failure kind";
    }
  }
}

TEST(Oracle, AFailedCheckIsABugWithTheFirstMessage) {
  Ctx<NoisyPlatform, wsstress::pool::NoMutants> c(spec_for("join"), 1);
  c.check(true, "fine");
  EXPECT_FALSE(c.failed());
  c.check(false, "first");
  c.check(false, "second");
  Verdict v = c.verdict();
  EXPECT_EQ(v.kind, VerdictKind::Bug);
  EXPECT_EQ(v.message, "first (and 1 more)");
}

// A check's message may be a callable: built only when the check fails
// (checks run at every leaf; an eager message cost an allocation each).
TEST(Oracle, ACheckBuildsItsMessageOnlyWhenItFails) {
  Ctx<NoisyPlatform, wsstress::pool::NoMutants> c(spec_for("join"), 1);
  int built = 0;
  c.check(true, [&] {
    ++built;
    return std::string("never");
  });
  EXPECT_EQ(built, 0);
  EXPECT_FALSE(c.failed());
  c.check(false, [&] {
    ++built;
    return "leaf ran " + std::to_string(2) + " times";
  });
  EXPECT_EQ(built, 1);
  EXPECT_EQ(c.verdict().message, "leaf ran 2 times");
}

TEST(Campaign, ShardsSplitTheSeedRangeExactly) {
  std::multiset<std::uint64_t> seen;
  std::uint64_t total_runs = 0;
  for (std::uint64_t i = 0; i < 3; ++i) {
    CampaignSpec c;
    c.run = spec_for("join");
    c.run.iterations = 1;
    c.seeds = {10, 19};
    c.shard = {i, 3};
    CampaignHooks hooks;
    hooks.fatal = [](const CampaignReport&) { std::abort(); };
    CampaignReport r = run_campaign(c, hooks);
    EXPECT_EQ(r.runs, r.seeds_planned);
    EXPECT_EQ(r.seeds_planned, i == 0 ? 4u : 3u);
    EXPECT_TRUE(r.failures.empty());
    total_runs += r.runs;
  }
  EXPECT_EQ(total_runs, 10u);
}

TEST(Campaign, MaxSecondsStopsASweep) {
  CampaignSpec c;
  c.run = spec_for("join");
  c.seeds = {0, 1000000000};
  c.max_seconds = 0.3;
  CampaignHooks hooks;
  hooks.fatal = [](const CampaignReport&) { std::abort(); };
  CampaignReport r = run_campaign(c, hooks);
  EXPECT_TRUE(r.budget_exhausted);
  EXPECT_GT(r.runs, 0u);
  EXPECT_LT(r.elapsed_s, 5.0);
}

// A fuzz target's campaign: specs change between runs, and the time between
// two runs (the engine mutating inputs) is not a hang: with a 1 s timeout,
// 1.5 s idle would end the process through the fatal hook if it counted (1 s,
// not less: a loaded machine must not stall a real-thread run that long).
TEST(ResidentCampaign, RunsOneSeedPerCallAndIdlesBetweenCallsWithoutAHang) {
  CampaignHooks hooks;
  hooks.fatal = [](const CampaignReport&) { std::abort(); };
  {
    ResidentCampaign resident("wsstress", hooks);
    RunSpec join = spec_for("join");
    join.iterations = 1;
    join.hang_timeout_s = 1;
    CampaignReport r = resident.run(join, 7);
    EXPECT_EQ(r.runs, 1u);
    EXPECT_TRUE(r.failures.empty());
    EXPECT_EQ(r.spec.seeds.from, 7u);
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    RunSpec cross = spec_for("cross");
    cross.iterations = 1;
    cross.hang_timeout_s = 1;
    r = resident.run(cross, 8);
    EXPECT_EQ(r.runs, 1u);
    EXPECT_TRUE(r.failures.empty());
    EXPECT_EQ(r.spec.run.scenario, "cross");
    CampaignSpec other;
    other.run = join;
    other.seeds = {0, 0};
    EXPECT_THROW(run_campaign(other, hooks), std::logic_error);  // one campaign per process
    RunSpec unknown = join;
    unknown.mutant = "no_such_mutant";
    EXPECT_THROW(resident.run(unknown, 1), std::invalid_argument);
  }
  CampaignSpec after;
  after.run = spec_for("join");
  after.run.iterations = 1;
  after.seeds = {0, 1};
  EXPECT_EQ(run_campaign(after, hooks).runs, 2u);  // the resident one let go of the process
}

std::size_t live_threads() {
  std::size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/task")) n += e.is_directory() ? 1 : 0;
  return n;
}

// Every thread a fuzz input starts has ended when the
// input returns (the program scenario joins its pools' workers), so a leak
// check between two inputs never meets one inside glibc's thread-exit
// bookkeeping (LeakSanitizer's 32 bytes from __cxa_thread_atexit_impl). The
// first run starts the campaign's watchdog; the later ones add no thread.
TEST(ResidentCampaign, AProgramRunLeavesNoThreadBehind) {
  CampaignHooks hooks;
  hooks.fatal = [](const CampaignReport&) { std::abort(); };
  ResidentCampaign resident("wsstress", hooks);
  RunSpec program = spec_for("program");
  program.iterations = 3;
  ASSERT_TRUE(resident.run(program, 1).failures.empty());
  const std::size_t baseline = live_threads();
  for (std::uint64_t seed = 2; seed < 42; ++seed) {
    ASSERT_TRUE(resident.run(program, seed).failures.empty());
    EXPECT_EQ(live_threads(), baseline) << "seed " << seed;
  }
}

TEST(Campaign, ReplayCommandCarriesEveryKnob) {
  RunSpec s = spec_for("cross");
  s.mutant = "cross_is_cold";
  s.hang_timeout_s = 1.5;
  EXPECT_EQ(replay_command("wsstress", s, 42),
            "wsstress run --scenario cross --seed 42 --threads 2 --pools 2 --iterations 8 --noise 2 --hang-timeout 1.5 "
            "--mutant cross_is_cold");
}

// The other command lines the tool prints, each spelled by one function
//, as the reports and the fuzz targets printed them.
TEST(CommandLines, FuzzRunAndReplayLinesReadAsBefore) {
  using namespace wsstress::threads;
  EXPECT_EQ(
      fuzz_command(
          {.target = "schedule", .mutant = "no_gate5", .scenario = "inject", .fuzzer_seed = 1, .max_seconds = 30}),
      "wsstress fuzz --target schedule --mutant no_gate5 --scenario inject --fuzzer-seed 1 --max-seconds 30");
  EXPECT_EQ(fuzz_command({.target = "program", .convert = "<this input>"}),
            "wsstress fuzz --target program --convert <this input>");
  EXPECT_EQ(program_run_command("crash-1", "cross_is_cold"),
            "wsstress run --scenario program --input crash-1 --mutant cross_is_cold --repeat 1000");
  EXPECT_EQ(program_run_command("crash-1", "none"), "wsstress run --scenario program --input crash-1 --repeat 1000");
  EXPECT_EQ(repro_replay_command("f.repro", true), "wsstress replay f.repro --trace");
  EXPECT_EQ(repro_replay_command("f.repro"), "wsstress replay f.repro");
}

// The flag table: what one taker spells, the companions'
// parser reads back into the same spec, for every row with a field.
TEST(RunFlags, WhatIsSpelledParsesBackToTheSameSpec) {
  using namespace wsstress::threads;
  RunSpec s = spec_for("cross");
  s.mutant = "cross_is_cold";
  s.hang_timeout_s = 2.5;
  s.noise = 3;
  s.iterations = 500000;  // above the narrow range: the runner takes run's wide one
  RunSpec back;
  const auto given = parse_run_flags(run_arguments(s, kTsanRunner), kTsanRunner, back);
  ASSERT_TRUE(given) << given.error();
  EXPECT_EQ(run_arguments(back, kTsanRunner), run_arguments(s, kTsanRunner));
  for (const RunFlag& f : run_flags()) {
    if (f.taken_by(kTsanRunner) && f.field.index() != 0) {
      EXPECT_EQ(spell_flag(f, back), spell_flag(f, s)) << f.long_name();
    }
  }
}

// The hang timeout's defaults, one table in its row: every taker
// of the row has one, and RunSpec's is `run`'s.
TEST(RunFlags, EveryTakerOfTheHangTimeoutHasItsDefaultInTheRow) {
  using namespace wsstress::threads;
  const RunFlag& row = run_flag("--hang-timeout");
  for (unsigned taker = 1; taker != 0 && taker <= row.takers; taker <<= 1) {
    if (!row.taken_by(taker)) continue;
    unsigned given = 0;
    for (const TakerDefault& d : row.defaults) given += (d.takers & taker) != 0 ? 1 : 0;
    EXPECT_EQ(given, 1u) << "taker " << taker;
    EXPECT_TRUE(check_flag_value(row, taker, std::to_string(default_hang_timeout(taker))).empty()) << taker;
  }
  EXPECT_EQ(default_hang_timeout(kRunCommand), 10);
  EXPECT_EQ(default_hang_timeout(kMatrixCommand), 2);
  EXPECT_EQ(default_hang_timeout(kSmokeCommand), 60);
  EXPECT_EQ(default_hang_timeout(kOracleCommand), 10);
  EXPECT_EQ(RunSpec{}.hang_timeout_s, default_hang_timeout(kRunCommand));
}

TEST(RunFlags, TheParserSaysWhichFlagAndWhy) {
  using namespace wsstress::threads;
  RunSpec s;
  auto r = parse_run_flags({"--noise", "9"}, kTsanRunner, s);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "--noise: '9' is out of range: expected a whole number from 0 to 3");
  r = parse_run_flags({"--hang-timeout=nan"}, kProgramFuzzer, s);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "--hang-timeout: 'nan' is not a number from 0.1 to 3600");
  r = parse_run_flags({"--threads", "2"}, kProgramFuzzer, s);  // not one of the fuzz target's flags
  ASSERT_FALSE(r);
  r = parse_run_flags({"--mutant=cross_is_cold", "--seeds", "3..5"}, kTsanRunner, s);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(s.mutant, "cross_is_cold");
  EXPECT_EQ(r->at("--seeds"), "3..5");
}

}  // namespace

// The tsan column's message: the report's kind and, per access, the first
// frame of the project's code, without templates, parameters or return type.
// The parallelism figure's counts follow the events of each pool on its own:
// a worker asleep in one pool beside a job queued in another is no window.
TEST(Parallelism, AWindowIsAWorkerAsleepBesideAJobOfItsOwnPool) {
  using wsstress::pool::Event;
  using wsstress::pool::EventKind;
  namespace st = wsstress::threads;
  int pool_a = 0, pool_b = 0;
  st::reset_parallelism_counts();
  st::parallelism_event(Event{EventKind::ThreadSleeping, &pool_a, 1});
  EXPECT_FALSE(st::asleep_beside_work_now());
  st::parallelism_event(Event{EventKind::JobPushed, &pool_b, 0});
  EXPECT_FALSE(st::asleep_beside_work_now()) << "the job is in the other pool";
  st::parallelism_event(Event{EventKind::JobsInjected, &pool_a, Event::kNoWorker, 2});
  EXPECT_TRUE(st::asleep_beside_work_now());
  st::parallelism_event(Event{EventKind::JobUninjected, &pool_a, 0});
  EXPECT_TRUE(st::asleep_beside_work_now()) << "one injected job is still queued";
  st::parallelism_event(Event{EventKind::JobStolen, &pool_a, 0});
  EXPECT_FALSE(st::asleep_beside_work_now());
  st::parallelism_event(Event{EventKind::JobPushed, &pool_a, 0});
  EXPECT_TRUE(st::asleep_beside_work_now());
  st::parallelism_event(Event{EventKind::ThreadAwoken, &pool_a, 1});
  EXPECT_FALSE(st::asleep_beside_work_now());
  st::reset_parallelism_counts();
}

// The comparison with the control: well above is flagged, the same rate or a
// single window over a control that saw none is not.
TEST(Parallelism, TheControlTestFlagsOnlyARateWellAbove) {
  namespace st = wsstress::threads;
  auto fig = [](std::uint64_t samples, std::uint64_t windows) {
    st::ParallelismFigure f;
    f.samples = samples;
    f.windows = windows;
    f.asleep_beside_work = windows;
    return f;
  };
  double p = 0;
  EXPECT_TRUE(st::rate_above(fig(10000, 40), fig(10000, 5), 0.01, &p));
  EXPECT_LT(p, 1e-6);
  EXPECT_FALSE(st::rate_above(fig(10000, 6), fig(10000, 5), 0.01, &p));
  EXPECT_GT(p, 0.01);
  EXPECT_FALSE(st::rate_above(fig(10000, 1), fig(10000, 0), 0.01));
  EXPECT_FALSE(st::rate_above(fig(10000, 40), fig(0, 0), 0.01)) << "no control, no claim";
  EXPECT_FALSE(st::rate_above(fig(1000, 3), fig(100000, 300), 0.01)) << "the same rate";
}
