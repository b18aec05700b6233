// SPDX-License-Identifier: MIT OR Apache-2.0
// The fuzz engines (`--engine fuzz-program`, `--engine fuzz-schedule`; see
// fuzz.hpp): one column per fuzz target, found beside the executable, run for
// the budget from its seed corpus with libFuzzer's seed fixed so that a row
// can be measured again; a finding is converted as `wsstress fuzz` converts
// it (its reproducer is not kept). A fuzzer's column measures. Also the
// running of a target as a child and the conversion of a finding, which
// `wsstress fuzz` shares.
#include "wsstress/matrix/fuzz.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <regex>

#include <nlohmann/json.hpp>

#include "wsstress/core/companion.hpp"
#include "wsstress/core/exit_code.hpp"
#include "wsstress/core/run_flags.hpp"
#include "wsstress/core/shown.hpp"
#include "wsstress/core/sweep.hpp"
#include "wsstress/matrix/engine.hpp"
#include "wsstress/sim/engine.hpp"
#include "wsstress/sim/fuzz_input.hpp"

#ifndef WSSTRESS_SOURCE_DIR
#define WSSTRESS_SOURCE_DIR "."
#endif

namespace wsstress::matrix {

void FuzzRun::read_line(const std::string& line) {
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
  if (line.find("standalone driver") != std::string::npos) {
    engine = "standalone driver (random inputs, no coverage guidance)";
    standalone = true;
  }
  if (line.rfind("== wsstress", 0) == 0 && verdict_lines.size() < 4) verdict_lines.push_back(line);
  tail.push_back(line);
  if (tail.size() > 80) tail.pop_front();
}

bool is_dir(const std::string& p) {
  struct stat st {};
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_exec(const std::string& p) { return access(p.c_str(), X_OK) == 0 && !is_dir(p); }

namespace {
std::string dir_of(const std::string& self) {
  const auto slash = self.rfind('/');
  return slash == std::string::npos ? "." : self.substr(0, slash);
}

// The flag table's taker (stress/run_flags.hpp) of a target.
unsigned target_taker(const std::string& target) {
  if (target == "oracle") return core::kOracleFuzzer;
  return target == "program" ? core::kProgramFuzzer : core::kScheduleFuzzer;  // schedule, reads_from
}
}  // namespace

bool takes_programs(const std::string& target) { return target == "program" || target == "oracle"; }

std::string corpus_name(const std::string& target) { return target == "oracle" ? "program" : target; }

// The build tree's fuzz/ beside cli/, else the installed layout's.
std::string default_fuzz_bin(const std::string& self) {
  const std::string dir = dir_of(self);
  if (is_dir(dir + "/../fuzz")) return dir + "/../fuzz";
  return dir + "/../" + kInstalledLibexecDir + "/fuzz";
}

// Where the seed corpora and dictionaries are: the installed layout's data
// folder when the tool runs installed, else the source tree it was built from.
std::string fuzz_data_root(const std::string& self) {
  const std::string installed = dir_of(self) + "/../" + kInstalledDataDir;
  return is_dir(installed + "/fuzz") ? installed : WSSTRESS_SOURCE_DIR;
}

std::vector<std::string> fuzzer_args(const FuzzOptions& o, const std::string& bin, const std::string& corpus) {
  const std::string src = fuzz_data_root(o.self);
  std::vector<std::string> args = {bin, corpus};
  const std::string seed_corpus = src + "/fuzz/corpus/" + corpus_name(o.target);
  if (is_dir(seed_corpus)) args.push_back(seed_corpus);
  char num[64];
  std::snprintf(num, sizeof num, "%g", o.time_s);
  args.push_back(std::string("-max_total_time=") + num);
  args.push_back("-print_final_stats=1");
  args.push_back("-artifact_prefix=" + o.out_dir + "/");
  args.push_back("-timeout=60");
  args.push_back(takes_programs(o.target) ? "-max_len=256" : "-max_len=4096");
  // reads_from_fuzzer's mutator adds a constraint (9 bytes) to 10-byte seeds:
  // libFuzzer's length control would hold its inputs at the seeds' length.
  // Its features count as seen or not, as RFF keeps an input for a pair never
  // seen: hit counts of the pool's spin loops kept inputs that found the
  // gate-5 race later (README, reads-from fuzzing under libFuzzer).
  if (o.target == "reads_from") {
    args.push_back("-len_control=0");
    args.push_back("-use_counters=0");
  }
  if (const std::string dict = src + "/fuzz/" + corpus_name(o.target) + ".dict"; access(dict.c_str(), R_OK) == 0) {
    args.push_back("-dict=" + dict);
  }
  if (o.runs > 0) args.push_back("-runs=" + std::to_string(o.runs));
  if (o.seed > 0) args.push_back("-seed=" + std::to_string(o.seed));
  if (o.jobs > 1) args.push_back("-fork=" + std::to_string(o.jobs));
  // The target's own options, from the flag table, after the flag that makes
  // libFuzzer (and the standalone driver) leave the rest to the target; its
  // fork mode passes them on to its children.
  core::RunSpec spec;
  spec.mutant = o.mutant;
  spec.scenario = o.scenario;
  spec.hang_timeout_s = o.hang_timeout_s;
  args.push_back("-ignore_remaining_args=1");
  for (std::string& a : core::run_arguments(spec, target_taker(o.target))) args.push_back(std::move(a));
  return args;
}

pid_t start_fuzzer(const std::vector<std::string>& args, int& fd) {
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
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv(args[0].c_str(), argv.data());
  std::fprintf(stderr, "wsstress: error: cannot run %s: %s\n", args[0].c_str(), std::strerror(errno));
  _exit(kInternal);
}

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
    if (const int sig = core::StopSignals::requested(); sig != 0 && run.stopped_by_signal == 0) {
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

namespace {

// `name` if schedule_fuzzer can pin it, else empty (every scenario).
std::string pinned_scenario(const std::string& name) {
  for (const std::string& s : sim::schedule_fuzz_scenarios()) {
    if (s == name) return s;
  }
  return {};
}

// A crash file's bytes; a folder, or a read that fails, is said in one line
// (not an exception: a folder opens but fails its first read).
Result<std::vector<std::uint8_t>> read_bytes(const std::string& path) {
  if (is_dir(path)) return fail(shown(path) + " is a directory, not a crash file");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return fail("cannot read the crash file " + shown(path) + ": " + std::strerror(errno));
  std::vector<std::uint8_t> bytes;
  std::uint8_t buf[65536];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.insert(bytes.end(), buf, buf + n);
  const bool failed = std::ferror(f) != 0;
  const int err = errno;
  std::fclose(f);
  if (failed) return fail("cannot read the crash file " + shown(path) + ": " + std::strerror(err));
  return bytes;
}

// The conversion itself: it replays the input in the simulator, in whichever
// process calls it (convert_crash runs it in a child).
Result<Converted> convert_here(const FuzzOptions& o, const std::string& crash) {
  const Result<std::vector<std::uint8_t>> read = read_bytes(crash);
  if (!read) return fail(read.error());
  const std::vector<std::uint8_t>& bytes = *read;
  Converted c;
  sim::Repro rep;
  if (o.target == "schedule" || o.target == "reads_from") {
    sim::ScheduleInput in;
    sim::SimResult r;
    if (o.target == "reads_from") {
      // Its constraints steer the walk; the reproducer records every decision.
      const sim::ReadsFromInput rf = sim::decode_reads_from_input(bytes.data(), bytes.size(), o.mutant, o.scenario);
      sim::ReadsFromRun walk;
      r = sim::run_reads_from_input(rf, walk);
      in = rf.schedule;
    } else {
      in = sim::decode_schedule_input(bytes.data(), bytes.size(), o.mutant, o.scenario);
      r = sim::find_sim_runner(o.mutant)(in.spec, in.config);
    }
    rep = sim::schedule_repro(in, r);
    c.failing = r.verdict.kind != core::VerdictKind::Pass;
    if (in.spec.scenario == "program") {
      core::ByteSource src(reinterpret_cast<const std::uint8_t*>(in.spec.input.data()), in.spec.input.size());
      c.program_text = core::Program::decode(src).render();
    }
  } else {
    // A program found on real threads: the program is exact; look for a
    // simulator interleaving that fails it too (then the replay is exact).
    rep = sim::program_repro(bytes.data(), bytes.size(), o.mutant, 100, c.failing);
    core::ByteSource src(reinterpret_cast<const std::uint8_t*>(rep.spec.input.data()), rep.spec.input.size());
    c.program_text = core::Program::decode(src).render();
  }
  c.verdict = rep.verdict;
  c.message = rep.message;
  c.repro = sim::write_repro(rep);
  return c;
}

// The conversion as the child answers it: JSON of its fields, or its error.
std::string answer_text(const Result<Converted>& c) {
  if (!c) return nlohmann::json{{"error", c.error()}}.dump();
  return nlohmann::json{{"failing", c->failing},
                        {"verdict", c->verdict},
                        {"message", c->message},
                        {"program_text", c->program_text},
                        {"repro", c->repro}}
      .dump();
}

}  // namespace

// A crash of the pool while the simulator replays the input would take the
// tool down with it (a join that returns before its stolen
// half ran): so the replay runs in a child, and a child that does not answer
// (a signal) is a `crash` finding whose reproducer is the crash file itself.
Result<Converted> convert_crash(const FuzzOptions& o, const std::string& crash) {
  const sim::ChildAnswer a = sim::answer_in_child([&] { return answer_text(convert_here(o, crash)); });
  if (!a.started) return convert_here(o, crash);  // no child to be had: as before, in this process
  if (a.clean) {
    const nlohmann::json j = nlohmann::json::parse(a.text, nullptr, false);
    if (j.is_discarded()) return fail("the conversion's child answered no JSON");
    if (j.contains("error")) return fail(j["error"].get<std::string>());
    return Converted{.failing = j.value("failing", false),
                     .verdict = j.value("verdict", ""),
                     .message = j.value("message", ""),
                     .program_text = j.value("program_text", ""),
                     .repro = j.value("repro", "")};
  }
  Converted c;
  c.failing = true;
  c.crashed = true;
  c.verdict = "crash";
  c.message = "the pool under test crashed while the simulator replayed this input (" +
              sim::process_end_text(a.status) + "); the crash input is the reproducer";
  return c;
}

namespace {

// A fuzz column's row: the target for the budget from its seed corpus, with
// libFuzzer's seed fixed so a row can be measured again; the schedule fuzzer
// on the mutant's catalog scenario, as the simulator's columns run it (when
// the fuzzer can run that scenario).
EngineResult fuzz_row(const std::string& target, const MatrixSpec& spec, const MutantInfo& m, const std::string& dir) {
  FuzzOptions o;
  o.target = target;
  o.self = spec.self;
  o.mutant = m.name;
  o.time_s = spec.budget_s;
  o.hang_timeout_s = spec.hang_timeout_s;
  o.seed = 1;
  o.out_dir = dir + "/" + m.name + "-fuzz";
  o.quiet = true;
  if (target == "schedule") o.scenario = pinned_scenario(m.scenario);
  const std::string bin = default_fuzz_bin(spec.self) + "/" + target + "_fuzzer";
  const std::string corpus = o.out_dir + "/corpus-" + target;
  if (!is_exec(bin))
    return engine_error(kUsage, "no fuzz target " + bin + " (build it: cmake --workflow --preset fuzz)");
  for (const std::string& folder : {o.out_dir, corpus}) {
    if (mkdir(folder.c_str(), 0755) != 0) {
      return engine_error(kInternal, "cannot create " + folder + ": " + std::strerror(errno));
    }
  }
  int fd = -1;
  const pid_t pid = start_fuzzer(fuzzer_args(o, bin, corpus), fd);
  if (pid < 0) return engine_error(kInternal, "cannot start " + bin + ": " + std::strerror(errno));
  const FuzzRun run = watch_fuzzer(o, pid, fd);
  EngineResult row;
  row.runs = run.execs;
  if (!run.crash.empty()) {
    std::fprintf(stderr, "%s%llu executions in %.3f s\n", matrix::kFuzzFindingMarker,
                 static_cast<unsigned long long>(run.finding_execs), run.secs);
    std::fflush(stderr);
    const Result<Converted> c = convert_crash(o, run.crash);
    row.caught = true;
    row.outcome = c && c->failing ? c->verdict : "bug";
    row.message = c ? c->message : c.error();
    row.runs = run.finding_execs;
    row.at_seconds = run.secs;
    row.replay = core::fuzz_command({.target = target,
                                     .mutant = o.mutant,
                                     .scenario = o.scenario,
                                     .fuzzer_seed = o.seed,
                                     .max_seconds = o.time_s}) +
                 " (reproducer not kept)";
  } else if (run.killed) {
    row.outcome = "error (exit 4)";
    row.message = "the fuzzer did not stop at its time budget";
  } else if (WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0) {
    row.outcome = "pass";
  } else {
    row.outcome = "error (exit 3)";
    row.message = "the fuzz target ended without a finding: " + (run.tail.empty() ? std::string() : run.tail.back());
  }
  return row;
}

// A column per target; a finding is converted after the budget (up to 200
// simulator runs for a program), hence the slack.
class FuzzEngine final : public MeasuringEngine {
 public:
  FuzzEngine(std::string_view name, std::string_view target, int rank) : name_(name), target_(target), rank_(rank) {}
  std::string_view name() const override { return name_; }
  int rank() const override { return rank_; }
  Limits limits() const override { return {.slack_s = 150}; }
  EngineResult run(const MatrixSpec& spec, const MutantInfo& m, const std::string& dir, const Deliver&) const override {
    return fuzz_row(std::string(target_), spec, m, dir);
  }
  // The executions and seconds to the first finding.
  std::string cell(const MatrixRow& row) const override {
    if (is_engine_error(row)) return row.outcome + " !";
    return with_judgement(row.caught ? verdict_word(row) + ", " + std::to_string(row.runs) + " execs, " +
                                           seconds_text(row.seconds)
                                     : "- (" + std::to_string(row.runs) + " execs)",
                          row);
  }

 private:
  std::string_view name_, target_;
  int rank_;
};

}  // namespace

WSSTRESS_REGISTER_ENGINE(fuzz_program_engine, FuzzEngine("fuzz-program", "program", 100))
WSSTRESS_REGISTER_ENGINE(fuzz_schedule_engine, FuzzEngine("fuzz-schedule", "schedule", 110))

}  // namespace wsstress::matrix
