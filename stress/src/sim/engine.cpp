// The simulator engine: the DFS driver, reproducer files and the shrinker.
#include "wsstress/sim/engine.hpp"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "wsstress/stress/catalog.hpp"

namespace wsstress::sim {

// ---- DFS ----

DfsReport dfs_explore(SimRunFn run, const stress::RunSpec& spec, SimConfig config, std::uint64_t max_executions,
                      double max_seconds) {
  return dfs_explore([&](const SimConfig& c) { return run(spec, c); }, std::move(config), max_executions, max_seconds);
}

DfsReport dfs_explore(const SimProgram& run, SimConfig config, std::uint64_t max_executions, double max_seconds) {
  struct Node {
    std::vector<std::uint32_t> alts;  // alts[0] is the default
    std::set<std::uint32_t> tried;
    std::uint32_t chosen;
    unsigned preempt_before;
  };
  DfsReport report;
  config.strategy = StrategyKind::DFS;
  config.spurious_wakeup_per_mille = 0;
  std::vector<std::uint32_t> prefix;
  std::vector<Node> nodes;
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    config.forced = prefix;
    SimResult r = run(config);
    ++report.executions;
    report.steps += r.steps;
    if (r.verdict.kind != stress::VerdictKind::Pass) {
      report.failing_config = config;
      report.failing_config.forced = r.schedule;
      report.failure = std::move(r);
      return report;
    }
    // Extend the tree with this execution's decisions past the prefix.
    nodes.resize(prefix.size());
    unsigned preempt = 0;
    for (std::size_t i = 0; i < r.decisions.size() && i < r.schedule.size(); ++i) {
      if (i < nodes.size()) {
        preempt = nodes[i].preempt_before + (nodes[i].chosen != nodes[i].alts.front() ? 1 : 0);
        continue;
      }
      Node n{r.decisions[i], {r.schedule[i]}, r.schedule[i], preempt};
      preempt += r.schedule[i] != r.decisions[i].front() ? 1 : 0;
      nodes.push_back(std::move(n));
    }
    // Backtrack to the deepest decision with an untried alternative in bound.
    bool advanced = false;
    for (std::size_t i = nodes.size(); i-- > 0 && !advanced;) {
      Node& n = nodes[i];
      for (std::uint32_t alt : n.alts) {
        if (n.tried.count(alt)) continue;
        const unsigned cost = alt != n.alts.front() ? 1 : 0;
        if (n.preempt_before + cost > config.preemption_bound) continue;
        n.tried.insert(alt);
        n.chosen = alt;
        prefix.assign(r.schedule.begin(), r.schedule.begin() + static_cast<std::ptrdiff_t>(i));
        // Earlier decisions keep their recorded choices.
        for (std::size_t k = 0; k < i; ++k) prefix[k] = nodes[k].chosen;
        prefix.push_back(alt);
        nodes.resize(i + 1);
        advanced = true;
        break;
      }
    }
    if (!advanced) {
      report.exhausted = true;
      return report;
    }
    if (report.executions >= max_executions) return report;
    if (max_seconds > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= max_seconds) {
      return report;
    }
  }
}

// ---- reproducers ----

std::string write_repro(const Repro& r) {
  std::ostringstream o;
  o << "wsstress-repro 1\n";
  o << "scenario " << r.spec.scenario << "\n";
  o << "mutant " << r.spec.mutant << "\n";
  o << "threads " << r.spec.threads << "\n";
  o << "pools " << r.spec.pools << "\n";
  o << "iterations " << r.spec.iterations << "\n";
  o << "seed " << r.config.seed << "\n";
  o << "strategy " << to_string(r.config.strategy) << "\n";
  o << "memory " << to_string(r.config.memory) << "\n";
  o << "pct-depth " << r.config.pct_depth << "\n";
  o << "preemption-bound " << r.config.preemption_bound << "\n";
  o << "step-budget " << r.config.step_budget << "\n";
  o << "verdict " << r.verdict << "\n";
  std::string msg = r.message;
  for (char& c : msg) {
    if (c == '\n') c = ' ';
  }
  o << "message " << msg << "\n";
  char hash[32];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(r.trace_hash));
  o << "trace-hash " << hash << "\n";
  if (!r.spec.input.empty()) {
    static const char* hex = "0123456789abcdef";
    o << "input ";
    for (unsigned char ch : r.spec.input) o << hex[ch >> 4] << hex[ch & 15];
    o << "\n";
  }
  o << "schedule";
  for (std::uint32_t c : r.config.forced) o << ' ' << c;
  o << "\n";
  return o.str();
}

