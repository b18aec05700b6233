// `wsstress`: the command-line front end. It parses (CLI11, kept to this one
// translation unit because it is slow to compile), runs the chosen subcommand
// and maps every outcome to a documented exit code (exit_codes.hpp).
#include <CLI/CLI.hpp>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "smoke.hpp"
#include "wsstress/stress/catalog.hpp"
#include "wsstress/stress/scenarios.hpp"

namespace {

using namespace wsstress::cli;

int usage_error(const std::string& what) {
  std::fprintf(stderr, "wsstress: error: %s (see --help)\n", what.c_str());
  return kUsage;
}

std::vector<std::string> mutant_names() {
  std::vector<std::string> names;
  for (const auto& m : wsstress::stress::mutant_catalog()) names.push_back(m.name);
  return names;
}

// The path of this executable, for the matrix's child runs.
std::string self_path(const char* argv0) {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) return std::string(buf, static_cast<std::size_t>(n));
  return argv0;
}

// A folder that exists and can be written, for an output file.
CLI::Validator writable_file_path() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        const auto slash = path.rfind('/');
        const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
        if (access(dir.c_str(), W_OK) != 0) return "folder '" + dir + "' does not exist or is not writable";
        return {};
      },
      "FILE");
}

// Reads --input: a program's bytes (at most 64 KiB; a program uses a few hundred).
bool read_input(const std::string& path, std::string& scenario, bool scenario_given, std::string& input,
                std::string& error) {
  if (scenario_given && scenario != "program") {
    error = "--input: a program file is for --scenario program, not '" + scenario + "'";
    return false;
  }
  scenario = "program";
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    error = "--input: cannot read '" + path + "'";
    return false;
  }
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    input.append(buf, n);
    if (input.size() > 65536) break;
  }
  std::fclose(f);
  if (input.empty()) {
    error = "--input: '" + path + "' is empty";
    return false;
  }
  if (input.size() > 65536) {
    error = "--input: '" + path + "' is over 64 KiB; a program file is a few hundred bytes";
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"wsstress: rayon-core's work-stealing pool in C++20, and the tool that tries to break it.\n"
               "Exit codes: 0 ok, 1 bug found, 2 usage error, 3 internal error, 4 hang."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "wsstress 0.1.0");

  // ---- smoke ----
  SmokeOptions smoke;
  CLI::App* smoke_cmd = app.add_subcommand("smoke", "quick end-to-end run of the pool: join, install, cross-pool, "
                                                    "broadcast, spawn, termination");
  smoke_cmd->add_option("--threads", smoke.threads, "worker threads per pool (0: RAYON_NUM_THREADS or CPU count)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{65535}));
  smoke_cmd->add_option("--fib", smoke.fib, "compute fib(N) with join")->check(CLI::Range(1, 40));
  smoke_cmd->add_option("--rounds", smoke.rounds, "repeat each step this many times")->check(CLI::Range(1, 100000));
  smoke_cmd->add_option("--timeout", smoke.timeout_seconds, "seconds before the watchdog declares a hang")
      ->check(CLI::Range(1, 86400));

  // ---- run ----
  RunOptions run;
  std::string seed_text, seeds_text, shard_text;
  auto& rs = run.campaign.run;
  CLI::App* run_cmd = app.add_subcommand(
      "run", "seeded randomized schedules on real threads, with a hang watchdog; exit 0 pass, 1 bug, 4 hang");
  CLI::Option* run_scenario_opt = run_cmd->add_option("--scenario", rs.scenario, "what to run")
      ->check(CLI::IsMember(wsstress::stress::scenario_names()))
      ->capture_default_str();
  auto* seed_opt = run_cmd->add_option("--seed", seed_text, "one seed (default 0)");
  run_cmd->add_option("--seeds", seeds_text, "an inclusive seed range A..B")->excludes(seed_opt);
  run_cmd->add_option("--threads", rs.threads, "worker threads per pool")
      ->check(CLI::Range(std::size_t{1}, std::size_t{256}))
      ->capture_default_str();
  run_cmd->add_option("--pools", rs.pools, "pools a scenario may use")
      ->check(CLI::Range(std::size_t{1}, std::size_t{8}))
      ->capture_default_str();
  run_cmd->add_option("--iterations", rs.iterations, "programs per seed")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}))
      ->capture_default_str();
  run_cmd->add_option("--timeout", rs.timeout_s, "seconds without progress that make a hang")
      ->check(CLI::Range(0.1, 86400.0))
      ->capture_default_str();
  run_cmd->add_option("--noise", rs.noise, "yields and short sleeps at race windows: 0 off .. 3 heavy")
      ->check(CLI::Range(0, 3))
      ->capture_default_str();
  run_cmd->add_option("--mutant", rs.mutant, "put a historical bug back (see `wsstress mutants list`)")
      ->check(CLI::IsMember(mutant_names()))
      ->capture_default_str();
  run_cmd->add_option("--json", run.json_path, "write the report as JSON (schema wsstress.run/1), atomically")
      ->check(writable_file_path());
  run_cmd->add_option("--shard", shard_text, "run shard I of N of the seed range (0 <= I < N)");
  run_cmd->add_option("--max-seconds", run.campaign.max_seconds, "stop the sweep after this long (0: no limit)")
      ->check(CLI::Range(0.0, 1e9));
  run_cmd->add_option("--repeat", run.campaign.repeat,
                      "run each seed this many times (on real threads a seed fixes the program and the noise, "
                      "not the interleaving)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1000000}));
  std::string run_input;
  auto* run_input_opt = run_cmd->add_option("--input", run_input,
                                            "a program file (a program_fuzzer input) for --scenario program");
  bool keep_going = false;
  run_cmd->add_flag("--keep-going", keep_going, "keep sweeping after a failure (a hang still ends the run)");
  run_cmd->add_flag("--quiet", run.quiet, "no progress bar and no text report");

  // ---- sim ----
  SimOptions simo;
  std::string sim_seed, sim_seeds, sim_shard, strategy_text = "random", memory_text = "sc";
  auto& ss = simo.campaign.base.run;
  ss.iterations = 3;
  CLI::App* sim_cmd = app.add_subcommand(
      "sim", "the deterministic simulator: every thread a fiber, one seed one interleaving; exit 0 pass, 1 bug, "
             "4 hang (lost wake-up or livelock)");
  CLI::Option* sim_scenario_opt = sim_cmd->add_option("--scenario", ss.scenario, "what to run")
      ->check(CLI::IsMember(wsstress::stress::scenario_names()))
      ->capture_default_str();
  auto* sim_seed_opt = sim_cmd->add_option("--seed", sim_seed, "one seed (default 0)");
  sim_cmd->add_option("--seeds", sim_seeds, "an inclusive seed range A..B")->excludes(sim_seed_opt);
  sim_cmd->add_option("--strategy", strategy_text, "random walk, PCT, or depth-first search with a preemption bound")
      ->check(CLI::IsMember({"random", "pct", "dfs"}))
      ->capture_default_str();
  sim_cmd->add_option("--memory", memory_text, "sequentially consistent, or x86-TSO store buffers")
      ->check(CLI::IsMember({"sc", "tso"}))
      ->capture_default_str();
  sim_cmd->add_option("--mutant", ss.mutant, "put a historical bug back")
      ->check(CLI::IsMember(mutant_names()))
      ->capture_default_str();
  sim_cmd->add_option("--threads", ss.threads, "worker threads per pool")
      ->check(CLI::Range(std::size_t{1}, std::size_t{64}))
      ->capture_default_str();
  sim_cmd->add_option("--pools", ss.pools, "pools a scenario may use")
      ->check(CLI::Range(std::size_t{1}, std::size_t{8}))
      ->capture_default_str();
  sim_cmd->add_option("--iterations", ss.iterations, "programs per seed")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}))
      ->capture_default_str();
  sim_cmd->add_option("--pct-depth", simo.campaign.config.pct_depth, "PCT: bug depth d")
      ->check(CLI::Range(1u, 64u))
      ->capture_default_str();
  sim_cmd->add_option("--preemption-bound", simo.campaign.config.preemption_bound, "DFS: preemptions per schedule")
      ->check(CLI::Range(0u, 64u))
      ->capture_default_str();
  sim_cmd->add_option("--max-executions", simo.campaign.max_executions, "DFS: schedules per seed at most")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1000000000}))
      ->capture_default_str();
  sim_cmd->add_option("--step-budget", simo.campaign.config.step_budget, "scheduling points before a livelock report")
      ->check(CLI::Range(std::uint64_t{1000}, std::uint64_t{1000000000000}))
      ->capture_default_str();
  sim_cmd->add_option("--shard", sim_shard, "run shard I of N of the seed range (0 <= I < N)");
  sim_cmd->add_option("--max-seconds", simo.campaign.base.max_seconds, "stop after this long (0: no limit)")
      ->check(CLI::Range(0.0, 1e9));
  sim_cmd->add_option("--json", simo.json_path, "write the report as JSON (schema wsstress.sim/1)")
      ->check(writable_file_path());
  sim_cmd->add_option("--repro", simo.repro_path, "where to write a failure's reproducer")->check(writable_file_path());
  sim_cmd->add_flag("--trace", simo.trace, "print a failure's interleaving with source locations");
  sim_cmd->add_option("--trace-out", simo.trace_out, "write a failure's trace as Chrome trace-event JSON (Perfetto)")
      ->check(writable_file_path());
  sim_cmd->add_flag("--shrink", simo.shrink, "minimise a failure's program and schedule before writing it");
  std::string sim_input;
  auto* sim_input_opt = sim_cmd->add_option("--input", sim_input,
                                            "a program file (a program_fuzzer input) for --scenario program");
  bool sim_keep_going = false;
  sim_cmd->add_flag("--keep-going", sim_keep_going, "keep sweeping after a failure");
  sim_cmd->add_flag("--quiet", simo.quiet, "no progress line");

  // ---- replay ----
  ReplayOptions replay;
  CLI::App* replay_cmd = app.add_subcommand("replay", "replay a simulator reproducer exactly");
  replay_cmd->add_option("file", replay.file, "the reproducer file")->required();
  replay_cmd->add_flag("--trace", replay.trace, "print the interleaving with source locations");
  replay_cmd->add_option("--trace-out", replay.trace_out, "write the trace as Chrome trace-event JSON (Perfetto)")
      ->check(writable_file_path());
  replay_cmd->add_flag("--shrink", replay.shrink, "minimise it, writing FILE.shrunk");

  // ---- fuzz ----
  FuzzOptions fuzz;
  CLI::App* fuzz_cmd = app.add_subcommand(
      "fuzz", "run a fuzz target (fuzz/) for a time budget and turn a finding into a reproducer; exit 0 no "
              "finding, 1 finding");
  fuzz_cmd->add_option("--target", fuzz.target, "program (nested programs on real threads) or schedule (the "
                                                "simulator's decisions)")
      ->check(CLI::IsMember({"program", "schedule"}))
      ->capture_default_str();
  fuzz_cmd->add_option("--time", fuzz.time_s, "seconds to fuzz")->check(CLI::Range(1.0, 604800.0))->capture_default_str();
  fuzz_cmd->add_option("--hang-timeout", fuzz.hang_timeout_s, "program: seconds without progress that make a hang")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  fuzz_cmd->add_option("--jobs", fuzz.jobs, "parallel fuzzing processes (libFuzzer -fork)")
      ->check(CLI::Range(1u, 256u))
      ->capture_default_str();
  fuzz_cmd->add_option("--mutant", fuzz.mutant, "put a historical bug back")
      ->check(CLI::IsMember(mutant_names()))
      ->capture_default_str();
  fuzz_cmd->add_option("--runs", fuzz.runs, "stop after this many inputs (0: only --time)")
      ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{1000000000000}));
  fuzz_cmd->add_option("--seed", fuzz.seed, "libFuzzer's random seed (0: its own choice)")
      ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{4294967295}));
  fuzz_cmd->add_option("--out", fuzz.out_dir, "folder for the working corpus and findings")->capture_default_str();
  fuzz_cmd->add_option("--fuzz-bin", fuzz.fuzz_bin, "folder of the fuzz targets (default: the build's fuzz/)")
      ->check(CLI::ExistingDirectory);
  fuzz_cmd->add_option("--convert", fuzz.convert, "convert this crash file into a reproducer instead of fuzzing");
  fuzz_cmd->add_option("--repro", fuzz.repro_path, "--convert: where to write the reproducer (default: FILE.repro)")
      ->check(writable_file_path());
  fuzz_cmd->add_option("--json", fuzz.json_path, "write the result as JSON (schema wsstress.fuzz/1)")
      ->check(writable_file_path());
  fuzz_cmd->add_flag("--quiet", fuzz.quiet, "no progress line");

  // ---- relacy ----
  RelacyOptions relacy;
  std::string relacy_search;
  unsigned relacy_bound = 0;
  std::uint64_t relacy_iterations = 0;
  CLI::App* relacy_cmd = app.add_subcommand(
      "relacy", "Relacy models of the sleep handshake, latches, cross-pool wake, broadcast, termination and deque, "
                "compiled from the pool's sources; exit 0 pass, 1 a model failed, 4 time or memory limit without a verdict");
  relacy_cmd->add_option("--model", relacy.models, "a model to run (repeatable; default: all; see --list)");
  relacy_cmd->add_option("--mutant", relacy.mutant,
                         "run the models against this mutant instead of the clean pool; 'all': the self-test of "
                         "every targeted mutant (exit 0 iff each did what the model table expects)");
  auto* search_opt = relacy_cmd->add_option("--search", relacy_search, "override the model's search")
                         ->check(CLI::IsMember({"random", "bound", "full"}));
  auto* bound_opt = relacy_cmd->add_option("--bound", relacy_bound, "context bound for --search bound")
                        ->check(CLI::Range(0u, 20u));
  auto* iter_opt = relacy_cmd->add_option("--iterations", relacy_iterations, "executions for --search random")
                       ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1000000000}));
  relacy_cmd->add_option("--time-limit", relacy.time_limit, "seconds per search before it is stopped")
      ->check(CLI::Range(1.0, 86400.0))
      ->capture_default_str();
  relacy_cmd->add_option("--memory-limit", relacy.memory_limit,
                         "GiB of resident memory per search before it is stopped")
      ->check(CLI::Range(0.001, 1024.0))
      ->capture_default_str();
  relacy_cmd->add_option("--json", relacy.json_path, "write the verdicts as JSON (schema wsstress.relacy/1)")
      ->check(writable_file_path());
  relacy_cmd->add_option("--trace-out", relacy.trace_out, "write the first failing execution's whole Relacy report to FILE")
      ->check(writable_file_path());
  relacy_cmd->add_flag("--full-trace", relacy.full_trace, "print the whole report, not its last 60 events");
  relacy_cmd->add_flag("--list", relacy.list, "list the models: claim, configuration, search, mutants");
  relacy_cmd->add_flag("--quiet", relacy.quiet, "verdict lines only, no notes or traces");

  // ---- mutants ----
  CLI::App* mutants_cmd = app.add_subcommand("mutants", "the mutant catalog: list it, or check every engine catches it");
  mutants_cmd->require_subcommand(1);
  CLI::App* list_cmd = mutants_cmd->add_subcommand("list", "name, upstream history and failure of every mutant");
  CheckOptions check;
  std::string only_text;
  CLI::App* check_cmd = mutants_cmd->add_subcommand(
      "check", "run every mutant (and the clean pool) for a time budget; print the matrix; exit 1 if any row is "
               "not as the catalog expects");
  std::string engines_text = "stress";
  check_cmd->add_option("--engine", engines_text,
                        "comma-separated engines: stress, sim-sc, sim-tso (PCT), sim-random, relacy, fuzz-program, "
                        "fuzz-schedule")
      ->capture_default_str();
  check_cmd->add_option("--budget", check.matrix.budget_s, "seconds per mutant")
      ->check(CLI::Range(0.5, 86400.0))
      ->capture_default_str();
  check_cmd->add_option("--hang-timeout", check.matrix.hang_timeout_s, "seconds without progress that make a hang")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  check_cmd->add_option("--only", only_text, "comma-separated mutants to check (default: all)");
  std::vector<std::string> expect_kind_text;
  check_cmd->add_option("--expect-kind", expect_kind_text,
                        "MUTANT=KINDS: replace the catalog's expected failure kinds (hang, data_race, use_after_free, "
                        "assertion, wrong_result, crash; '|' between several), to check the check (repeatable)");
  check.matrix.base.iterations = 10;
  check.matrix.base.noise = 2;
  check_cmd->add_option("--threads", check.matrix.base.threads, "worker threads per pool")
      ->check(CLI::Range(std::size_t{1}, std::size_t{256}))
      ->capture_default_str();
  check_cmd->add_option("--pools", check.matrix.base.pools, "pools a scenario may use")
      ->check(CLI::Range(std::size_t{1}, std::size_t{8}))
      ->capture_default_str();
  check_cmd->add_option("--iterations", check.matrix.base.iterations, "programs per seed")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}))
      ->capture_default_str();
  check_cmd->add_option("--noise", check.matrix.base.noise, "noise level 0..3")
      ->check(CLI::Range(0, 3))
      ->capture_default_str();
  check_cmd->add_option("--json", check.json_path, "write the matrix as JSON (schema wsstress.mutants/1)")
      ->check(writable_file_path());

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    for (char& c : what) {
      if (c == '\n') c = ' ';
    }
    return usage_error(what);
  }

  if (smoke_cmd->parsed()) return run_smoke(smoke);

  if (run_cmd->parsed()) {
    std::string error;
    if (!seeds_text.empty()) {
      if (!parse_seed_range(seeds_text, run.campaign.seeds, error)) return usage_error("--seeds: " + error);
    } else if (!seed_text.empty()) {
      if (!parse_seed_range(seed_text, run.campaign.seeds, error) || run.campaign.seeds.from != run.campaign.seeds.to) {
        return usage_error("--seed: " + (error.empty() ? "'" + seed_text + "' is one seed, not a range" : error));
      }
    }
    if (!shard_text.empty() && !parse_shard(shard_text, run.campaign.shard, error)) {
      return usage_error("--shard: " + error);
    }
    if (run_input_opt->count() > 0) {
      if (!read_input(run_input, rs.scenario, run_scenario_opt->count() > 0, rs.input, error)) return usage_error(error);
      rs.input_path = run_input;
    }
    run.campaign.stop_on_failure = !keep_going;
    run.campaign.program = "wsstress";
    return run_command(run);
  }

  if (sim_cmd->parsed()) {
    std::string error;
    auto& c = simo.campaign.base;
    if (!sim_seeds.empty()) {
      if (!parse_seed_range(sim_seeds, c.seeds, error)) return usage_error("--seeds: " + error);
    } else if (!sim_seed.empty()) {
      if (!parse_seed_range(sim_seed, c.seeds, error) || c.seeds.from != c.seeds.to) {
        return usage_error("--seed: " + (error.empty() ? "'" + sim_seed + "' is one seed, not a range" : error));
      }
    }
    if (!sim_shard.empty() && !parse_shard(sim_shard, c.shard, error)) return usage_error("--shard: " + error);
    if (sim_input_opt->count() > 0) {
      if (!read_input(sim_input, ss.scenario, sim_scenario_opt->count() > 0, ss.input, error)) return usage_error(error);
      ss.input_path = sim_input;
    }
    c.stop_on_failure = !sim_keep_going;
    auto& cfg = simo.campaign.config;
    cfg.strategy = strategy_text == "pct" ? wsstress::sim::Strategy::PCT
                   : strategy_text == "dfs" ? wsstress::sim::Strategy::DFS
                                            : wsstress::sim::Strategy::Random;
    cfg.memory = memory_text == "tso" ? wsstress::sim::MemoryModel::TSO : wsstress::sim::MemoryModel::SC;
    return sim_command(simo);
  }
  if (replay_cmd->parsed()) return replay_command(replay);
  if (fuzz_cmd->parsed()) {
    fuzz.self = self_path(argv[0]);
    return fuzz_command(fuzz);
  }
  if (relacy_cmd->parsed()) {
    if (search_opt->count() > 0) relacy.search = relacy_search;
    if (bound_opt->count() > 0) relacy.bound = relacy_bound;
    if (iter_opt->count() > 0) relacy.iterations = relacy_iterations;
    return relacy_command(relacy);
  }

  if (list_cmd->parsed()) return mutants_list_command();
  if (check_cmd->parsed()) {
    for (std::size_t start = 0;;) {
      const auto comma = engines_text.find(',', start);
      const std::string e = engines_text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (e != "stress" && e != "sim-sc" && e != "sim-tso" && e != "sim-random" && e != "relacy" &&
          e != "fuzz-program" && e != "fuzz-schedule") {
        return usage_error("--engine: unknown engine '" + e +
                           "' (engines: stress, sim-sc, sim-tso, sim-random, relacy, fuzz-program, fuzz-schedule)");
      }
      check.engines.push_back(e);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    std::size_t start = 0;
    while (!only_text.empty() && start <= only_text.size()) {
      const auto comma = only_text.find(',', start);
      const std::string name = only_text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (name.empty()) return usage_error("--only: empty mutant name in '" + only_text + "'");
      check.matrix.only.push_back(name);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    for (const std::string& e : expect_kind_text) {
      const auto eq = e.find('=');
      const auto kinds = eq == std::string::npos ? 0 : wsstress::stress::parse_failure_kinds(e.substr(eq + 1));
      if (kinds == 0) return usage_error("--expect-kind: '" + e + "' is not MUTANT=KIND[|KIND...] with known kinds");
      if (wsstress::stress::find_mutant(e.substr(0, eq)) == nullptr) {
        return usage_error("--expect-kind: unknown mutant '" + e.substr(0, eq) + "'");
      }
      check.matrix.expect_kinds[e.substr(0, eq)] = kinds;
    }
    check.matrix.self = self_path(argv[0]);
    return mutants_check_command(check);
  }
  return kUsage;
}
