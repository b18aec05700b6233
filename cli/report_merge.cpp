// `wsstress report merge SHARD.json...`: the shards of one `run` or `sim`
// campaign (each run with `--shard I/N --json FILE`) back into one report.
// The JSON reports are read back into the engines' report structures, checked
// to be the N shards of one campaign (same schema, scenario, mutant, shape and
// seed range; every index once), summed, and rendered by the same renderers
// as an unsharded run, whose verdict and exit code the merge then has.
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "output.hpp"
#include "report.hpp"

namespace wsstress::cli {
namespace {

using nlohmann::json;

// A refusal of the input, one line: exit 2.
struct MergeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Shard {
  std::string path;
  json doc;
};

Shard read_shard(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw MergeError(path + ": cannot read");
  std::stringstream text;
  text << in.rdbuf();
  Shard s{path, json::parse(text.str(), nullptr, /*allow_exceptions=*/false)};
  if (s.doc.is_discarded() || !s.doc.is_object()) throw MergeError(path + ": not a JSON report");
  return s;
}

// Runs f on one shard's JSON; a missing field or a wrong type names the file.
template <class F>
void in_shard(const Shard& s, F&& f) {
  try {
    f();
  } catch (const json::exception& e) {
    throw MergeError(s.path + ": a field is missing or has the wrong type (" + std::string(e.what()) + ")");
  }
}

stress::VerdictKind verdict_kind(const std::string& word, const std::string& path) {
  for (auto k : {stress::VerdictKind::Pass, stress::VerdictKind::Bug, stress::VerdictKind::Crash,
                 stress::VerdictKind::Hang, stress::VerdictKind::Internal}) {
    if (word == stress::to_string(k)) return k;
  }
  throw MergeError(path + ": unknown verdict '" + word + "' in a failure");
}

int signal_of(const json& stopped_by) {
  if (stopped_by.is_null()) return 0;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    if (stopped_by.get<std::string>() == stress::signal_name(sig)) return sig;
  }
  return 0;
}

// The path of the first value that differs between two campaigns' identities.
std::string first_difference(const json& a, const json& b, const std::string& at) {
  if (a.is_object() && b.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key())) return at + it.key();
      if (std::string d = first_difference(it.value(), b.at(it.key()), at + it.key() + "."); !d.empty()) return d;
    }
    for (auto it = b.begin(); it != b.end(); ++it) {
      if (!a.contains(it.key())) return at + it.key();
    }
    return "";
  }
  return a == b ? "" : (at.empty() ? "the report" : at.substr(0, at.size() - 1));
}

// What makes two reports shards of one campaign: everything but the shard's
// own index and outcome.
json campaign_identity(json j) {
  for (const char* k : {"runs", "executions", "steps", "elapsed_s", "budget_exhausted", "stopped_by", "verdict",
                        "failures", "parallelism", "control", "parallelism_above_control", "parallelism_p",
                        "dfs_exhausted"}) {
    j.erase(k);
  }
  if (j.contains("seeds")) {
    j["seeds"].erase("planned");
    if (j["seeds"].contains("shard")) j["seeds"]["shard"].erase("index");
  }
  return j;
}

// Refuses reports that are not every shard of one campaign exactly once.
void check_shards(const std::vector<Shard>& shards) {
  const json& first = shards.front().doc;
  const std::string schema = first.value("schema", "");
  if (schema != "wsstress.run/1" && schema != "wsstress.sim/1") {
    throw MergeError(shards.front().path + ": schema '" + schema +
                     "' has no shards to merge (report merge takes wsstress.run/1 and wsstress.sim/1 reports)");
  }
  const json identity = campaign_identity(first);
  std::uint64_t count = 0;
  in_shard(shards.front(), [&] { count = first.at("seeds").at("shard").at("count").get<std::uint64_t>(); });
  std::vector<const Shard*> seen(count, nullptr);
  for (const Shard& s : shards) in_shard(s, [&] {
    if (s.doc.value("schema", "") != schema) {
      throw MergeError(s.path + " is a " + s.doc.value("schema", "?") + " report, " + shards.front().path + " a " +
                       schema + " one");
    }
    if (std::string d = first_difference(identity, campaign_identity(s.doc), ""); !d.empty()) {
      throw MergeError(s.path + " is not a shard of the campaign of " + shards.front().path + ": " + d + " differs");
    }
    const std::uint64_t index = s.doc.at("seeds").at("shard").at("index").get<std::uint64_t>();
    if (index >= count) throw MergeError(s.path + ": shard index " + std::to_string(index) + " is not below " + std::to_string(count));
    if (seen[index] != nullptr) {
      throw MergeError("shard " + std::to_string(index) + "/" + std::to_string(count) + " appears twice: " +
                       seen[index]->path + " and " + s.path);
    }
    seen[index] = &s;
  });
  std::string missing;
  for (std::uint64_t i = 0; i < count; ++i) {
    if (seen[i] == nullptr) missing += (missing.empty() ? "" : ", ") + std::to_string(i) + "/" + std::to_string(count);
  }
  if (!missing.empty()) throw MergeError("shard(s) " + missing + " missing: the merge would not be the whole campaign");
}