namespace {
bool to_u64(const std::string& s, std::uint64_t& out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();  // no overflow past 2^64 - 1
}
}  // namespace

std::optional<Repro> read_repro(const std::string& text, std::string& error) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line.rfind("wsstress-repro ", 0) != 0) {
    error = "not a wsstress reproducer (its first line must be 'wsstress-repro 1')";
    return std::nullopt;
  }
  if (line != "wsstress-repro 1") {
    error = "reproducer version '" + line.substr(15) + "' is not supported (this wsstress reads version 1)";
    return std::nullopt;
  }
  std::map<std::string, std::string> fields;
  int n = 1;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    const auto sp = line.find(' ');
    const std::string key = line.substr(0, sp);
    fields[key] = sp == std::string::npos ? "" : line.substr(sp + 1);
  }
  for (const char* k : {"scenario", "mutant", "threads", "pools", "iterations", "seed", "strategy", "memory",
                        "pct-depth", "preemption-bound", "step-budget", "schedule"}) {
    if (!fields.count(k)) {
      error = std::string("reproducer is missing '") + k + "' (truncated?)";
      return std::nullopt;
    }
  }
  Repro r;
  r.spec.scenario = fields["scenario"];
  const auto& names = stress::scenario_names();
  if (std::find(names.begin(), names.end(), r.spec.scenario) == names.end()) {
    error = "reproducer names an unknown scenario '" + r.spec.scenario + "'";
    return std::nullopt;
  }
  r.spec.mutant = fields["mutant"];
  if (stress::find_mutant(r.spec.mutant) == nullptr) {
    error = "reproducer names an unknown mutant '" + r.spec.mutant + "'";
    return std::nullopt;
  }
  std::uint64_t v = 0;
  auto num = [&](const char* key, std::uint64_t lo, std::uint64_t hi, std::uint64_t& out) {
    if (!to_u64(fields[key], v) || v < lo || v > hi) {
      error = std::string("reproducer field '") + key + "' has a bad value '" + fields[key] + "'";
      return false;
    }
    out = v;
    return true;
  };
  std::uint64_t threads, pools, iterations, depth, bound, budget;
  if (!num("threads", 1, 256, threads) || !num("pools", 1, 8, pools) || !num("iterations", 1, 1000000, iterations) ||
      !num("seed", 0, UINT64_MAX, r.config.seed) || !num("pct-depth", 1, 64, depth) ||
      !num("preemption-bound", 0, 64, bound) || !num("step-budget", 1, UINT64_MAX, budget)) {
    return std::nullopt;
  }
  r.spec.threads = threads;
  r.spec.pools = pools;
  r.spec.iterations = iterations;
  r.config.pct_depth = static_cast<unsigned>(depth);
  r.config.preemption_bound = static_cast<unsigned>(bound);
  r.config.step_budget = budget;
  const std::string& st = fields["strategy"];
  if (st == "random") r.config.strategy = StrategyKind::Random;
  else if (st == "pct") r.config.strategy = StrategyKind::PCT;
  else if (st == "dfs") r.config.strategy = StrategyKind::DFS;
  else if (st == "fuzz") r.config.strategy = StrategyKind::Fuzz;  // its schedule holds every decision
  else {
    error = "reproducer names an unknown strategy '" + st + "'";
    return std::nullopt;
  }
  const std::string& mem = fields["memory"];
  if (mem == "sc") r.config.memory = MemoryModel::SC;
  else if (mem == "tso") r.config.memory = MemoryModel::TSO;
  else {
    error = "reproducer names an unknown memory model '" + mem + "'";
    return std::nullopt;
  }
  std::istringstream sched(fields["schedule"]);
  std::string tok;
  while (sched >> tok) {
    if (!to_u64(tok, v) || v > UINT32_MAX) {
      error = "reproducer schedule has a bad entry '" + tok + "'";
      return std::nullopt;
    }
    r.config.forced.push_back(static_cast<std::uint32_t>(v));
  }
  if (r.config.forced.empty()) {
    error = "reproducer schedule is empty (truncated?)";
    return std::nullopt;
  }
  if (fields.count("input")) {
    const std::string& hex = fields["input"];
    auto nibble = [](char ch) -> int {
      if (ch >= '0' && ch <= '9') return ch - '0';
      if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
      return -1;
    };
    if (hex.size() % 2 != 0) {
      error = "reproducer input has an odd number of hex digits";
      return std::nullopt;
    }
    for (std::size_t i = 0; i < hex.size(); i += 2) {
      const int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
      if (hi < 0 || lo < 0) {
        error = "reproducer input is not lower-case hex at digit " + std::to_string(i + 1);
        return std::nullopt;
      }
      r.spec.input.push_back(static_cast<char>(hi * 16 + lo));
    }
  }
  r.verdict = fields.count("verdict") ? fields["verdict"] : "";
  r.message = fields.count("message") ? fields["message"] : "";
  if (fields.count("trace-hash")) r.trace_hash = std::stoull(fields["trace-hash"], nullptr, 16);
  return r;
}

