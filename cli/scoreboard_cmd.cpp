// SPDX-License-Identifier: MIT OR Apache-2.0
// `wsstress scoreboard`: parses the strategies, memory
// models and targets, runs the board through the engines
// (engines/scoreboard.hpp) and writes its renderings (scoreboard_render.cpp):
// the table on stdout, and --json, --svg, --html. The strategies and models
// come from their registries, so a new strategy is on the board by default.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "html.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "scoreboard_render.hpp"
#include "wsstress/core/catalog.hpp"
#include "wsstress/core/run_flags.hpp"
#include "wsstress/core/scenarios/external_programs.hpp"
#include "wsstress/core/shown.hpp"
#include "wsstress/core/sweep.hpp"
#include "wsstress/sim/flags.hpp"

namespace wsstress::cli {

namespace {

// The word --mutants takes for the default set.
constexpr const char* kCaught = "caught";

struct ScoreboardOptions {
  matrix::ScoreboardSpec spec;
  std::string strategies_text, memory_text = "sc,tso,cpp", mutants_text = kCaught, scenarios_text;
  std::string json_path, svg_path, html_path;
  bool quiet = false;
};

// "a,b,c" -> {a, b, c}; an empty or repeated item is an error naming the option.
Result<std::vector<std::string>> split_list(const std::string& option, const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t start = 0;;) {
    const auto comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) return fail(option + ": empty name in " + shown(text));
    if (std::find(out.begin(), out.end(), item) != out.end())
      return fail(option + ": " + shown(item) + " is given twice");
    out.push_back(std::move(item));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

// --strategies' words: split_list's, except that a portfolio spec's own commas
// do not split it (an item with '=' and no ':' continues the spec before it):
// "pos,portfolio:pos=6,pct=1,random" -> {pos, portfolio:pos=6,pct=1, random}.
Result<std::vector<std::string>> split_strategies(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t start = 0;;) {
    const auto comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const bool member = item.find('=') != std::string::npos && item.find(':') == std::string::npos;
    if (member && !out.empty() && out.back().find(':') != std::string::npos) {
      out.back() += "," + item;
    } else {
      if (item.empty()) return fail("--strategies: empty name in " + shown(text));
      out.push_back(std::move(item));
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (std::find(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(i), out[i]) !=
        out.begin() + static_cast<std::ptrdiff_t>(i)) {
      return fail("--strategies: " + shown(out[i]) + " is given twice");
    }
  }
  return out;
}

std::string joined(const std::vector<std::string>& words, const char* sep = ", ") {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : sep) + w;
  return s;
}

// The scenario registry's names (`run --scenario`'s words).
std::vector<std::string> scenario_words() { return core::run_flag("--scenario").words(); }

// The --scenarios words as targets on the clean pool: NAME (a program that
// must pass, such as a fixed twin), NAME:fails (a program with a known bug,
// scored as a mutant), PREFIX* (every registered scenario whose name starts
// with PREFIX: a family), PREFIX*:fails. An external program's row
// (external_programs.hpp) says whether it must fail and under which model,
// so `ext_*` is the whole family, each twin expected to pass.
Result<void> add_scenario_targets(ScoreboardOptions& o) {
  if (o.scenarios_text.empty()) return {};
  auto words = split_list("--scenarios", o.scenarios_text);
  if (!words) return fail(words.error());
  for (std::string w : *words) {
    const bool fails = w.size() > 6 && w.ends_with(":fails");
    if (fails) w.resize(w.size() - 6);
    const bool family = w.ends_with('*');
    const std::string stem = family ? w.substr(0, w.size() - 1) : w;
    std::size_t matched = 0;
    for (const std::string& name : scenario_words()) {
      if (family ? !name.starts_with(stem) : name != stem) continue;
      matrix::ScoreTarget t{name, name, "none", fails, {}};
      if (const core::ExternalProgram* e = core::find_external(name); e != nullptr) {
        if (fails && !e->fails) return fail("--scenarios: " + shown(name) + " is a fixed twin: it must pass");
        t.expect_failure = e->fails;
        t.models = {*sim::parse_memory(e->memory)};
      }
      o.spec.targets.push_back(std::move(t));
      ++matched;
    }
    if (matched == 0) {
      return fail("--scenarios: no scenario " + std::string(family ? "starts with " : "is ") + shown(stem) +
                  " (scenarios: " + joined(scenario_words()) + ")");
    }
  }
  return {};
}

// The strategies, models and targets the words name.
Result<void> resolve(ScoreboardOptions& o) {
  auto strategies = split_strategies(o.strategies_text);
  if (!strategies) return fail(strategies.error());
  for (const std::string& w : *strategies) {
    const std::vector<std::string> names = sim::strategy_names();
    // A spec (portfolio:pos=6,pct=1) says what is wrong with it; else a name
    // --strategy offers (not `fuzz`, which reads a fuzzer's input).
    if (w.find(':') != std::string::npos) {
      if (const std::string why = sim::strategy_error(w); !why.empty()) return fail("--strategies: " + why);
    } else if (std::find(names.begin(), names.end(), w) == names.end()) {
      return fail("--strategies: unknown strategy " + shown(w) + " (strategies: " + joined(names) + ")");
    }
    o.spec.strategies.push_back(*sim::parse_strategy(w));
  }
  auto memories = split_list("--memory", o.memory_text);
  if (!memories) return fail(memories.error());
  for (const std::string& w : *memories) {
    const auto m = sim::parse_memory(w);
    if (!m)
      return fail("--memory: unknown memory model " + shown(w) + " (models: " + joined(sim::memory_names()) + ")");
    o.spec.memories.push_back(*m);
  }
  auto mutants = o.mutants_text.empty() ? std::vector<std::string>{} : split_list("--mutants", o.mutants_text);
  if (!mutants) return fail(mutants.error());
  for (const std::string& w : *mutants) {
    if (w == kCaught) {
      for (matrix::ScoreTarget& t : matrix::catalog_targets(o.spec.memories)) o.spec.targets.push_back(std::move(t));
      continue;
    }
    const core::MutantInfo* m = core::find_mutant(w);
    if (m == nullptr) return fail("--mutants: unknown mutant " + shown(w) + " (see wsstress mutants list)");
    o.spec.targets.push_back(matrix::mutant_target(*m, o.spec.memories));
  }
  if (auto ok = add_scenario_targets(o); !ok) return ok;
  if (o.spec.targets.empty()) return fail("--mutants and --scenarios: no target (give a mutant or a scenario)");
  for (std::size_t i = 0; i < o.spec.targets.size(); ++i) {  // `caught` and a name of its set: once
    for (std::size_t j = 0; j < i; ++j) {
      if (o.spec.targets[j].name == o.spec.targets[i].name) {
        return fail("--mutants/--scenarios: " + shown(o.spec.targets[i].name) + " is given twice");
      }
    }
  }
  return {};
}

int scoreboard_command(const ScoreboardOptions& o) {
  const core::StopSignals stop;  // a signal ends the board after the runs in progress
  const std::size_t total_runs = [&] {
    std::size_t cells = 0;
    for (const auto& t : o.spec.targets) {
      for (sim::MemoryModel m : o.spec.memories) {
        cells += t.models.empty() || std::find(t.models.begin(), t.models.end(), m) != t.models.end();
      }
    }
    return cells * o.spec.strategies.size() * o.spec.runs;
  }();
  std::fprintf(text_out(), "%s\n", scoreboard_header_text(o.spec, total_runs).c_str());
  std::fflush(text_out());
  matrix::ScoreboardReport report;
  {
    ProgressBar bar(!o.quiet, 0, "scoreboard", "runs");
    const auto t0 = std::chrono::steady_clock::now();
    try {
      report = matrix::run_scoreboard(o.spec, [&](std::size_t done, std::size_t total) {
        bar.update(done, total, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      });
    } catch (const std::exception& e) {
      std::fprintf(stderr, "wsstress: error: %s\n", e.what());
      return kInternal;
    }
  }
  const std::string text = scoreboard_text(report);
  std::fwrite(text.data(), 1, text.size(), text_out());
  int code = scoreboard_exit_code(report);
  if (!o.svg_path.empty()) code = write_report("--svg", o.svg_path, scoreboard_svg(report), code);
  if (!o.html_path.empty()) code = write_report("--html", o.html_path, scoreboard_html(report), code);
  if (!o.json_path.empty()) code = write_report("--json", o.json_path, scoreboard_json(report), code);
  return code;
}

void add_options(CLI::App* cmd, ScoreboardOptions& o) {
  o.spec.base = sim::sim_command_defaults();
  o.spec.base.base.run.iterations = 3;  // as `wsstress sim`, so that replay lines need no --iterations
  o.strategies_text = joined(sim::strategy_names(), ",");
  completes(cmd->add_option("--strategies", o.strategies_text,
                            "comma-separated strategies (default: every one `sim --strategy` takes), or portfolio "
                            "weights such as portfolio:pos=6,sleep-first=3,pct=1"),
            sim::strategy_names())
      ->capture_default_str();
  completes(cmd->add_option("--memory", o.memory_text, "comma-separated memory models"), sim::memory_names())
      ->capture_default_str();
  std::vector<std::string> words = mutant_names();
  words.insert(words.begin(), kCaught);
  completes(cmd->add_option("--mutants", o.mutants_text,
                            "comma-separated targets: catalog mutants (none: the clean pool), or `caught`: the clean "
                            "pool and every mutant a simulator column of the matrix expects to catch under a model "
                            "given"),
            words)
      ->capture_default_str();
  completes(cmd->add_option("--scenarios", o.scenarios_text,
                            "comma-separated scenarios run on the clean pool as targets: NAME must pass, "
                            "NAME:fails has a known bug; PREFIX* is every scenario starting with PREFIX (a family)"),
            scenario_words());
  cmd->add_option("--runs", o.spec.runs, "independent runs per cell, each over its own seeds")
      ->check(whole_range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--seed", o.spec.seed,
                  "the board's seed: run r sweeps from (high 32 bits of mix(seed)) + r, times 2^32")
      ->check(whole_range(0, ~std::uint64_t{0}))
      ->capture_default_str();
  cmd->add_option("--budget", o.spec.budget, "schedules per run (DFS: executions of one seed's search)")
      ->check(whole_range(1, 1000000000))
      ->capture_default_str();
  cmd->add_option("--budget-seconds", o.spec.run_seconds,
                  "and wall seconds per run (0: none); a run it ends is a miss, and the board depends on the machine")
      ->check(finite_range(0, 1e6))
      ->capture_default_str();
  cmd->add_option("--jobs", o.spec.jobs, "worker processes")->check(whole_range(1, 256))->capture_default_str();
  auto& run = o.spec.base.base.run;
  add_table_option(cmd, "--threads", core::kSimCommand, run.threads);
  add_table_option(cmd, "--pools", core::kSimCommand, run.pools);
  add_table_option(cmd, "--iterations", core::kSimCommand, run.iterations);
  add_json(cmd, o.json_path, "write the board as JSON (schema wsstress.scoreboard/1), every run with its replay line");
  cmd->add_option("--svg", o.svg_path, "write the cumulative plot (share of targets found vs schedules) as SVG")
      ->check(output_path());
  cmd->add_option("--html", o.html_path, "write the table and the plot as one self-contained HTML page")
      ->check(output_path());
  add_quiet(cmd, o.quiet, "no progress line");
  cmd->footer(
      "Exit codes: 0 the board is complete and every clean target passed; 1 a clean target failed;\n"
      "3 a run could not be made; 128+N stopped by signal N (the finished cells are reported).\n"
      "Examples:\n"
      "  wsstress scoreboard --runs 20 --budget 300 --jobs 2 --svg board.svg --json board.json\n"
      "  wsstress scoreboard --runs 3 --budget 200 --strategies pct,pos --mutants none,late_is_blocked_lock\n"
      "  wsstress scoreboard --strategies portfolio,portfolio:pos=6,sleep-first=3,pct=1 --runs 5 --budget 300\n"
      "  wsstress scoreboard --mutants '' --scenarios 'cross*' --runs 5 --budget 100   # a scenario family, must pass");
}

}  // namespace

Subcommand add_scoreboard(CLI::App& parent) {
  CLI::App* cmd = parent.add_subcommand(
      "scoreboard", "schedules to the first failure per strategy x memory model x mutant, over independent runs: "
                    "median, 90th percentile, misses, and the cumulative plot");
  auto o = std::make_shared<ScoreboardOptions>();
  add_options(cmd, *o);
  return {cmd, [o] {
            if (auto ok = resolve(*o); !ok) return usage_error(ok.error());
            if (auto ok = claim_stdout({{"--json", &o->json_path}, {"--svg", &o->svg_path}, {"--html", &o->html_path}});
                !ok) {
              return usage_error(ok.error());
            }
            return scoreboard_command(*o);
          }};
}

}  // namespace wsstress::cli