// The fields every engine's campaign spec has, as the JSON renderers wrote them.
stress::CampaignSpec base_spec(const json& j) {
  stress::CampaignSpec s;
  s.run.scenario = j.at("scenario").get<std::string>();
  s.run.mutant = j.at("mutant").get<std::string>();
  const json& p = j.at("params");
  s.run.threads = p.at("threads").get<std::size_t>();
  s.run.pools = p.at("pools").get<std::size_t>();
  s.run.iterations = p.at("iterations").get<std::size_t>();
  s.run.noise = p.value("noise", 0);
  s.run.timeout_s = p.value("timeout_s", s.run.timeout_s);
  s.max_seconds = p.value("max_seconds", 0.0);
  s.repeat = p.value("repeat", std::uint64_t{1});
  s.seeds = {j.at("seeds").at("from").get<std::uint64_t>(), j.at("seeds").at("to").get<std::uint64_t>()};
  return s;  // the shard: {0, 1}, the whole range
}

template <class Report>
void add_outcome(Report& into, const json& j) {
  into.seeds_planned += j.at("seeds").at("planned").get<std::uint64_t>();
  into.runs += j.at("runs").get<std::uint64_t>();
  into.elapsed_s += j.at("elapsed_s").get<double>();  // the shards' times, summed
  into.budget_exhausted = into.budget_exhausted || j.at("budget_exhausted").get<bool>();
  if (into.stopped_by_signal == 0) into.stopped_by_signal = signal_of(j.at("stopped_by"));
}

void add_figure(stress::ParallelismFigure& into, const json& j) {
  into.samples += j.at("samples").get<std::uint64_t>();
  into.asleep_beside_work += j.at("asleep_beside_work").get<std::uint64_t>();
  into.windows += j.at("windows").get<std::uint64_t>();
  into.longest = std::max(into.longest, j.at("longest_ms").get<std::uint64_t>());
}

stress::CampaignReport merge_run(const std::vector<Shard>& shards) {
  stress::CampaignReport r;
  in_shard(shards.front(), [&] { r.spec = base_spec(shards.front().doc); });
  bool with_control = true;
  stress::ParallelismFigure control;
  for (const Shard& s : shards) in_shard(s, [&] {
    add_outcome(r, s.doc);
    add_figure(r.parallelism, s.doc.at("parallelism"));
    if (s.doc.at("control").is_null()) {
      with_control = false;
    } else {
      add_figure(control, s.doc.at("control"));
    }
    for (const json& f : s.doc.at("failures")) {
      r.failures.push_back({f.at("seed").get<std::uint64_t>(),
                            stress::Verdict{verdict_kind(f.at("verdict").get<std::string>(), s.path),
                                            f.at("message").get<std::string>(), f.at("dump").get<std::string>()},
                            f.at("replay").get<std::string>(), f.at("at_seconds").get<double>()});
    }
  });
  if (with_control) {
    r.control = control;
    r.parallelism_above_control = stress::rate_above(r.parallelism, control, 0.01, &r.parallelism_p);
  }
  std::sort(r.failures.begin(), r.failures.end(), [](const auto& a, const auto& b) { return a.seed < b.seed; });
  return r;
}

std::uint64_t parse_hash(const std::string& hex) { return std::stoull(hex, nullptr, 16); }