// ---- shrinking ----

std::size_t count_preemptions(SimRunFn run, const Repro& r) {
  SimConfig c = r.config;
  c.strategy = StrategyKind::DFS;
  SimResult res = run(r.spec, c);
  std::size_t n = 0;
  for (std::size_t i = 0; i < res.decisions.size() && i < res.schedule.size(); ++i) {
    n += res.schedule[i] != res.decisions[i].front() ? 1 : 0;
  }
  return n;
}

ShrinkReport shrink(const Repro& failing) {
  ShrinkReport rep;
  rep.before = failing;
  SimRunFn run = find_sim_runner(failing.spec.mutant);
  const stress::VerdictKind want =
      failing.verdict == "hang" ? stress::VerdictKind::Hang : stress::VerdictKind::Bug;

  // A candidate is kept if it fails the same way; its executed schedule (and
  // decision alternatives, under DFS continuation) become the new state.
  Repro cur = failing;
  SimResult cur_res;
  auto try_run = [&](const stress::RunSpec& spec, SimConfig cfg, SimResult& out) {
    ++rep.attempts;
    out = run(spec, cfg);
    return out.verdict.kind == want && out.divergence.empty();
  };

  // 1. The program: fewer iterations, threads and pools, rerun with the
  //    original strategy and seed.
  {
    bool progress = true;
    while (progress) {
      progress = false;
      std::vector<stress::RunSpec> candidates;
      if (cur.spec.iterations > 1) {
        stress::RunSpec s = cur.spec;
        s.iterations = 1;
        candidates.push_back(s);
        s.iterations = cur.spec.iterations / 2;
        if (s.iterations >= 1) candidates.push_back(s);
      }
      if (cur.spec.threads > 1) {
        stress::RunSpec s = cur.spec;
        s.threads -= 1;
        candidates.push_back(s);
      }
      if (cur.spec.pools > 1) {
        stress::RunSpec s = cur.spec;
        s.pools -= 1;
        candidates.push_back(s);
      }
      for (const stress::RunSpec& s : candidates) {
        SimConfig cfg = failing.config;
        cfg.forced.clear();
        SimResult r;
        if (try_run(s, cfg, r)) {
          cur.spec = s;
          cur.config.forced = r.schedule;
          progress = true;
          break;
        }
      }
    }
  }

  // 2. The schedule, replayed with the non-preemptive default past its end:
  //    the shortest prefix that still fails, then each remaining preemption
  //    replaced by the default where the failure survives.
  SimConfig base = cur.config;
  base.strategy = StrategyKind::DFS;
  base.spurious_wakeup_per_mille = 0;
  {
    SimResult r;
    SimConfig c = base;
    if (!try_run(cur.spec, c, r)) {
      // Spurious wake-ups or flushes the DFS continuation does not make: keep
      // the schedule as it is.
      rep.after = cur;
      return rep;
    }
    cur.config.forced = r.schedule;
    cur_res = r;
  }
  std::size_t lo = 0, hi = cur.config.forced.size();
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    SimConfig c = base;
    c.forced.assign(cur.config.forced.begin(), cur.config.forced.begin() + static_cast<std::ptrdiff_t>(mid));
    SimResult r;
    if (try_run(cur.spec, c, r)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  std::vector<std::uint32_t> prefix(cur.config.forced.begin(),
                                    cur.config.forced.begin() + static_cast<std::ptrdiff_t>(lo));
  {
    SimConfig c = base;
    c.forced = prefix;
    SimResult r;
    if (try_run(cur.spec, c, r)) cur_res = r;
  }
  for (std::size_t i = 0; i < prefix.size() && i < cur_res.decisions.size(); ++i) {
    const std::uint32_t def = cur_res.decisions[i].front();
    if (prefix[i] == def) continue;
    std::vector<std::uint32_t> candidate = prefix;
    candidate[i] = def;
    SimConfig c = base;
    c.forced = candidate;
    SimResult r;
    if (try_run(cur.spec, c, r)) {
      prefix = candidate;
      cur_res = r;
    }
  }
  cur.config = base;
  cur.config.forced = cur_res.schedule;
  cur.config.strategy = StrategyKind::DFS;
  cur.verdict = stress::to_string(cur_res.verdict.kind);
  cur.message = cur_res.verdict.message;
  cur.trace_hash = cur_res.trace_hash;
  rep.after = cur;
  rep.preemptions_before = count_preemptions(run, failing);
  rep.preemptions_after = count_preemptions(run, cur);
  return rep;
}

// ---- campaigns ----

stress::VerdictKind SimCampaignReport::overall() const {
  stress::VerdictKind worst = stress::VerdictKind::Pass;
  for (const SimFailure& f : failures) worst = stress::worse(worst, f.result.verdict.kind);
  return worst;
}

namespace {

// One seed: one execution per repeat, or a whole DFS tree. A failure comes
// back with the configuration that replays it.
std::optional<SimResult> run_sim_seed(const SimCampaignSpec& spec, SimRunFn run, SimConfig& cfg, double seconds_left,
                                      SimCampaignReport& report) {
  if (cfg.strategy == StrategyKind::DFS) {
    DfsReport d = dfs_explore(run, spec.base.run, cfg, spec.max_executions, seconds_left);
    report.executions += d.executions;
    report.steps += d.steps;
    report.dfs_exhausted = report.dfs_exhausted && d.exhausted;
    if (d.failure) cfg = d.failing_config;
    return std::move(d.failure);
  }
  for (std::uint64_t rep = 0; rep < spec.base.repeat; ++rep) {
    SimResult r = run(spec.base.run, cfg);
    ++report.executions;
    report.steps += r.steps;
    if (r.verdict.kind != stress::VerdictKind::Pass) {
      cfg.forced = r.schedule;
      return r;
    }
  }
  return std::nullopt;
}

}  // namespace

SimCampaignReport run_sim_campaign(const SimCampaignSpec& spec, const stress::ProgressFn& progress) {
  SimCampaignReport report;
  report.spec = spec;
  const auto& b = spec.base;
  report.seeds_planned = stress::seeds_in_shard(b.seeds, b.shard);
  SimRunFn run = find_sim_runner(b.run.mutant);
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const stress::SweepPlan plan{b.seeds, b.shard, b.max_seconds, b.stop_on_failure};
  const stress::SweepOutcome swept = stress::sweep(plan, [&](std::uint64_t seed) {
    SimConfig cfg = spec.config;
    cfg.seed = seed;
    const double left = b.max_seconds > 0 ? b.max_seconds - elapsed() : 0;
    std::optional<SimResult> failed = run_sim_seed(spec, run, cfg, left, report);
    ++report.runs;
    if (!failed) return false;
    Repro repro;
    repro.spec = b.run;
    repro.config = cfg;
    repro.config.record_trace = false;
    repro.verdict = stress::to_string(failed->verdict.kind);
    repro.message = failed->verdict.message;
    repro.trace_hash = failed->trace_hash;
    report.failures.push_back({seed, std::move(*failed), std::move(repro), elapsed()});
    return true;
  }, progress);
  report.budget_exhausted = swept.budget_exhausted;
  report.elapsed_s = elapsed();
  return report;
}

}  // namespace wsstress::sim
