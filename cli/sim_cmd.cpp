// `wsstress sim` and `wsstress replay`: run the simulator over a seed range,
// write a reproducer for each failure (shrunk on request), render traces.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "report.hpp"
#include "trace.hpp"
#include "wsstress/stress/catalog.hpp"

namespace wsstress::cli {

namespace {

int exit_for(stress::VerdictKind k) {
  switch (k) {
    case stress::VerdictKind::Pass: return kOk;
    case stress::VerdictKind::Bug: return kFailed;
    case stress::VerdictKind::Hang: return kHang;
    case stress::VerdictKind::Internal: return kInternal;
  }
  return kInternal;
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string hash_text(std::uint64_t h) {
  char b[32];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h));
  return b;
}

// Re-runs a reproducer with its trace recorded, and writes what was asked.
int emit_trace(const sim::Repro& r, bool text, const std::string& out_path) {
  sim::SimConfig cfg = r.config;
  cfg.record_trace = true;
  sim::SimResult res = sim::find_sim_runner(r.spec.mutant)(r.spec, cfg);
  if (text) {
    const std::string t = trace_text(res);
    std::fwrite(t.data(), 1, t.size(), stdout);
  }
  if (!out_path.empty()) {
    const std::string err = write_atomically(out_path, trace_perfetto(res));
    if (!err.empty()) {
      std::fprintf(stderr, "wsstress: error: --trace-out: %s\n", err.c_str());
      return kInternal;
    }
    std::printf("trace: %s (Chrome trace-event JSON; open it in ui.perfetto.dev)\n", out_path.c_str());
  }
  return kOk;
}

void print_shrink(const sim::ShrinkReport& s) {
  std::printf("shrink: %llu attempts; iterations %zu -> %zu, threads %zu -> %zu, pools %zu -> %zu, "
              "schedule %zu -> %zu decisions, preemptions %zu -> %zu\n",
              static_cast<unsigned long long>(s.attempts), s.before.spec.iterations, s.after.spec.iterations,
              s.before.spec.threads, s.after.spec.threads, s.before.spec.pools, s.after.spec.pools,
              s.before.config.forced.size(), s.after.config.forced.size(), s.preemptions_before, s.preemptions_after);
}

}  // namespace

