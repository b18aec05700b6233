// The matrix's engines built into stress/: real threads (a campaign with its
// hang watchdog) and the simulator (a PCT or random-walk sweep), each called
// through its library API with what `wsstress run` / `wsstress sim` would set
// from the matrix's spec, its report turned into an EngineResult.
#include "wsstress/sim/engine.hpp"
#include "wsstress/stress/campaign.hpp"
#include "wsstress/stress/matrix.hpp"

namespace wsstress::stress {
namespace {

// Every seed from 0 until the budget runs out or the first failure.
constexpr SeedRange kAllSeeds{0, 1000000000};

// A sweep that found nothing: a pass, or nothing tested at all.
EngineResult uncaught(std::uint64_t runs) {
  EngineResult r;
  r.outcome = runs == 0 ? "empty (no seed ran)" : "pass";
  r.runs = runs;
  return r;
}

EngineResult from_campaign(const CampaignReport& report) {
  if (report.failures.empty()) return uncaught(report.runs);
  const SeedFailure& f = report.failures.front();
  return {true, to_string(f.verdict.kind), f.verdict.message, f.seed, report.runs, f.at_seconds, f.replay};
}

EngineResult real_threads(const MatrixSpec& spec, const MutantInfo& m, const std::string&, const Deliver& deliver) {
  CampaignSpec c;
  c.run = spec.base;
  c.run.scenario = m.scenario;
  c.run.mutant = m.name;
  c.run.timeout_s = spec.hang_timeout_s;
  c.seeds = kAllSeeds;
  c.max_seconds = spec.budget_s;
  CampaignHooks hooks;
  // A hang or a broken invariant: the pool's threads are stuck, so the
  // result leaves from here and the child ends.
  hooks.fatal = [&deliver](const CampaignReport& report) { deliver(from_campaign(report)); };
  return from_campaign(run_campaign(c, hooks));
}

// The simulator with a strategy and memory model; its seed is the whole
// interleaving, so rerunning it is the replay.
EngineResult simulator(const MatrixSpec& spec, const MutantInfo& m, sim::StrategyKind strategy,
                       sim::MemoryModel memory) {
  sim::SimCampaignSpec c;
  c.base.run = spec.base;
  c.base.run.scenario = m.scenario;
  c.base.run.mutant = m.name;
  c.base.run.iterations = spec.sim_iterations;
  c.base.seeds = kAllSeeds;
  c.base.max_seconds = spec.budget_s;
  c.config.strategy = strategy;
  c.config.memory = memory;
  const sim::SimCampaignReport report = sim::run_sim_campaign(c, nullptr);
  if (report.failures.empty()) return uncaught(report.runs);
  const sim::SimFailure& f = report.failures.front();
  const std::string replay = "wsstress sim --scenario " + m.scenario + " --mutant " + m.name + " --seed " +
                             std::to_string(f.seed) + " --memory " + sim::to_string(memory) + " --strategy " +
                             sim::to_string(strategy) + " --threads " + std::to_string(spec.base.threads) +
                             " --pools " + std::to_string(spec.base.pools) + " --iterations " +
                             std::to_string(spec.sim_iterations) + " --trace";
  return {true, to_string(f.result.verdict.kind), f.result.verdict.message, f.seed, report.runs, f.at_seconds, replay};
}

template <sim::StrategyKind S, sim::MemoryModel Mem>
EngineResult simulator_with(const MatrixSpec& spec, const MutantInfo& m, const std::string&, const Deliver&) {
  return simulator(spec, m, S, Mem);
}

// The C++ model's column: half the budget on the matrix's pools, half on
// one-worker pools. A store->load reordering between a publisher and the one
// worker that may sleep through it (no_inject_fence_acq_rel) needs every
// worker inside the window at once: with two workers the other one usually
// takes the job; with one (the shape of Relacy's inject model) PCT finds it
// in about 1 700 seeds. Measured under `sim --memory cpp --scenario inject`.
EngineResult simulator_cpp(const MatrixSpec& spec, const MutantInfo& m, const std::string&, const Deliver&) {
  MatrixSpec half = spec;
  half.budget_s = spec.budget_s / 2;
  EngineResult r = simulator(half, m, sim::StrategyKind::PCT, sim::MemoryModel::CPP);
  if (r.caught || spec.base.threads <= 1) return r;
  half.base.threads = 1;
  EngineResult one = simulator(half, m, sim::StrategyKind::PCT, sim::MemoryModel::CPP);
  one.runs += r.runs;
  if (one.caught) one.at_seconds += half.budget_s;
  return one;
}

}  // namespace

const MatrixEngine* builtin_engine(const std::string& name) {
  using sim::MemoryModel;
  using sim::StrategyKind;
  static const MatrixEngine stress{real_threads};
  static const MatrixEngine sim_sc{simulator_with<StrategyKind::PCT, MemoryModel::SC>};
  static const MatrixEngine sim_tso{simulator_with<StrategyKind::PCT, MemoryModel::TSO>};
  static const MatrixEngine sim_cpp{simulator_cpp};
  // The strategies the catalog's expectations were not set with measure.
  static const MatrixEngine sim_random{simulator_with<StrategyKind::Random, MemoryModel::SC>, 1, 30, true};
  static const MatrixEngine sim_sleep_first{simulator_with<StrategyKind::SleepFirst, MemoryModel::SC>, 1, 30, true};
  static const MatrixEngine sim_portfolio{simulator_with<StrategyKind::Portfolio, MemoryModel::SC>, 1, 30, true};
  if (name == "stress") return &stress;
  if (name == "sim-sc") return &sim_sc;
  if (name == "sim-tso") return &sim_tso;
  if (name == "sim-cpp") return &sim_cpp;
  if (name == "sim-random") return &sim_random;
  if (name == "sim-sleep-first") return &sim_sleep_first;
  if (name == "sim-portfolio") return &sim_portfolio;
  if (name == "tsan") return &tsan_matrix_engine();
  return nullptr;
}

}  // namespace wsstress::stress
