// SPDX-License-Identifier: MIT OR Apache-2.0
// `wsstress report merge SHARD.json...`: the shards of one `run` or `sim`
// campaign (each run with `--shard I/N --json FILE`) back into one report, or
// the parts of one mutant matrix (`mutants check` split by --engine or --only).
// The JSON reports are read back into the engines' report structures, checked
// to be the N shards of one campaign (same schema, scenario, mutant, shape and
// seed range; every index once), summed, and rendered by the same renderers
// as an unsharded run, whose verdict and exit code the merge then has.
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <map>
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
#include "wsstress/core/catalog.hpp"
#include "wsstress/core/run_flags.hpp"
#include "wsstress/core/shown.hpp"

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

// The real-thread engine's name before wsstress.run/2 and wsstress.mutants/3.
constexpr const char* kOldThreadsEngine = "stress";

// A report of an older schema in its current one's spelling. Before 1.0 a
// renamed key or engine bumps the schema, and this is the one place that
// still reads the old spelling (docs/design/versioning.md).
void upgrade(json& doc) {
  const json schema = doc.value("schema", json());
  if (schema == "wsstress.run/1") {  // params.timeout_s is params.hang_timeout_s; engine stress is threads
    doc["schema"] = "wsstress.run/2";
    json& params = doc["params"];
    if (params.is_object() && params.contains("timeout_s")) {
      json value = std::move(params["timeout_s"]);
      params.erase("timeout_s");
      params["hang_timeout_s"] = std::move(value);
    }
    if (doc.value("engine", json()) == kOldThreadsEngine) doc["engine"] = "threads";
  } else if (schema == "wsstress.mutants/2") {  // the engine stress is threads
    doc["schema"] = "wsstress.mutants/3";
    if (doc.contains("engines") && doc["engines"].is_array()) {
      for (json& e : doc["engines"]) {
        if (e == kOldThreadsEngine) e = "threads";
      }
    }
    if (!doc.contains("rows") || !doc["rows"].is_array()) return;
    for (json& row : doc["rows"]) {
      if (!row.is_object() || !row.contains("results")) continue;
      json& results = row["results"];
      if (results.is_object() && results.contains(kOldThreadsEngine)) {
        json cell = std::move(results[kOldThreadsEngine]);
        results.erase(kOldThreadsEngine);
        results["threads"] = std::move(cell);
      }
    }
  }
}

Shard read_shard(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw MergeError(path + ": cannot read");
  std::stringstream text;
  text << in.rdbuf();
  Shard s{path, json::parse(text.str(), nullptr, /*allow_exceptions=*/false)};
  if (s.doc.is_discarded() || !s.doc.is_object()) throw MergeError(path + ": not a JSON report");
  upgrade(s.doc);
  return s;
}

// Runs f on one shard's JSON; a missing field or a wrong type names the file.
template <class F>
void in_shard(const Shard& s, F&& f) {
  try {
    f();
  } catch (const json::exception& e) {
    throw MergeError(s.path + ": a field is missing or has the wrong type (" + std::string(e.what()) + ")");
  } catch (const std::logic_error& e) {  // std::stoull of a trace hash that is not hex
    throw MergeError(s.path + ": a value is malformed (" + std::string(e.what()) + ")");
  }
}

core::VerdictKind verdict_kind(const std::string& word, const std::string& path) {
  for (auto k : {core::VerdictKind::Pass, core::VerdictKind::Bug, core::VerdictKind::Crash, core::VerdictKind::Hang,
                 core::VerdictKind::Internal}) {
    if (word == core::verdict_name(k)) return k;
  }
  throw MergeError(path + ": unknown verdict " + shown(word) + " in a failure");
}