int sim_command(const SimOptions& o) {
  const auto& b = o.campaign.base;
  if (stress::find_mutant(b.run.mutant) == nullptr) {
    std::fprintf(stderr, "wsstress: error: --mutant: unknown mutant '%s'\n", b.run.mutant.c_str());
    return kUsage;
  }
  const bool tty = !o.quiet && isatty(2);
  bool drawn = false;
  auto progress = [&](std::uint64_t done, std::uint64_t total, double elapsed) {
    if (!tty) return;
    const double rate = elapsed > 0 ? done / elapsed : 0;
    std::fprintf(stderr, "\r%llu/%llu seeds  %.1f/s   ", static_cast<unsigned long long>(done),
                 static_cast<unsigned long long>(total), rate);
    drawn = true;
  };
  sim::SimCampaignReport rep = sim::run_sim_campaign(o.campaign, progress);
  if (drawn) std::fprintf(stderr, "\n");

  const auto& cfg = o.campaign.config;
  std::string text = "sim: scenario " + b.run.scenario + ", mutant " + b.run.mutant + ", strategy " +
                     sim::to_string(cfg.strategy) + ", memory " + sim::to_string(cfg.memory) + ", seeds " +
                     std::to_string(b.seeds.from) + ".." + std::to_string(b.seeds.to) +
                     (b.shard.count > 1 ? " shard " + std::to_string(b.shard.index) + "/" + std::to_string(b.shard.count)
                                        : "") +
                     ", " + std::to_string(b.run.threads) + " threads x " + std::to_string(b.run.pools) + " pools, " +
                     std::to_string(b.run.iterations) + " iterations\n";
  text += "sim: " + std::to_string(rep.runs) + " of " + std::to_string(rep.seeds_planned) + " seeds, " +
          std::to_string(rep.executions) + " executions, " + std::to_string(rep.steps) + " scheduling points in " +
          fmt("%.2f", rep.elapsed_s) + " s (" + fmt("%.0f", rep.elapsed_s > 0 ? rep.steps / rep.elapsed_s : 0) +
          " points/s, " + fmt("%.1f", rep.elapsed_s > 0 ? rep.runs / rep.elapsed_s : 0) + " seeds/s)" +
          (rep.budget_exhausted ? ", stopped by --max-seconds" : "") + "\n";
  if (cfg.strategy == sim::Strategy::DFS) {
    text += "dfs: " + std::to_string(rep.executions) + " interleavings with at most " +
            std::to_string(cfg.preemption_bound) + " preemptions " +
            (rep.dfs_exhausted ? "- every one of them (exhaustive within the bound)"
                               : "- not all: a limit stopped the search") +
            (rep.failures.empty() ? "; none failed" : "") + "\n";
  }
  std::fwrite(text.data(), 1, text.size(), stdout);

  nlohmann::json failures = nlohmann::json::array();
  int code = exit_for(rep.overall());
  for (const auto& f : rep.failures) {
    std::printf("\nFAILED seed %llu: %s: %s\n", static_cast<unsigned long long>(f.seed),
                stress::to_string(f.result.verdict.kind), f.result.verdict.message.c_str());
    if (!f.result.verdict.dump.empty()) std::printf("state when it was detected:\n%s", f.result.verdict.dump.c_str());
    sim::Repro repro = f.repro;
    std::string path = o.repro_path.empty() ? "wsstress-" + b.run.scenario + "-" + b.run.mutant + "-seed" +
                                                  std::to_string(f.seed) + ".repro"
                                            : o.repro_path;
    if (o.shrink) {
      sim::ShrinkReport s = sim::shrink(repro);
      print_shrink(s);
      repro = s.after;
    }
    const std::string err = write_atomically(path, sim::write_repro(repro));
    if (!err.empty()) {
      std::fprintf(stderr, "wsstress: error: reproducer: %s\n", err.c_str());
      code = kInternal;
    } else {
      std::printf("reproducer: %s (%zu decisions, trace hash %s)\nreplay: wsstress replay %s --trace\n", path.c_str(),
                  repro.config.forced.size(), hash_text(repro.trace_hash).c_str(), path.c_str());
    }
    if (o.trace || !o.trace_out.empty()) {
      const int c = emit_trace(repro, o.trace, o.trace_out);
      if (c != kOk) code = c;
    }
    failures.push_back({{"seed", f.seed},
                        {"verdict", stress::to_string(f.result.verdict.kind)},
                        {"message", f.result.verdict.message},
                        {"dump", f.result.verdict.dump},
                        {"steps", f.result.steps},
                        {"trace_hash", hash_text(f.result.trace_hash)},
                        {"reproducer", path},
                        {"replay", "wsstress replay " + path},
                        {"at_seconds", f.at_seconds}});
  }
  std::printf("verdict: %s\n", stress::to_string(rep.overall()));
  if (!o.json_path.empty()) {
    nlohmann::json j = {
        {"schema", "wsstress.sim/1"},
        {"tool", "wsstress 0.1.0"},
        {"engine", std::string("sim-") + sim::to_string(cfg.memory)},
        {"scenario", b.run.scenario},
        {"mutant", b.run.mutant},
        {"strategy", sim::to_string(cfg.strategy)},
        {"memory", sim::to_string(cfg.memory)},
        {"params",
         {{"threads", b.run.threads},
          {"pools", b.run.pools},
          {"iterations", b.run.iterations},
          {"pct_depth", cfg.pct_depth},
          {"preemption_bound", cfg.preemption_bound},
          {"step_budget", cfg.step_budget},
          {"max_seconds", b.max_seconds}}},
        {"seeds",
         {{"from", b.seeds.from}, {"to", b.seeds.to}, {"shard", {{"index", b.shard.index}, {"count", b.shard.count}}},
          {"planned", rep.seeds_planned}}},
        {"runs", rep.runs},
        {"executions", rep.executions},
        {"steps", rep.steps},
        {"elapsed_s", rep.elapsed_s},
        {"budget_exhausted", rep.budget_exhausted},
        {"dfs_exhausted", cfg.strategy == sim::Strategy::DFS ? nlohmann::json(rep.dfs_exhausted) : nlohmann::json()},
        {"verdict", stress::to_string(rep.overall())},
        {"failures", failures},
    };
    const std::string err = write_atomically(o.json_path, j.dump(2) + "\n");
    if (!err.empty()) {
      std::fprintf(stderr, "wsstress: error: --json: %s\n", err.c_str());
      return kInternal;
    }
  }
  return code;
}