sim::SimCampaignReport merge_sim(const std::vector<Shard>& shards, std::vector<std::string>& repro_paths) {
  const json& first = shards.front().doc;
  sim::SimCampaignReport r;
  in_shard(shards.front(), [&] {
    r.spec.base = base_spec(first);
    const json& p = first.at("params");
    r.spec.config.strategy =
        sim::parse_strategy(first.at("strategy").get<std::string>()).value_or(sim::StrategyKind::Random);
    r.spec.config.memory = first.at("memory").get<std::string>() == "tso" ? sim::MemoryModel::TSO : sim::MemoryModel::SC;
    r.spec.config.pct_depth = p.at("pct_depth").get<unsigned>();
    r.spec.config.preemption_bound = p.at("preemption_bound").get<unsigned>();
    r.spec.config.step_budget = p.at("step_budget").get<std::uint64_t>();
  });
  r.dfs_exhausted = true;
  std::vector<std::pair<sim::SimFailure, std::string>> failures;
  for (const Shard& s : shards) in_shard(s, [&] {
    add_outcome(r, s.doc);
    r.executions += s.doc.at("executions").get<std::uint64_t>();
    r.steps += s.doc.at("steps").get<std::uint64_t>();
    if (s.doc.at("dfs_exhausted").is_boolean()) r.dfs_exhausted = r.dfs_exhausted && s.doc.at("dfs_exhausted").get<bool>();
    for (const json& f : s.doc.at("failures")) {
      sim::SimFailure sf;
      sf.seed = f.at("seed").get<std::uint64_t>();
      sf.result.verdict = {verdict_kind(f.at("verdict").get<std::string>(), s.path), f.at("message").get<std::string>(),
                           f.at("dump").get<std::string>()};
      sf.result.steps = f.at("steps").get<std::uint64_t>();
      sf.result.trace_hash = parse_hash(f.at("trace_hash").get<std::string>());
      sf.at_seconds = f.at("at_seconds").get<double>();
      failures.emplace_back(std::move(sf), f.at("reproducer").get<std::string>());
    }
  });
  std::sort(failures.begin(), failures.end(), [](const auto& a, const auto& b) { return a.first.seed < b.first.seed; });
  for (auto& [f, path] : failures) {
    r.failures.push_back(std::move(f));
    repro_paths.push_back(path);
  }
  return r;
}

struct MergeOptions {
  std::vector<std::string> paths;
  std::string json_path;
  bool quiet = false;
};

int print(const std::string& header, const std::string& text, const MergeOptions& o, const std::string& json_text,
          SweepVerdict v) {
  const std::string out = o.quiet ? std::string("verdict: ") + v.word + "\n" : header + text;
  std::fwrite(out.data(), 1, out.size(), text_out());
  return o.json_path.empty() ? v.code : write_report("--json", o.json_path, json_text, v.code);
}

int merge_command(const MergeOptions& o) {
  std::vector<Shard> shards;
  for (const std::string& p : o.paths) shards.push_back(read_shard(p));
  check_shards(shards);
  const std::string header = "report merge: " + std::to_string(shards.size()) + " shard(s) of one " +
                             shards.front().doc.at("schema").get<std::string>() +
                             " campaign (times are the shards' summed)\n";
  if (shards.front().doc.at("schema") == "wsstress.run/1") {
    const stress::CampaignReport r = merge_run(shards);
    return print(header, run_report_text(r, true), o, run_report_json(r), verdict_of(r));
  }
  std::vector<std::string> paths;
  const sim::SimCampaignReport r = merge_sim(shards, paths);
  std::string text = sim_report_header_text(r);
  for (std::size_t i = 0; i < r.failures.size(); ++i) {
    text += sim_failure_text(r.failures[i]);
    if (!paths[i].empty()) text += "replay: wsstress replay " + paths[i] + "\n";
  }
  text += std::string("verdict: ") + verdict_of(r).word + "\n";
  return print(header, text, o, sim_report_json(r, paths), verdict_of(r));
}

}  // namespace

Subcommand add_report(CLI::App& parent) {
  CLI::App* cmd = parent.add_subcommand("report", "work with the JSON reports of other runs");
  cmd->require_subcommand(1);
  CLI::App* merge = cmd->add_subcommand(
      "merge", "merge the shard reports of one `run` or `sim` campaign (--shard I/N --json FILE) into one report, "
               "with the verdict and exit code of the unsharded campaign");
  auto o = std::make_shared<MergeOptions>();
  merge->add_option("reports", o->paths, "the shards' JSON reports (wsstress.run/1 or wsstress.sim/1), each once")
      ->required()
      ->check(CLI::ExistingFile);
  add_json(merge, o->json_path, "write the merged report as JSON (the shards' schema)");
  merge->add_flag("-q,--quiet", o->quiet, "print the verdict line only");
  merge->footer(
      "Example:\n"
      "  for i in 0 1 2 3; do wsstress sim --seeds 0..9999 --shard $i/4 --json shard$i.json & done; wait\n"
      "  wsstress report merge shard*.json --json all.json");
  return {cmd, [o] {
            if (auto ok = claim_stdout({&o->json_path}); !ok) return usage_error(ok.error());
            try {
              return merge_command(*o);
            } catch (const MergeError& e) {
              return usage_error(std::string("report merge: ") + e.what());
            }
          }};
}

}  // namespace wsstress::cli
