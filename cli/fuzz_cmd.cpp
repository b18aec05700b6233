// SPDX-License-Identifier: MIT OR Apache-2.0
// `wsstress fuzz`: runs a fuzz target (fuzz/: libFuzzer under the fuzz preset,
// the standalone random driver under g++) as a child for a time budget, shows
// its progress, and turns a finding into a reproducer `wsstress replay` runs;
// `--convert` does the same for a crash file found elsewhere (OSS-Fuzz,
// ClusterFuzzLite, a colleague's run). The running and the conversion are the
// fuzz engines' (wsstress/engines/fuzz.hpp), which the matrix's columns use too.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "output.hpp"
#include "report.hpp"
#include "wsstress/core/catalog.hpp"
#include "wsstress/core/run_flags.hpp"
#include "wsstress/core/shown.hpp"
#include "wsstress/core/sweep.hpp"
#include "wsstress/matrix/fuzz.hpp"
#include "wsstress/sim/fuzz_input.hpp"
#include "wsstress/sim/reads_from.hpp"

namespace wsstress::cli {

// A namespace of its own, so that the using-directive stays in this file (a
// unity build merges files).
namespace fuzz_cmd {

using namespace matrix;  // FuzzOptions, running a target, converting a finding

namespace {

// A crash file turned into a reproducer (engines/fuzz.hpp), and the file it
// was written to (a failing input stays a finding without it).
struct ConvertedFile : Converted {
  std::string repro_path;
  Result<void> written;
};

Result<ConvertedFile> convert(const FuzzOptions& o, const std::string& crash, const std::string& repro_path) {
  Result<Converted> c = convert_crash(o, crash);
  if (!c) return fail(c.error());
  ConvertedFile out{std::move(*c), repro_path, {}};
  if (out.crashed) {
    out.repro_path = crash;  // nothing replayed to the end: the crash file is the reproducer
    return out;
  }
  out.written = write_output(repro_path, out.repro);
  return out;
}

// A crash input whose simulator replay crashes: converting it again shows the crash again.
std::string crash_replay_command(const FuzzOptions& o, const std::string& crash) {
  return core::fuzz_command({.target = o.target, .convert = crash, .mutant = o.mutant, .scenario = o.scenario});
}

void print_converted(const FuzzOptions& o, const ConvertedFile& c, const std::string& crash) {
  std::fprintf(text_out(), "  crash input: %s\n", crash.c_str());
  if (!c.program_text.empty()) {
    std::fprintf(text_out(), "  program:\n");
    std::istringstream lines(c.program_text);
    for (std::string l; std::getline(lines, l);) std::fprintf(text_out(), "    %s\n", l.c_str());
  }
  if (c.crashed) {
    std::fprintf(text_out(), "  simulator:   %s: %s\n", c.verdict.c_str(), c.message.c_str());
    std::fprintf(text_out(), "  reproducer:  %s (the crash input; the simulator's replay of it crashes)\n",
                 crash.c_str());
    std::fprintf(text_out(), "  replay:      %s\n", crash_replay_command(o, crash).c_str());
  } else if (c.failing) {
    std::fprintf(text_out(), "  simulator:   %s: %s\n", c.verdict.c_str(), c.message.c_str());
    std::fprintf(text_out(), "  reproducer:  %s (exact: every scheduling decision recorded)\n", c.repro_path.c_str());
    std::fprintf(text_out(), "  replay:      %s\n", core::repro_replay_command(c.repro_path, true).c_str());
  } else if (takes_programs(o.target)) {
    std::fprintf(
        text_out(),
        "  simulator:   no failing interleaving found for this program (100 seeds x SC/TSO, the portfolio's strategies)\n");
    std::fprintf(text_out(), "  reproducer:  %s (the program; replays the simulator's seed 0)\n", c.repro_path.c_str());
  } else {
    std::fprintf(text_out(), "  simulator:   this input's run passes (%s)\n",
                 c.message.empty() ? "no failure" : c.message.c_str());
    std::fprintf(text_out(), "  reproducer:  %s (its schedule, recorded)\n", c.repro_path.c_str());
  }
  if (takes_programs(o.target)) {
    std::fprintf(text_out(), "  real threads: %s\n", core::program_run_command(crash, o.mutant).c_str());
  }
  if (o.target == "oracle") {
    std::fprintf(text_out(), "  both:         %s (the port and rayon-core 1.10.1)\n",
                 core::oracle_command(crash, o.mutant).c_str());
  }
}

// Whether `path` is a reproducer (its first line 'wsstress-repro N'), which
// `wsstress replay` runs: a fuzz target's input has no header of its own.
bool is_reproducer(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[15] = {};
  in.read(head, sizeof head);
  return in.gcount() == sizeof head && std::string(head, sizeof head) == "wsstress-repro ";
}

// --convert: a crash file found elsewhere, turned into a reproducer. Any
// bytes are an input of every target, so the target is never guessed.
int convert_command(const FuzzOptions& o, bool target_given) {
  const std::string repro = o.repro_path.empty() ? o.convert + ".repro" : o.repro_path;
  if (is_dir(o.convert)) return usage_error("--convert: " + shown(o.convert) + " is a directory, not a crash file");
  if (access(o.convert.c_str(), R_OK) != 0) {
    return usage_error("--convert: cannot read " + shown(o.convert) + ": " + std::strerror(errno));
  }
  if (is_reproducer(o.convert)) {
    return usage_error("--convert: " + shown(o.convert) + " is a wsstress reproducer, not a fuzz input: run it with " +
                       core::repro_replay_command(o.convert));
  }
  if (!target_given) {
    return usage_error("--convert needs --target (program, oracle, schedule or reads_from): any bytes are an input "
                       "of each, so the file cannot say which fuzzer found it");
  }
  const Result<ConvertedFile> converted = convert(o, o.convert, repro);
  if (!converted) {
    std::fprintf(stderr, "wsstress: error: %s\n", converted.error().c_str());
    return kInternal;
  }
  const ConvertedFile& c = *converted;
  if (!c.written) {
    std::fprintf(stderr, "wsstress: error: %s\n", c.written.error().c_str());
    if (!c.failing) return kInternal;  // a failing input stays a finding when only its reproducer was not written
  }
  std::fprintf(text_out(), "convert: %s_fuzzer input, mutant %s: %s\n", o.target.c_str(), o.mutant.c_str(),
               c.failing ? "fails" : "passes in the simulator");
  print_converted(o, c, o.convert);
  return c.failing ? kFailed : kOk;
}

// The outcome, as text and as the JSON report's document.
int report_fuzz(const FuzzOptions& o, const FuzzRun& run, const std::string& corpus, nlohmann::json& j) {
  const double secs = run.secs;
  j = {{"schema", "wsstress.fuzz/1"},
       {"target", o.target},
       {"mutant", o.mutant},
       {"scenario", o.scenario.empty() ? nlohmann::json() : nlohmann::json(o.scenario)},
       {"engine", run.engine},
       {"seconds", secs},
       {"runs", run.execs},
       {"exec_per_s", secs > 0 ? static_cast<double>(run.execs) / secs : 0.0},
       // The standalone driver measures no coverage: null, not a 0 that reads as one.
       {"coverage", run.standalone ? nlohmann::json() : nlohmann::json(run.cov)},
       {"failures", nlohmann::json::array()},
       {"stopped_by",
        run.stopped_by_signal != 0 ? nlohmann::json(core::signal_name(run.stopped_by_signal)) : nlohmann::json()}};
  std::fprintf(text_out(), "fuzz: %s_fuzzer, mutant %s%s, %s\n", o.target.c_str(), o.mutant.c_str(),
               o.scenario.empty() ? "" : (", scenario " + o.scenario).c_str(), run.engine.c_str());
  if (run.standalone && o.jobs > 1) {
    std::fprintf(stderr,
                 "wsstress: note: --jobs %u needs libFuzzer (the fuzz preset's build: cmake --workflow "
                 "--preset fuzz); this build's standalone driver ran one process\n",
                 o.jobs);
  }
  if (run.killed) {
    std::fprintf(text_out(), "fuzz: the fuzzer did not stop at its time budget; stopped it after %.0f s\n", secs);
    return kHang;
  }
  if (!run.crash.empty()) {
    std::fprintf(text_out(), "fuzz: FINDING after %llu executions in %.1f s\n",
                 static_cast<unsigned long long>(run.finding_execs), secs);
    const Result<ConvertedFile> converted = convert(o, run.crash, run.crash + ".repro");
    // A crash file that cannot be read, or a reproducer that cannot be
    // written, is said; the finding still stands.
    if (!converted) std::fprintf(stderr, "wsstress: error: %s\n", converted.error().c_str());
    const ConvertedFile c = converted ? *converted : ConvertedFile{};
    if (!c.written) std::fprintf(stderr, "wsstress: error: %s\n", c.written.error().c_str());
    // The target's own report (verdict, state dump) is in the child's output.
    for (const std::string& l : run.verdict_lines) std::fprintf(text_out(), "  %s\n", l.substr(3).c_str());
    print_converted(o, c, run.crash);
    j["failures"].push_back(
        {{"verdict", c.failing ? c.verdict : std::string("bug")},
         {"message", c.message},
         {"crash", run.crash},
         {"repro", c.repro_path},
         {"replay", c.crashed ? crash_replay_command(o, run.crash) : core::repro_replay_command(c.repro_path)},
         {"executions", run.finding_execs},
         {"at_seconds", secs}});
    return kFailed;
  }
  if (run.stopped_by_signal != 0) {
    std::fprintf(text_out(), "fuzz: stopped by %s: no finding in %llu executions in %.1f s, corpus %s\n",
                 core::signal_name(run.stopped_by_signal).c_str(), static_cast<unsigned long long>(run.execs), secs,
                 corpus.c_str());
    return 128 + run.stopped_by_signal;
  }
  if (WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0) {
    const std::string coverage =
        run.standalone ? "coverage: not measured (standalone driver)" : "coverage " + std::to_string(run.cov);
    std::fprintf(text_out(), "fuzz: no finding: %llu executions in %.1f s (%.0f exec/s), %s, corpus %s\n",
                 static_cast<unsigned long long>(run.execs), secs,
                 secs > 0 ? static_cast<double>(run.execs) / secs : 0.0, coverage.c_str(), corpus.c_str());
    return kOk;
  }
  std::fprintf(stderr, "wsstress: error: the fuzz target ended (%s %d) without a finding; its last lines:\n",
               WIFEXITED(run.status) ? "exit" : "signal",
               WIFEXITED(run.status) ? WEXITSTATUS(run.status) : WTERMSIG(run.status));
  for (std::size_t i = run.tail.size() > 15 ? run.tail.size() - 15 : 0; i < run.tail.size(); ++i) {
    std::fprintf(stderr, "  %s\n", run.tail[i].c_str());
  }
  return kInternal;
}

// --reads-from: the loop runs here (no fuzz target); its finding is a
// reproducer at once, as exact as the target's.
int reads_from_command(const FuzzOptions& o) {
  if (mkdir(o.out_dir.c_str(), 0755) != 0 && errno != EEXIST) {
    std::fprintf(stderr, "wsstress: error: --out: cannot create %s: %s\n", shown(o.out_dir).c_str(),
                 std::strerror(errno));
    return kUsage;
  }
  sim::ReadsFromOptions ro;
  ro.mutant = o.mutant;
  ro.scenario = o.scenario;
  ro.seed = o.seed != 0 ? o.seed : std::random_device{}();
  ro.max_schedules = o.runs != 0 ? o.runs : UINT64_MAX;
  ro.max_seconds = o.time_s;
  ro.max_constraints = o.max_constraints;
  const std::string scenario = sim::reads_from_scenario(o.mutant, o.scenario);
  std::fprintf(text_out(),
               "fuzz: reads-from fuzzing (in process), mutant %s, scenario %s, seed %llu, at most %u constraints\n",
               o.mutant.c_str(), scenario.c_str(), static_cast<unsigned long long>(ro.seed), ro.max_constraints);
  const bool tty = !o.quiet && isatty(2);
  const sim::ReadsFromResult r = sim::reads_from_fuzz(ro, [&](const sim::ReadsFromResult& p) {
    if (tty)
      std::fprintf(stderr, "\rfuzz reads-from: %.0f s, %llu schedules, %zu pairs, corpus %zu   ", p.seconds,
                   static_cast<unsigned long long>(p.schedules), p.pairs, p.corpus);
  });
  if (tty) std::fprintf(stderr, "\n");
  nlohmann::json j = {{"schema", "wsstress.fuzz/1"},
                      {"target", "schedule"},
                      {"mutant", o.mutant},
                      {"scenario", o.scenario.empty() ? nlohmann::json() : nlohmann::json(o.scenario)},
                      {"engine", "reads-from (in process)"},
                      {"seconds", r.seconds},
                      {"runs", r.schedules},
                      {"exec_per_s", r.seconds > 0 ? static_cast<double>(r.schedules) / r.seconds : 0.0},
                      {"coverage", r.pairs},
                      {"failures", nlohmann::json::array()},
                      {"stopped_by", nullptr}};
  int code = kOk;
  if (r.found) {
    const std::string path = o.out_dir + "/reads-from-" + std::to_string(ro.seed) + ".repro";
    const Result<void> written = write_output(path, sim::write_repro(r.repro));
    if (!written) std::fprintf(stderr, "wsstress: error: %s\n", written.error().c_str());
    // The failing abstract schedule, as reads_from_fuzzer reads it.
    const std::string input = o.out_dir + "/reads-from-" + std::to_string(ro.seed) + ".input";
    const Result<void> kept = write_output(input, std::string(r.input.begin(), r.input.end()));
    if (!kept) std::fprintf(stderr, "wsstress: error: %s\n", kept.error().c_str());
    std::string cs;
    for (const std::string& c : r.constraints) cs += (cs.empty() ? "" : ", ") + c;
    std::fprintf(text_out(), "fuzz: FINDING after %llu schedules in %.1f s (%zu kept, %zu reads-from pairs)\n",
                 static_cast<unsigned long long>(r.schedules), r.seconds, r.corpus, r.pairs);
    std::fprintf(text_out(), "  constraints: %s\n", cs.empty() ? "none (the walk alone)" : cs.c_str());
    std::fprintf(text_out(), "  simulator:   %s: %s (%s)\n", r.repro.verdict.c_str(), r.repro.message.c_str(),
                 sim::memory_name(r.repro.config.memory));
    std::fprintf(text_out(), "  reproducer:  %s (exact: every scheduling decision recorded)\n", path.c_str());
    std::fprintf(text_out(), "  replay:      %s\n", core::repro_replay_command(path, true).c_str());
    std::fprintf(
        text_out(), "  input:       %s (reads_from_fuzzer's; %s)\n", input.c_str(),
        core::fuzz_command({.target = "reads_from", .convert = input, .mutant = o.mutant, .scenario = o.scenario})
            .c_str());
    j["failures"].push_back({{"verdict", r.repro.verdict},
                             {"message", r.repro.message},
                             {"crash", nullptr},
                             {"repro", path},
                             {"replay", core::repro_replay_command(path)},
                             {"executions", r.schedules},
                             {"at_seconds", r.seconds}});
    code = kFailed;
  } else {
    std::fprintf(
        text_out(),
        "fuzz: no finding: %llu schedules in %.1f s, %zu reads-from pairs, corpus %zu, %llu postponed loads run by force\n",
        static_cast<unsigned long long>(r.schedules), r.seconds, r.pairs, r.corpus,
        static_cast<unsigned long long>(r.forced));
  }
  return o.json_path.empty() ? code : write_report("--json", o.json_path, j.dump(2) + "\n", code);
}

int fuzz_command(const FuzzOptions& o, bool target_given) {
  if (!o.convert.empty()) return convert_command(o, target_given);
  if (o.reads_from) return reads_from_command(o);
  const std::string bin_dir = o.fuzz_bin.empty() ? default_fuzz_bin(o.self) : o.fuzz_bin;
  const std::string bin = bin_dir + "/" + o.target + "_fuzzer";
  if (!is_exec(bin)) {
    std::fprintf(stderr,
                 "wsstress: error: no fuzz target %s (build it: cmake --workflow --preset fuzz, then run "
                 "build/fuzz/cli/wsstress fuzz, or pass --fuzz-bin)\n",
                 bin.c_str());
    return kUsage;
  }
  if (mkdir(o.out_dir.c_str(), 0755) != 0 && errno != EEXIST) {
    std::fprintf(stderr, "wsstress: error: --out: cannot create %s: %s\n", shown(o.out_dir).c_str(),
                 std::strerror(errno));
    return kUsage;
  }
  const std::string corpus = o.out_dir + "/corpus-" + o.target;
  if (mkdir(corpus.c_str(), 0755) != 0 && errno != EEXIST) {
    std::fprintf(stderr, "wsstress: error: cannot create %s: %s\n", shown(corpus).c_str(), std::strerror(errno));
    return kInternal;
  }
  const core::StopSignals stop;  // a signal is passed on to the fuzzer, which reports what it ran
  int fd = -1;
  const pid_t pid = start_fuzzer(fuzzer_args(o, bin, corpus), fd);
  if (pid < 0) {
    std::fprintf(stderr, "wsstress: error: cannot start %s: %s\n", bin.c_str(), std::strerror(errno));
    return kInternal;
  }
  const FuzzRun run = watch_fuzzer(o, pid, fd);
  nlohmann::json j;
  const int code = report_fuzz(o, run, corpus, j);
  return o.json_path.empty() ? code : write_report("--json", o.json_path, j.dump(2) + "\n", code);
}

// Returns the --target option, whose count --convert needs.
CLI::Option* add_fuzz_options(CLI::App* cmd, FuzzOptions& o) {
  CLI::Option* target =
      one_of(cmd->add_option("--target", o.target,
                             "program (nested programs on real threads), oracle (the same programs on the port and on "
                             "rayon-core 1.10.1, compared), schedule (the simulator's decisions) or reads_from (the "
                             "simulator steered by reads-from constraints, RFF under libFuzzer)"),
             {"program", "oracle", "schedule", "reads_from"})
          ->capture_default_str();
  add_max_seconds(cmd, o.time_s, "seconds to fuzz", 1.0, 604800.0);
  add_table_option(cmd, "--hang-timeout", core::kFuzzCommand, o.hang_timeout_s);
  cmd->add_option("--jobs", o.jobs, "parallel fuzzing processes (libFuzzer -fork)")->check(whole_range(1, 256));
  add_table_option(cmd, "--mutant", core::kFuzzCommand, o.mutant);
  one_of(cmd->add_option("--scenario", o.scenario,
                         "--target schedule or reads_from: fuzz this scenario's schedules only (default: each "
                         "input's first byte picks); give it to --convert too"),
         sim::schedule_fuzz_scenarios());
  cmd->add_option("--runs", o.runs, "stop after this many inputs (0: only --max-seconds)")
      ->check(whole_range(0, 1000000000000));
  cmd->add_option("--fuzzer-seed", o.seed, "libFuzzer's random seed (0: its own choice)")
      ->check(whole_range(0, 4294967295));
  cmd->add_flag("--reads-from", o.reads_from,
                "--target schedule: reads-from fuzzing (RFF) in this process instead of the fuzz target: abstract "
                "schedules of reads-from constraints, kept for new reads-from pairs; --runs counts schedules, "
                "--fuzzer-seed seeds it");
  cmd->add_option("--max-constraints", o.max_constraints,
                  "--reads-from: constraints per abstract schedule (0: none, a seeded random walk per schedule)")
      ->check(whole_range(0, 64))
      ->capture_default_str();
  completes_files(cmd->add_option("--out", o.out_dir, "folder for the working corpus and findings"))
      ->capture_default_str();
  completes_files(cmd->add_option("--fuzz-bin", o.fuzz_bin, "folder of the fuzz targets (default: the build's fuzz/)"))
      ->check(CLI::ExistingDirectory);
  completes_files(
      cmd->add_option("--convert", o.convert, "convert this crash file into a reproducer instead of fuzzing"));
  cmd->add_option("--repro", o.repro_path, "--convert: where to write the reproducer (default: FILE.repro)")
      ->check(output_path());
  add_json(cmd, o.json_path, "write the result as JSON (schema wsstress.fuzz/1)");
  add_quiet(cmd, o.quiet, "no progress line");
  cmd->footer(
      "Examples:\n"
      "  wsstress fuzz --target schedule --mutant no_sleep_fence --max-seconds 60\n"
      "  wsstress fuzz --target schedule --scenario inject --mutant no_gate5 --max-seconds 60\n"
      "  wsstress fuzz --target program --fuzzer-seed 1 --runs 10000\n"
      "  wsstress fuzz --target oracle --fuzzer-seed 1 --runs 10000   # differential: port vs rayon-core\n"
      "  wsstress fuzz --target schedule --reads-from --mutant no_gate5 --fuzzer-seed 1 --runs 2000\n"
      "  wsstress fuzz --target reads_from --scenario inject --mutant no_gate5 --fuzzer-seed 1 --runs 3000\n"
      "  wsstress fuzz --target schedule --convert crash-1234 --repro f.repro   # then: wsstress replay f.repro");
  return target;
}

}  // namespace
}  // namespace fuzz_cmd

Subcommand add_fuzz(CLI::App& parent, const std::string& self) {
  using namespace fuzz_cmd;
  auto o = std::make_shared<FuzzOptions>();
  o->self = self;
  CLI::App* cmd = parent.add_subcommand(
      "fuzz", "run a fuzz target (fuzz/) for a time budget and turn a finding into a reproducer; exit 0 no "
              "finding, 1 finding");
  CLI::Option* target = add_fuzz_options(cmd, *o);
  return {
      cmd, [o, target] {
        auto ok = claim_stdout({{"--convert", &o->convert}, {"--json", &o->json_path}, {"--repro", &o->repro_path}});
        if (!ok) return usage_error(ok.error());
        if (!o->scenario.empty() && o->target != "schedule" && o->target != "reads_from") {
          return usage_error("--scenario is for --target schedule or reads_from");
        }
        if (o->reads_from && o->target != "schedule") return usage_error("--reads-from is for --target schedule");
        if (o->reads_from && !o->convert.empty())
          return usage_error("--reads-from fuzzes; --convert converts: give one");
        // A working folder that cannot be one is a bad command line, said before any work.
        if (struct stat st{}; o->convert.empty() && ::stat(o->out_dir.c_str(), &st) == 0) {
          if (!S_ISDIR(st.st_mode)) return usage_error("--out: " + shown(o->out_dir) + " is not a folder");
          if (::access(o->out_dir.c_str(), W_OK | X_OK) != 0) {
            return usage_error("--out: folder " + shown(o->out_dir) + " cannot be written (" + std::strerror(errno) +
                               ")");
          }
        }
        return fuzz_command(*o, target->count() > 0);
      }};
}

}  // namespace wsstress::cli