int replay_command(const ReplayOptions& o) {
  std::ifstream in(o.file);
  if (!in) {
    std::fprintf(stderr, "wsstress: error: %s: cannot open the reproducer\n", o.file.c_str());
    return kUsage;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string error;
  std::optional<sim::Repro> r = sim::read_repro(ss.str(), error);
  if (!r) {
    std::fprintf(stderr, "wsstress: error: %s: %s\n", o.file.c_str(), error.c_str());
    return kUsage;
  }
  sim::SimConfig cfg = r->config;
  cfg.record_trace = o.trace || !o.trace_out.empty();
  sim::SimResult res = sim::find_sim_runner(r->spec.mutant)(r->spec, cfg);
  if (!res.divergence.empty()) {
    std::fprintf(stderr, "wsstress: error: %s: %s (was it recorded with another build of the pool?)\n",
                 o.file.c_str(), res.divergence.c_str());
    return kUsage;
  }
  std::printf("replay: scenario %s, mutant %s, seed %llu, %s/%s, %zu decisions\n", r->spec.scenario.c_str(),
              r->spec.mutant.c_str(), static_cast<unsigned long long>(r->config.seed), sim::to_string(r->config.strategy),
              sim::to_string(r->config.memory), r->config.forced.size());
  if (!r->spec.input.empty()) {
    stress::ByteSource src(reinterpret_cast<const std::uint8_t*>(r->spec.input.data()), r->spec.input.size());
    std::printf("program: %s", stress::Program::decode(src).render().c_str());
  }
  if (o.trace) {
    const std::string t = trace_text(res);
    std::fwrite(t.data(), 1, t.size(), stdout);
  }
  if (!o.trace_out.empty()) {
    const std::string err = write_atomically(o.trace_out, trace_perfetto(res));
    if (!err.empty()) {
      std::fprintf(stderr, "wsstress: error: --trace-out: %s\n", err.c_str());
      return kInternal;
    }
    std::printf("trace: %s (Chrome trace-event JSON; open it in ui.perfetto.dev)\n", o.trace_out.c_str());
  }
  std::printf("replay: %s: %s\n", stress::to_string(res.verdict.kind), res.verdict.message.c_str());
  if (!res.verdict.dump.empty()) std::printf("state when it was detected:\n%s", res.verdict.dump.c_str());
  if (r->trace_hash != 0) {
    std::printf("replay: trace hash %s, %s the recorded one\n", hash_text(res.trace_hash).c_str(),
                res.trace_hash == r->trace_hash ? "same as" : "DIFFERENT from");
  }
  if (o.shrink) {
    sim::ShrinkReport s = sim::shrink(*r);
    print_shrink(s);
    const std::string out = o.file + ".shrunk";
    const std::string err = write_atomically(out, sim::write_repro(s.after));
    if (!err.empty()) {
      std::fprintf(stderr, "wsstress: error: %s\n", err.c_str());
      return kInternal;
    }
    std::printf("shrunk reproducer: %s\n", out.c_str());
  }
  return exit_for(res.verdict.kind);
}

}  // namespace wsstress::cli