int signal_of(const json& stopped_by) {
  if (stopped_by.is_null()) return 0;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    if (stopped_by.get<std::string>() == core::signal_name(sig)) return sig;
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
  for (const char* k :
       {"runs", "executions", "steps", "elapsed_s", "budget_exhausted", "stopped_by", "verdict", "failures",
        "parallelism", "control", "parallelism_above_control", "parallelism_p", "dfs_exhausted"}) {
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
  for (const Shard& s : shards) {
    if (s.doc.value("schema", "") != schema) {
      throw MergeError(s.path + " is a " + s.doc.value("schema", "?") + " report, " + shards.front().path + " a " +
                       schema + " one");
    }
  }
  if (schema == "wsstress.mutants/3") return;  // parts of a matrix: merge_matrix checks its cells
  if (schema != "wsstress.run/2" && schema != "wsstress.sim/1") {
    throw MergeError(shards.front().path + ": schema '" + schema +
                     "' has nothing to merge (report merge takes wsstress.run/2 (and /1), wsstress.sim/1 and "
                     "wsstress.mutants/3 (and /2) reports)");
  }
  const json identity = campaign_identity(first);
  std::uint64_t count = 0;
  in_shard(shards.front(), [&] { count = first.at("seeds").at("shard").at("count").get<std::uint64_t>(); });
  std::vector<const Shard*> seen(count, nullptr);
  for (const Shard& s : shards)
    in_shard(s, [&] {
      if (std::string d = first_difference(identity, campaign_identity(s.doc), ""); !d.empty()) {
        throw MergeError(s.path + " is not a shard of the campaign of " + shards.front().path + ": " + d + " differs");
      }
      const std::uint64_t index = s.doc.at("seeds").at("shard").at("index").get<std::uint64_t>();
      if (index >= count) {
        throw MergeError(s.path + ": shard index " + std::to_string(index) + " is not below " + std::to_string(count));
      }
      if (seen[index] != nullptr) {
        throw MergeError("shard " + std::to_string(index) + "/" + std::to_string(count) +
                         " appears twice: " + seen[index]->path + " and " + s.path);
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
core::CampaignSpec base_spec(const json& j) {
  core::CampaignSpec s;
  s.run.scenario = j.at("scenario").get<std::string>();
  s.run.mutant = j.at("mutant").get<std::string>();
  const json& p = j.at("params");
  s.run.threads = p.at("threads").get<std::size_t>();
  s.run.pools = p.at("pools").get<std::size_t>();
  s.run.iterations = p.at("iterations").get<std::size_t>();
  s.run.noise = p.value("noise", 0);
  s.run.hang_timeout_s = p.value("hang_timeout_s", s.run.hang_timeout_s);
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

void add_figure(threads::ParallelismFigure& into, const json& j) {
  into.samples += j.at("samples").get<std::uint64_t>();
  into.asleep_beside_work += j.at("asleep_beside_work").get<std::uint64_t>();
  into.windows += j.at("windows").get<std::uint64_t>();
  into.longest = std::max(into.longest, j.at("longest_ms").get<std::uint64_t>());
}

threads::CampaignReport merge_run(const std::vector<Shard>& shards) {
  threads::CampaignReport r;
  in_shard(shards.front(), [&] { r.spec = base_spec(shards.front().doc); });
  bool with_control = true;
  threads::ParallelismFigure control;
  for (const Shard& s : shards)
    in_shard(s, [&] {
      add_outcome(r, s.doc);
      add_figure(r.parallelism, s.doc.at("parallelism"));
      if (s.doc.at("control").is_null()) {
        with_control = false;
      } else {
        add_figure(control, s.doc.at("control"));
      }
      for (const json& f : s.doc.at("failures")) {
        r.failures.push_back({f.at("seed").get<std::uint64_t>(),
                              core::Verdict{verdict_kind(f.at("verdict").get<std::string>(), s.path),
                                            f.at("message").get<std::string>(), f.at("dump").get<std::string>()},
                              f.at("replay").get<std::string>(), f.at("at_seconds").get<double>()});
      }
    });
  if (with_control) {
    r.control = control;
    r.parallelism_above_control = threads::rate_above(r.parallelism, control, 0.01, &r.parallelism_p);
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
    r.spec.config.memory = sim::parse_memory(first.at("memory").get<std::string>()).value_or(sim::MemoryModel::SC);
    r.spec.config.pct_depth = p.at("pct_depth").get<unsigned>();
    r.spec.config.preemption_bound = p.at("preemption_bound").get<unsigned>();
    r.spec.config.step_budget = p.at("step_budget").get<std::uint64_t>();
  });
  r.dfs_exhausted = true;
  std::vector<std::pair<sim::SimFailure, std::string>> failures;
  for (const Shard& s : shards)
    in_shard(s, [&] {
      add_outcome(r, s.doc);
      r.executions += s.doc.at("executions").get<std::uint64_t>();
      r.steps += s.doc.at("steps").get<std::uint64_t>();
      if (s.doc.at("dfs_exhausted").is_boolean()) {
        r.dfs_exhausted = r.dfs_exhausted && s.doc.at("dfs_exhausted").get<bool>();
      }
      for (const json& f : s.doc.at("failures")) {
        sim::SimFailure sf;
        sf.seed = f.at("seed").get<std::uint64_t>();
        sf.result.verdict = {verdict_kind(f.at("verdict").get<std::string>(), s.path),
                             f.at("message").get<std::string>(), f.at("dump").get<std::string>(),
                             f.value("explanation", json::array()).get<std::vector<std::string>>()};
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

// ---- mutants check: parts of one matrix (other engines, other --only mutants) ----

matrix::MatrixRow matrix_row(const json& row, const json& r, const std::string& path) {
  const std::string name = row.at("mutant").get<std::string>();
  const core::MutantInfo* info = core::find_mutant(name);
  if (info == nullptr) throw MergeError(path + ": unknown mutant " + shown(name));
  matrix::MatrixRow m;
  m.mutant = *info;
  m.mutant.kinds = core::parse_failure_kinds(row.at("expected_kinds").get<std::string>());  // --expect-kind kept
  m.scenario = row.at("scenario").get<std::string>();
  m.caught = r.at("caught").get<bool>();
  m.outcome = r.at("outcome").get<std::string>();
  m.message = r.at("message").get<std::string>();
  m.first_seed = r.at("first_seed").get<std::uint64_t>();
  m.runs = r.at("runs").get<std::uint64_t>();
  m.seconds = r.at("seconds").get<double>();
  m.replay = r.at("replay").get<std::string>();
  m.kind = static_cast<core::FailureKind>(core::parse_failure_kinds(r.at("kind").get<std::string>()));
  m.kind_as_expected = r.at("kind_as_expected").get<bool>();
  m.as_expected = r.at("as_expected").get<bool>();
  return m;
}

// Parts of one matrix - each engine and mutant cell in exactly one part, the
// same budget and shape - as the matrix one `mutants check` would have printed.
std::vector<matrix::MatrixReport> merge_matrix(const std::vector<Shard>& parts, int& stopped) {
  const auto shape = [](const json& j) {
    return json{{"budget_s", j.at("budget_s")}, {"hang_timeout_s", j.at("hang_timeout_s")}, {"params", j.at("params")}};
  };
  json first_shape;
  in_shard(parts.front(), [&] { first_shape = shape(parts.front().doc); });
  std::vector<std::string> engines;
  std::map<std::string, std::map<std::string, std::pair<matrix::MatrixRow, std::string>>> cells;  // engine, mutant
  for (const Shard& p : parts)
    in_shard(p, [&] {
      if (std::string d = first_difference(first_shape, shape(p.doc), ""); !d.empty()) {
        throw MergeError(p.path + " is not a part of the matrix of " + parts.front().path + ": " + d + " differs");
      }
      if (stopped == 0) stopped = signal_of(p.doc.at("stopped_by"));
      for (const json& row : p.doc.at("rows")) {
        for (auto it = row.at("results").begin(); it != row.at("results").end(); ++it) {
          if (std::find(engines.begin(), engines.end(), it.key()) == engines.end()) engines.push_back(it.key());
          const std::string mutant = row.at("mutant").get<std::string>();
          auto [at, fresh] = cells[it.key()].try_emplace(mutant, matrix::MatrixRow{}, p.path);
          if (!fresh) {
            throw MergeError(mutant + " on " + it.key() + " appears twice: " + at->second.second + " and " + p.path);
          }
          at->second.first = matrix_row(row, it.value(), p.path);
        }
      }
    });
  std::vector<matrix::MatrixReport> reports;
  for (const std::string& engine : engines) {
    matrix::MatrixReport m;
    m.spec.engine = engine;
    in_shard(parts.front(), [&] {
      const json& j = parts.front().doc;
      m.spec.budget_s = j.at("budget_s").get<double>();
      m.spec.hang_timeout_s = j.at("hang_timeout_s").get<double>();
      m.spec.base.threads = j.at("params").at("threads").get<std::size_t>();
      m.spec.base.pools = j.at("params").at("pools").get<std::size_t>();
      m.spec.base.iterations = j.at("params").at("iterations").get<std::size_t>();
      m.spec.sim_iterations = j.at("params").at("sim_iterations").get<std::size_t>();
      m.spec.base.noise = j.at("params").at("noise").get<int>();
    });
    for (const core::MutantInfo& info : core::mutant_catalog()) {  // rows in the catalog's order
      const bool anywhere = std::any_of(engines.begin(), engines.end(),
                                        [&](const std::string& e) { return cells[e].count(info.name) != 0; });
      if (!anywhere) continue;
      auto it = cells[engine].find(info.name);
      if (it == cells[engine].end()) {
        throw MergeError(info.name + " on " + engine + " is in no report: the matrix would have a hole");
      }
      m.rows.push_back(it->second.first);
      m.elapsed_s += it->second.first.seconds;
    }
    reports.push_back(std::move(m));
  }
  return reports;
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
  if (shards.front().doc.at("schema") == "wsstress.mutants/3") {
    int stopped = 0;
    const std::vector<matrix::MatrixReport> reports = merge_matrix(shards, stopped);
    const int code = matrix_exit_code(reports, stopped);
    const std::string text = "report merge: " + std::to_string(shards.size()) + " part(s) of one mutant matrix\n";
    const std::string out = o.quiet ? "" : text + matrix_text(reports);
    std::fwrite(out.data(), 1, out.size(), text_out());
    return o.json_path.empty() ? code : write_report("--json", o.json_path, matrix_json(reports), code);
  }
  if (shards.front().doc.at("schema") == "wsstress.run/2") {
    const threads::CampaignReport r = merge_run(shards);
    return print(header, run_report_text(r, true), o, run_report_json(r), verdict_of(r));
  }
  std::vector<std::string> paths;
  const sim::SimCampaignReport r = merge_sim(shards, paths);
  std::string text = sim_report_header_text(r);
  for (std::size_t i = 0; i < r.failures.size(); ++i) {
    text += sim_failure_text(r.failures[i]);
    if (!paths[i].empty()) text += "replay: " + core::repro_replay_command(paths[i]) + "\n";
  }
  text += std::string("verdict: ") + verdict_of(r).word + "\n";
  return print(header, text, o, sim_report_json(r, paths), verdict_of(r));
}

}  // namespace

Subcommand add_report(CLI::App& parent) {
  CLI::App* cmd = parent.add_subcommand("report", "work with the JSON reports of other runs");
  cmd->require_subcommand(1);
  CLI::App* merge = cmd->add_subcommand(
      "merge", "merge the shard reports of one `run` or `sim` campaign (--shard I/N --json FILE), or the parts of "
               "one `mutants check` matrix (split by --engine or --only), into one report with the verdict and exit "
               "code of the whole");
  auto o = std::make_shared<MergeOptions>();
  merge
      ->add_option("reports", o->paths,
                   "the JSON reports (wsstress.run/2, wsstress.sim/1, wsstress.mutants/3; and the older wsstress.run/1 "
                   "and wsstress.mutants/2)")
      ->required()
      ->check(CLI::ExistingFile);
  add_json(merge, o->json_path, "write the merged report as JSON (the current version of the shards' schema)");
  merge->add_flag("-q,--quiet", o->quiet, "print the verdict line only");
  merge->footer("Example:\n"
                "  for i in 0 1 2 3; do wsstress sim --seeds 0..9999 --shard $i/4 --json shard$i.json & done; wait\n"
                "  wsstress report merge shard*.json --json all.json");
  return {cmd, [o] {
            if (auto ok = claim_stdout({{"--json", &o->json_path}}); !ok) return usage_error(ok.error());
            try {
              return merge_command(*o);
            } catch (const MergeError& e) {
              return usage_error(std::string("report merge: ") + e.what());
            }
          }};
}

}  // namespace wsstress::cli
