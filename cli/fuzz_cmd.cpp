// `wsstress fuzz`: runs a fuzz target (fuzz/: libFuzzer under the fuzz preset,
// the standalone random driver under g++) as a child for a time budget, shows
// its progress, and turns a finding into a reproducer `wsstress replay` runs;
// `--convert` does the same for a crash file found elsewhere (OSS-Fuzz,
// ClusterFuzzLite, a colleague's run).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "output.hpp"
#include "report.hpp"
#include "wsstress/sim/fuzz_input.hpp"
#include "wsstress/stress/catalog.hpp"
#include "wsstress/stress/sweep.hpp"

#ifndef WSSTRESS_SOURCE_DIR
#define WSSTRESS_SOURCE_DIR "."
#endif

namespace wsstress::cli {

namespace {

struct FuzzOptions {
  std::string target = "schedule";  // program | schedule
  double time_s = 60;
  double hang_timeout_s = 10;        // program_fuzzer's watchdog
  unsigned jobs = 1;
  std::string mutant = "none";
  std::string convert;               // a crash file to turn into a reproducer instead of fuzzing
  std::string repro_path;            // --convert: where (default: FILE.repro)
  std::string fuzz_bin;              // the fuzz targets' folder (default: ../fuzz from this wsstress)
  std::string out_dir = "wsstress-fuzz";
  std::string json_path;
  std::uint64_t runs = 0, seed = 0;
  bool quiet = false;
  std::string self;
};

bool read_bytes(const std::string& path, std::vector<std::uint8_t>& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

bool is_dir(const std::string& p) {
  struct stat st{};
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_exec(const std::string& p) { return access(p.c_str(), X_OK) == 0 && !is_dir(p); }

// A crash file turned into a reproducer, and what replaying it showed.
struct Converted {
  bool failing = false;        // the reproducer fails when replayed
  std::string verdict, message, repro_path, program_text;
  std::string error;           // could not convert (empty: fine)
};

Converted convert(const std::string& target, const std::string& mutant, const std::string& crash,
                  const std::string& repro_path) {
  Converted c;
  std::vector<std::uint8_t> bytes;
  if (!read_bytes(crash, bytes)) {
    c.error = crash + ": cannot read the crash file";
    return c;
  }
  sim::Repro rep;
  if (target == "schedule") {
    const sim::ScheduleInput in = sim::decode_schedule_input(bytes.data(), bytes.size(), mutant);
    const sim::SimResult r = sim::find_sim_runner(mutant)(in.spec, in.config);
    rep = sim::schedule_repro(in, r);
    c.failing = r.verdict.kind != stress::VerdictKind::Pass;
    if (in.spec.scenario == "program") {
      stress::ByteSource src(reinterpret_cast<const std::uint8_t*>(in.spec.input.data()), in.spec.input.size());
      c.program_text = stress::Program::decode(src).render();
    }
  } else {
    // A program found on real threads: the program is exact; look for a
    // simulator interleaving that fails it too (then the replay is exact).
    rep = sim::program_repro(bytes.data(), bytes.size(), mutant, 50, c.failing);
    stress::ByteSource src(reinterpret_cast<const std::uint8_t*>(rep.spec.input.data()), rep.spec.input.size());
    c.program_text = stress::Program::decode(src).render();
  }
  c.verdict = rep.verdict;
  c.message = rep.message;
  c.repro_path = repro_path;
  const std::string err = write_output(repro_path, sim::write_repro(rep));
  if (!err.empty()) c.error = err;
  return c;
}

void print_converted(const FuzzOptions& o, const Converted& c, const std::string& crash) {
  std::fprintf(text_out(), "  crash input: %s\n", crash.c_str());
  if (!c.program_text.empty()) {
    std::fprintf(text_out(), "  program:\n");
    std::istringstream lines(c.program_text);
    for (std::string l; std::getline(lines, l);) std::fprintf(text_out(), "    %s\n", l.c_str());
  }
  if (c.failing) {
    std::fprintf(text_out(), "  simulator:   %s: %s\n", c.verdict.c_str(), c.message.c_str());
    std::fprintf(text_out(), "  reproducer:  %s (exact: every scheduling decision recorded)\n", c.repro_path.c_str());
    std::fprintf(text_out(), "  replay:      wsstress replay %s --trace\n", c.repro_path.c_str());
  } else if (o.target == "program") {
    std::fprintf(text_out(), "  simulator:   no failing interleaving found for this program (50 seeds x SC/TSO x random/PCT)\n");
    std::fprintf(text_out(), "  reproducer:  %s (the program; replays the simulator's seed 0)\n", c.repro_path.c_str());
  } else {
    std::fprintf(text_out(), "  simulator:   this input's run passes (%s)\n", c.message.empty() ? "no failure" : c.message.c_str());
    std::fprintf(text_out(), "  reproducer:  %s (its schedule, recorded)\n", c.repro_path.c_str());
  }
  if (o.target == "program") {
    std::fprintf(text_out(), "  real threads: wsstress run --scenario program --input %s%s --repeat 1000\n", crash.c_str(),
                o.mutant == "none" ? "" : (" --mutant " + o.mutant).c_str());
  }
}

std::string default_fuzz_bin(const std::string& self) {
  const auto slash = self.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : self.substr(0, slash);
  return dir + "/../fuzz";
}


// --convert: a crash file found elsewhere, turned into a reproducer.
int convert_command(const FuzzOptions& o) {
  const std::string repro = o.repro_path.empty() ? o.convert + ".repro" : o.repro_path;
  if (access(o.convert.c_str(), R_OK) != 0) {
    std::fprintf(stderr, "wsstress: error: --convert: cannot read '%s'\n", o.convert.c_str());
    return kUsage;
  }
  Converted c = convert(o.target, o.mutant, o.convert, repro);
  if (!c.error.empty()) {
    std::fprintf(stderr, "wsstress: error: %s\n", c.error.c_str());
    if (!c.failing) return kInternal;  // a failing input stays a finding when only its reproducer was not written
  }
  std::fprintf(text_out(), "convert: %s_fuzzer input, mutant %s: %s\n", o.target.c_str(), o.mutant.c_str(),
              c.failing ? "fails" : "passes in the simulator");
  print_converted(o, c, o.convert);
  return c.failing ? kFailed : kOk;
}

// libFuzzer's command line: the working corpus, then the seed corpus, the
// budget, where findings go, the dictionary.
std::vector<std::string> fuzzer_args(const FuzzOptions& o, const std::string& bin, const std::string& corpus) {
  const std::string src = WSSTRESS_SOURCE_DIR;
  std::vector<std::string> args = {bin, corpus};
  const std::string seed_corpus = src + "/fuzz/corpus/" + o.target;
  if (is_dir(seed_corpus)) args.push_back(seed_corpus);
  char num[64];
  std::snprintf(num, sizeof num, "%g", o.time_s);
  args.push_back(std::string("-max_total_time=") + num);
  args.push_back("-print_final_stats=1");
  args.push_back("-artifact_prefix=" + o.out_dir + "/");
  args.push_back("-timeout=60");
  args.push_back(o.target == "program" ? "-max_len=256" : "-max_len=4096");
  if (const std::string dict = src + "/fuzz/" + o.target + ".dict"; access(dict.c_str(), R_OK) == 0) {
    args.push_back("-dict=" + dict);
  }
  if (o.runs > 0) args.push_back("-runs=" + std::to_string(o.runs));
  if (o.seed > 0) args.push_back("-seed=" + std::to_string(o.seed));
  if (o.jobs > 1) args.push_back("-fork=" + std::to_string(o.jobs));
  return args;
}

// Starts the target in a process group of its own, its stderr into `fd`.
pid_t start_fuzzer(const FuzzOptions& o, const std::vector<std::string>& args, int& fd) {
  int pipefd[2];
  if (pipe(pipefd) != 0) return -1;
  const pid_t pid = fork();
  if (pid != 0) {
    if (pid > 0) setpgid(pid, pid);  // as the child does: whichever runs first, the group exists before a kill
    close(pipefd[1]);
    fd = pipefd[0];
    if (pid < 0) close(pipefd[0]);
    return pid;
  }
  setpgid(0, 0);  // so the backstop can stop libFuzzer's fork-mode children too
  dup2(pipefd[1], 2);
  const int devnull = open("/dev/null", O_WRONLY);
  if (devnull >= 0) dup2(devnull, 1);
  close(pipefd[0]);
  close(pipefd[1]);
  setenv("WSSTRESS_FUZZ_MUTANT", o.mutant.c_str(), 1);
  setenv("WSSTRESS_FUZZ_HANG_TIMEOUT", std::to_string(o.hang_timeout_s).c_str(), 1);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv(args[0].c_str(), argv.data());
  std::fprintf(stderr, "wsstress: error: cannot run %s: %s\n", args[0].c_str(), std::strerror(errno));
  _exit(kInternal);
}

// What the fuzzer's output said, and how it ended.
struct FuzzRun {
  std::deque<std::string> tail;            // its last lines, for errors
  std::vector<std::string> verdict_lines;  // the target's own report of a finding
  std::string partial, crash, engine = "libFuzzer (coverage-guided)";
  std::uint64_t execs = 0, cov = 0, exec_per_s = 0, finding_execs = 0;
  bool killed = false;
  int stopped_by_signal = 0;  // we were asked to stop and passed it on to the fuzzer's process group
  int status = 0;
  double secs = 0;

  void read_line(const std::string& line) {
    static const std::regex count_re(R"(^#(\d+)\s)"), cov_re(R"(cov: (\d+))"), eps_re(R"(exec/s: (\d+))"),
        stat_re(R"(stat::number_of_executed_units: (\d+))"), unit_re(R"(Test unit written to (\S+))");
    std::smatch m;
    if (std::regex_search(line, m, count_re)) execs = std::max<std::uint64_t>(execs, std::stoull(m[1]));
    if (std::regex_search(line, m, cov_re)) cov = std::stoull(m[1]);
    if (std::regex_search(line, m, eps_re)) exec_per_s = std::stoull(m[1]);
    if (std::regex_search(line, m, stat_re)) execs = std::max<std::uint64_t>(execs, std::stoull(m[1]));
    if (std::regex_search(line, m, unit_re) && crash.empty()) {
      crash = m[1];
      finding_execs = execs;
    }
    if (line.find("standalone driver") != std::string::npos) engine = "standalone driver (random inputs, no coverage guidance)";
    if (line.rfind("== wsstress", 0) == 0 && verdict_lines.size() < 4) verdict_lines.push_back(line);
    tail.push_back(line);
    if (tail.size() > 80) tail.pop_front();
  }
};

// Follows the fuzzer until it ends (or the backstop stops it), with a
// progress line on a terminal.
FuzzRun watch_fuzzer(const FuzzOptions& o, pid_t pid, int fd) {
  FuzzRun run;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const bool tty = !o.quiet && isatty(2);
  double limit = o.time_s + 120;  // libFuzzer stops itself at -max_total_time; this is the backstop
  double last_draw = -1;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 200) > 0) {
      char buf[4096];
      const ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      run.partial.append(buf, static_cast<std::size_t>(n));
      for (std::size_t nl; (nl = run.partial.find('\n')) != std::string::npos;) {
        const std::string line = run.partial.substr(0, nl);
        run.partial.erase(0, nl + 1);
        run.read_line(line);
      }
    }
    if (tty && elapsed() - last_draw >= 0.5) {
      last_draw = elapsed();
      std::fprintf(stderr, "\rfuzz %s_fuzzer: %.0f/%g s, %llu execs, %llu exec/s, cov %llu   ", o.target.c_str(),
                   elapsed(), o.time_s, static_cast<unsigned long long>(run.execs),
                   static_cast<unsigned long long>(run.exec_per_s), static_cast<unsigned long long>(run.cov));
    }
    if (const int sig = stress::StopSignals::requested(); sig != 0 && run.stopped_by_signal == 0) {
      kill(-pid, sig);  // its own process group: a terminal's signal did not reach it
      run.stopped_by_signal = sig;
      limit = std::min(limit, elapsed() + 10);
    }
    if (elapsed() > limit) {
      kill(-pid, SIGKILL);
      run.killed = run.stopped_by_signal == 0;
      break;
    }
  }
  close(fd);
  waitpid(pid, &run.status, 0);
  run.secs = elapsed();
  if (tty) std::fprintf(stderr, "\n");
  if (run.finding_execs == 0) run.finding_execs = run.execs;
  return run;
}

// The outcome, as text and as the JSON report's document.
int report_fuzz(const FuzzOptions& o, const FuzzRun& run, const std::string& corpus, nlohmann::json& j) {
  const double secs = run.secs;
  j = {{"schema", "wsstress.fuzz/1"}, {"target", o.target}, {"mutant", o.mutant},
       {"engine", run.engine},        {"seconds", secs},    {"runs", run.execs},
       {"exec_per_s", secs > 0 ? static_cast<double>(run.execs) / secs : 0.0},
       {"coverage", run.cov},         {"failures", nlohmann::json::array()},
       {"stopped_by", run.stopped_by_signal != 0 ? nlohmann::json(stress::signal_name(run.stopped_by_signal))
                                                 : nlohmann::json()}};
  std::fprintf(text_out(), "fuzz: %s_fuzzer, mutant %s, %s\n", o.target.c_str(), o.mutant.c_str(), run.engine.c_str());
  if (run.killed) {
    std::fprintf(text_out(), "fuzz: the fuzzer did not stop at its time budget; stopped it after %.0f s\n", secs);
    return kHang;
  }
  if (!run.crash.empty()) {
    std::fprintf(text_out(), "fuzz: FINDING after %llu executions in %.1f s\n", static_cast<unsigned long long>(run.finding_execs),
                secs);
    Converted c = convert(o.target, o.mutant, run.crash, run.crash + ".repro");
    // A reproducer that cannot be written is said; the finding still stands.
    if (!c.error.empty()) std::fprintf(stderr, "wsstress: error: %s\n", c.error.c_str());
    // The target's own report (verdict, state dump) is in the child's output.
    for (const std::string& l : run.verdict_lines) std::fprintf(text_out(), "  %s\n", l.substr(3).c_str());
    print_converted(o, c, run.crash);
    j["failures"].push_back({{"verdict", c.failing ? c.verdict : std::string("bug")},
                             {"message", c.message},
                             {"crash", run.crash},
                             {"repro", c.repro_path},
                             {"replay", "wsstress replay " + c.repro_path},
                             {"executions", run.finding_execs},
                             {"at_seconds", secs}});
    return kFailed;
  }
  if (run.stopped_by_signal != 0) {
    std::fprintf(text_out(), "fuzz: stopped by %s: no finding in %llu executions in %.1f s, corpus %s\n",
                 stress::signal_name(run.stopped_by_signal).c_str(), static_cast<unsigned long long>(run.execs), secs,
                 corpus.c_str());
    return 128 + run.stopped_by_signal;
  }
  if (WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0) {
    std::fprintf(text_out(), "fuzz: no finding: %llu executions in %.1f s (%.0f exec/s), coverage %llu, corpus %s\n",
                static_cast<unsigned long long>(run.execs), secs,
                secs > 0 ? static_cast<double>(run.execs) / secs : 0.0, static_cast<unsigned long long>(run.cov),
                corpus.c_str());
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

int fuzz_command(const FuzzOptions& o) {
  if (!o.convert.empty()) return convert_command(o);
  const std::string bin_dir = o.fuzz_bin.empty() ? default_fuzz_bin(o.self) : o.fuzz_bin;
  const std::string bin = bin_dir + "/" + o.target + "_fuzzer";
  if (!is_exec(bin)) {
    std::fprintf(stderr, "wsstress: error: no fuzz target %s (build it: cmake --workflow --preset fuzz, then run "
                         "build/fuzz/cli/wsstress fuzz, or pass --fuzz-bin)\n", bin.c_str());
    return kUsage;
  }
  if (mkdir(o.out_dir.c_str(), 0755) != 0 && errno != EEXIST) {
    std::fprintf(stderr, "wsstress: error: --out: cannot create '%s': %s\n", o.out_dir.c_str(), std::strerror(errno));
    return kUsage;
  }
  const std::string corpus = o.out_dir + "/corpus-" + o.target;
  if (mkdir(corpus.c_str(), 0755) != 0 && errno != EEXIST) {
    std::fprintf(stderr, "wsstress: error: cannot create '%s': %s\n", corpus.c_str(), std::strerror(errno));
    return kInternal;
  }
  const stress::StopSignals stop;  // a signal is passed on to the fuzzer, which reports what it ran
  int fd = -1;
  const pid_t pid = start_fuzzer(o, fuzzer_args(o, bin, corpus), fd);
  if (pid < 0) {
    std::fprintf(stderr, "wsstress: error: cannot start %s: %s\n", bin.c_str(), std::strerror(errno));
    return kInternal;
  }
  const FuzzRun run = watch_fuzzer(o, pid, fd);
  nlohmann::json j;
  const int code = report_fuzz(o, run, corpus, j);
  return o.json_path.empty() ? code : write_report("--json", o.json_path, j.dump(2) + "\n", code);
}

void add_fuzz_options(CLI::App* cmd, FuzzOptions& o) {
  cmd->add_option("--target", o.target, "program (nested programs on real threads) or schedule (the simulator's decisions)")
      ->check(CLI::IsMember({"program", "schedule"}))
      ->capture_default_str();
  add_max_seconds(cmd, o.time_s, "seconds to fuzz", 1.0, 604800.0);
  add_hang_timeout(cmd, o.hang_timeout_s);
  cmd->add_option("--jobs", o.jobs, "parallel fuzzing processes (libFuzzer -fork)")
      ->check(whole_range(1, 256));
  add_mutant(cmd, o.mutant);
  cmd->add_option("--runs", o.runs, "stop after this many inputs (0: only --max-seconds)")
      ->check(whole_range(0, 1000000000000));
  cmd->add_option("--fuzzer-seed", o.seed, "libFuzzer's random seed (0: its own choice)")
      ->check(whole_range(0, 4294967295));
  cmd->add_option("--out", o.out_dir, "folder for the working corpus and findings")->capture_default_str();
  cmd->add_option("--fuzz-bin", o.fuzz_bin, "folder of the fuzz targets (default: the build's fuzz/)")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--convert", o.convert, "convert this crash file into a reproducer instead of fuzzing");
  cmd->add_option("--repro", o.repro_path, "--convert: where to write the reproducer (default: FILE.repro)")
      ->check(output_path());
  add_json(cmd, o.json_path, "write the result as JSON (schema wsstress.fuzz/1)");
  add_quiet(cmd, o.quiet, "no progress line");
  cmd->footer(
      "Examples:\n"
      "  wsstress fuzz --target schedule --mutant no_sleep_fence --max-seconds 60\n"
      "  wsstress fuzz --target program --fuzzer-seed 1 --runs 10000\n"
      "  wsstress fuzz --convert crash-1234 --repro f.repro   # then: wsstress replay f.repro");
}

}  // namespace

Subcommand add_fuzz(CLI::App& parent, const std::string& self) {
  auto o = std::make_shared<FuzzOptions>();
  o->self = self;
  CLI::App* cmd = parent.add_subcommand(
      "fuzz", "run a fuzz target (fuzz/) for a time budget and turn a finding into a reproducer; exit 0 no "
              "finding, 1 finding");
  add_fuzz_options(cmd, *o);
  return {cmd, [o] {
    std::string error;
    if (!claim_stdout({&o->json_path, &o->repro_path}, error)) return usage_error(error);
    return fuzz_command(*o);
  }};
}

}  // namespace wsstress::cli
