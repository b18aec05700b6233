// SPDX-License-Identifier: MIT OR Apache-2.0
// The simulator's columns: the mutant's scenario on fibers with a strategy
// and a memory model (`wsstress sim`'s campaign, called through its library
// API with what `wsstress sim` would set from the matrix's spec). PCT under
// SC, TSO and the C++ model is judged against the table below; the other
// strategies (random walk, sleep-first, portfolio, under SC) only measure.
// A simulated seed is the whole interleaving, so rerunning it is the replay.
#include "wsstress/matrix/engine.hpp"
#include "wsstress/matrix/scoreboard.hpp"
#include "wsstress/sim/engine.hpp"
#include "wsstress/sim/flags.hpp"

namespace wsstress::matrix {
namespace {

using sim::MemoryModel;
using sim::StrategyKind;

// What PCT finds within the matrix's budget under each memory model, as
// measured in the README's matrix (`mutants check --engine sim-sc,sim-tso,sim-cpp`).
struct SimulatorRow {
  MutantId mutant;
  Expect sc, tso, cpp;
};

namespace simulator_rows {
using enum MutantId;
using enum Expect;
// clang-format off
constexpr SimulatorRow kRows[] = {
    // mutant                      SC     TSO    C++
    {none,                         Pass,  Pass,  Pass},
    {no_gate5,                     Maybe, Maybe, Maybe},
    {no_gate5_narrow_jec,          Maybe, Maybe, Maybe},
    {no_inject_fence,              Maybe, Maybe, Maybe},
    {no_sleep_fence,               Maybe, Maybe, Maybe},
    {late_is_blocked_lock,         Catch, Catch, Maybe},
    {gate5_ignores_broadcasts,     Catch, Catch, Maybe},
    {cross_latch_no_keepalive,     Maybe, Maybe, Maybe},
    {scope_latch_no_keepalive,     Maybe, Maybe, Maybe},
    {cross_is_cold,                Catch, Catch, Maybe},
    {self_install_blocks,          Catch, Catch, Maybe},
    {latch_set_no_wake,            Catch, Catch, Maybe},
    {terminate_no_wake,            Catch, Catch, Maybe},
    {lock_latch_set_outside_mutex, Catch, Catch, Maybe},
    {lock_latch_wait_once,         Catch, Catch, Maybe},
    {cold_latch_no_reset,          Catch, Catch, Maybe},
    {internal_push_no_jec,         Catch, Catch, Maybe},
    {spawn_no_catch_unwind,        Catch, Catch, Maybe},
    {spawn_no_terminate_count,     Catch, Catch, Maybe},
    {arc_job_no_creator_ref,       Catch, Catch, Catch},
    {is_sleepy_always_true,        Catch, Catch, Maybe},
    {jec_carry,                    Catch, Catch, Maybe},
    {deque_pop_no_fence,           Cannot, Catch, Catch},
    {deque_push_relaxed,           Cannot, Cannot, Catch},
    {latch_probe_relaxed,          Cannot, Cannot, Catch},
    {count_latch_sub_relaxed,      Cannot, Cannot, Catch},
    {narrow_jec,                   Pass,  Pass,  Pass},
    {core_latch_set_seqcst,        Pass,  Pass,  Pass},
    {injector_acq_rel,             Pass,  Pass,  Pass},
    {no_inject_fence_acq_rel,      Cannot, Cannot, Catch},
    {no_sleep_fence_acq_rel,       Pass,  Pass,  Pass},
    {epoch_pin_x86_cas,            Maybe, Maybe, Catch},
};
// clang-format on
static_assert(one_row_per_mutant(kRows), "one row per mutant of pool/mutants.hpp, in its order");
}  // namespace simulator_rows

// Every seed from 0 until the budget runs out or the first failure.
constexpr core::SeedRange kEverySeed{0, 1000000000};

EngineResult simulate(const MatrixSpec& spec, const MutantInfo& m, StrategyKind strategy, MemoryModel memory) {
  sim::SimCampaignSpec c;
  c.base.run = spec.base;
  c.base.run.scenario = m.scenario;
  c.base.run.mutant = m.name;
  c.base.run.iterations = spec.sim_iterations;
  c.base.seeds = kEverySeed;
  c.base.max_seconds = spec.budget_s;
  c.config.strategy = strategy;
  c.config.memory = memory;
  const sim::SimCampaignReport report = sim::run_sim_campaign(c, nullptr);
  if (report.failures.empty()) return matrix::nothing_caught(report.runs);
  const sim::SimFailure& f = report.failures.front();
  return {true,         verdict_name(f.result.verdict.kind),          f.result.verdict.message, f.seed, report.runs,
          f.at_seconds, sim::sim_command_line(c, f.seed) + " --trace"};
}

// PCT under SC or TSO, judged against its column of the table.
class PctEngine final : public Engine {
 public:
  PctEngine(std::string_view name, int rank, MemoryModel memory) : name_(name), rank_(rank), memory_(memory) {}
  std::string_view name() const override { return name_; }
  int rank() const override { return rank_; }
  EngineResult run(const MatrixSpec& spec, const MutantInfo& m, const std::string&, const Deliver&) const override {
    return simulate(spec, m, StrategyKind::PCT, memory_);
  }
  Expect expect(const MutantInfo& m) const override {
    const SimulatorRow& r = row_of(simulator_rows::kRows, m.id);
    return memory_ == MemoryModel::SC ? r.sc : r.tso;
  }

 private:
  std::string_view name_;
  int rank_;
  MemoryModel memory_;
};

// The C++ model's column: half the budget on the matrix's pools, half on
// one-worker pools. A store->load reordering between a publisher and the one
// worker that may sleep through it (no_inject_fence_acq_rel) needs every
// worker inside the window at once: with two workers the other one usually
// takes the job; with one (the shape of Relacy's inject model) PCT finds it
// within the matrix's budget.
class CppModelEngine final : public Engine {
 public:
  std::string_view name() const override { return "sim-cpp"; }
  int rank() const override { return 40; }
  std::string_view gloss() const override { return "PCT"; }
  EngineResult run(const MatrixSpec& spec, const MutantInfo& m, const std::string&, const Deliver&) const override {
    MatrixSpec half = spec;
    half.budget_s = spec.budget_s / 2;
    EngineResult r = simulate(half, m, StrategyKind::PCT, MemoryModel::CPP);
    if (r.caught || spec.base.threads <= 1) return r;
    half.base.threads = 1;
    EngineResult one = simulate(half, m, StrategyKind::PCT, MemoryModel::CPP);
    one.runs += r.runs;
    if (one.caught) one.at_seconds += half.budget_s;
    return one;
  }
  Expect expect(const MutantInfo& m) const override { return row_of(simulator_rows::kRows, m.id).cpp; }
};

// The strategies no expectation was set with, under SC: they measure.
class StrategyEngine final : public MeasuringEngine {
 public:
  StrategyEngine(std::string_view name, int rank, StrategyKind strategy)
      : name_(name), rank_(rank), strategy_(strategy) {}
  std::string_view name() const override { return name_; }
  int rank() const override { return rank_; }
  EngineResult run(const MatrixSpec& spec, const MutantInfo& m, const std::string&, const Deliver&) const override {
    return simulate(spec, m, strategy_, MemoryModel::SC);
  }

 private:
  std::string_view name_;
  int rank_;
  StrategyKind strategy_;
};

}  // namespace

Expect simulator_expects(const MutantInfo& m, MemoryModel memory) {
  const SimulatorRow& r = row_of(simulator_rows::kRows, m.id);
  switch (memory) {
    case MemoryModel::SC: return r.sc;
    case MemoryModel::TSO: return r.tso;
    case MemoryModel::CPP: return r.cpp;
  }
  return Expect::Maybe;
}

}  // namespace wsstress::matrix

namespace wsstress::matrix {
WSSTRESS_REGISTER_ENGINE(sim_sc_engine, PctEngine("sim-sc", 20, MemoryModel::SC))
WSSTRESS_REGISTER_ENGINE(sim_tso_engine, PctEngine("sim-tso", 30, MemoryModel::TSO))
WSSTRESS_REGISTER_ENGINE(sim_cpp_engine, CppModelEngine{})
WSSTRESS_REGISTER_ENGINE(sim_random_engine, StrategyEngine("sim-random", 50, StrategyKind::Random))
WSSTRESS_REGISTER_ENGINE(sim_sleep_first_engine, StrategyEngine("sim-sleep-first", 60, StrategyKind::SleepFirst))
WSSTRESS_REGISTER_ENGINE(sim_portfolio_engine, StrategyEngine("sim-portfolio", 70, StrategyKind::Portfolio))
}  // namespace wsstress::matrix
