// SPDX-License-Identifier: MIT OR Apache-2.0
// The matrix's ThreadSanitizer engine (`--engine tsan`): the mutant's scenario
// on real threads in wsstress-tsan (runner_main.cpp, built with
// -fsanitize=thread), so that an access which no release/acquire order puts
// after its write is a finding even on x86, where the hardware orders it
// anyway. The runner is a process of its own (TSan instruments a whole
// program); its first report ends it (halt_on_error) and becomes a `race`
// verdict whose message carries the report's kind and the top frames of both
// stacks. A hang or a wrong result is reported as `wsstress run` would. The
// table below is what the column caught in the README's measurement.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "wsstress/core/companion.hpp"
#include "wsstress/core/run_flags.hpp"
#include "wsstress/matrix/run_matrix.hpp"
#include "wsstress/matrix/tsan.hpp"
#include "wsstress/threads/campaign.hpp"

extern char** environ;

namespace wsstress::matrix {
namespace {

using core::kTsanRunner;
using core::run_arguments;
using core::RunSpec;

// What the column catches by seed 30 (Catch), cannot see (a store->load
// reordering: TSan judges happens-before on the program's orders, not the
// hardware's), or may (Maybe, unmeasured); harmless mutants must pass.
struct TsanRow {
  MutantId mutant;
  Expect expect;
};

namespace tsan_rows {
using enum MutantId;
using enum Expect;
// clang-format off
constexpr TsanRow kRows[] = {
    {none,                         Pass},
    {no_gate5,                     Catch},
    {no_gate5_narrow_jec,          Catch},
    {no_inject_fence,              Cannot},
    {no_sleep_fence,               Cannot},
    {late_is_blocked_lock,         Maybe},
    {gate5_ignores_broadcasts,     Catch},
    {cross_latch_no_keepalive,     Maybe},
    {scope_latch_no_keepalive,     Maybe},
    {cross_is_cold,                Catch},
    {self_install_blocks,          Catch},
    {latch_set_no_wake,            Catch},
    {terminate_no_wake,            Catch},
    {lock_latch_set_outside_mutex, Catch},
    {lock_latch_wait_once,         Catch},
    {cold_latch_no_reset,          Catch},
    {internal_push_no_jec,         Catch},
    {spawn_no_catch_unwind,        Catch},
    {spawn_no_terminate_count,     Catch},
    {arc_job_no_creator_ref,       Catch},
    {is_sleepy_always_true,        Catch},
    {jec_carry,                    Catch},
    {deque_pop_no_fence,           Cannot},
    {deque_push_relaxed,           Catch},
    {latch_probe_relaxed,          Catch},
    {count_latch_sub_relaxed,      Catch},
    {narrow_jec,                   Pass},
    {core_latch_set_seqcst,        Pass},
    {injector_acq_rel,             Pass},
    {no_inject_fence_acq_rel,      Cannot},
    {no_sleep_fence_acq_rel,       Pass},
    {epoch_pin_x86_cas,            Cannot},
};
// clang-format on
static_assert(one_row_per_mutant(kRows), "one row per mutant of pool/mutants.hpp, in its order");
}  // namespace tsan_rows

// TSan's own exit code for a report, set by the engine (and the default).
constexpr int kTsanExit = 66;
// TSan slows the pool 5-15x: a hang must last this many times longer.
constexpr double kHangFactor = 5;

std::string arg(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

// "R a::B<long template>::f(args) const /path/to/job.hpp:112 (bin+0x..)" ->
// "B::f at job.hpp:112": the function without its return type, template
// arguments or parameters, and the file's base name.
std::string short_frame(const std::string& frame) {
  std::string flat;  // the frame with every <...> removed
  int depth = 0;
  for (const char c : frame) {
    if (c == '<') ++depth;
    else if (c == '>' && depth > 0) --depth;
    else if (depth == 0) flat += c;
  }
  for (std::size_t a; (a = flat.find("(anonymous namespace)::")) != std::string::npos;) flat.erase(a, 23);
  if (const auto module = flat.rfind(" ("); module != std::string::npos) flat.erase(module);  // " (bin+0x..)"
  const auto space = flat.rfind(' ');
  std::string where = space == std::string::npos ? "" : flat.substr(space + 1);
  where = where.substr(where.rfind('/') + 1);
  std::string name = flat.substr(0, std::min(flat.find('('), space));
  // The return type ends at the last space that is not inside "operator T".
  for (auto sp = name.rfind(' '); sp != std::string::npos; sp = sp == 0 ? std::string::npos : name.rfind(' ', sp - 1)) {
    if (sp < 8 || name.compare(sp - 8, 8, "operator") != 0) {
      name.erase(0, sp + 1);
      break;
    }
  }
  const auto last = name.rfind("::");
  const auto prev = last == std::string::npos || last == 0 ? std::string::npos : name.rfind("::", last - 1);
  if (prev != std::string::npos) name = name.substr(prev + 2);
  return name + (where.empty() ? "" : " at " + where);
}

}  // namespace

std::string summarize_tsan_report(const std::string& log) {
  std::istringstream in(log);
  std::string line, out;
  bool want_frame = false;
  int accesses = 0;
  while (std::getline(in, line)) {
    if (out.empty()) {
      const auto at = line.find("WARNING: ThreadSanitizer: ");
      if (at != std::string::npos) out = line.substr(at + 26, line.find(" (pid=") - at - 26);
      continue;
    }
    if (line.rfind("SUMMARY:", 0) == 0 || line.rfind("==================", 0) == 0) break;
    const auto text = line.find_first_not_of(' ');
    if (text == std::string::npos) continue;
    if (line[text] != '#') {
      if (accesses < 2 && line.back() == ':' && line.find(" by ") != std::string::npos) {
        std::string access = line.substr(text, line.size() - text - 1);
        if (const auto at = access.find(" at 0x"); at != std::string::npos) {  // drop the address
          access.erase(at, access.find(' ', at + 4) - at);
        }
        out += (accesses == 0 ? ": " : "; ") + access;
        ++accesses;
        want_frame = true;
      }
      continue;
    }
    // The first frame of the project's own code: not the standard library's
    // (its headers), not TSan's interceptors, not an unsymbolized address.
    if (want_frame && line.find("/include/c++/") == std::string::npos && line.find("sanitizer") == std::string::npos &&
        line.find("tsan_") == std::string::npos) {
      const std::string frame = short_frame(line.substr(line.find(' ', text) + 1));
      if (frame.empty() || frame.rfind(" at", 0) == 0) continue;
      out += " in " + frame;
      want_frame = false;
    }
  }
  return out.empty() ? "ThreadSanitizer: a report without a WARNING line" : "ThreadSanitizer: " + out;
}

namespace {

struct RunnerOutput {
  std::uint64_t runs = 0, last_seed = 0;
  std::string fail_line;  // "fail N WORD SECONDS\tMESSAGE"
  bool done = false;
};

RunnerOutput read_protocol(const std::string& out) {
  RunnerOutput r;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("seed ", 0) == 0) {
      r.last_seed = std::strtoull(line.c_str() + 5, nullptr, 10);
      ++r.runs;
    } else if (line.rfind("fail ", 0) == 0) {
      r.fail_line = line;
    } else if (line.rfind("done ", 0) == 0) {
      r.done = true;
    }
  }
  return r;
}

// The first line of `text` that is not empty.
std::string first_line(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) return line;
  }
  return "";
}

// Spawns the runner with stdout and stderr to files; its wait status, or -1.
int spawn_runner(const std::vector<std::string>& args, const std::string& out, const std::string& err) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // The user's TSAN_OPTIONS first: the engine's own must win. No thread-leak
  // reports: a run that hangs exits with its threads abandoned on purpose, and
  // TSan's leak warning at exit would turn that hang into a `race`.
  const char* user = std::getenv("TSAN_OPTIONS");
  const std::string opts = "TSAN_OPTIONS=" + std::string(user != nullptr ? user : "") +
                           " halt_on_error=1 exitcode=" + std::to_string(kTsanExit) +
                           " report_thread_leaks=0 second_deadlock_stack=1 log_path=stderr";
  // The runner ends itself if this process goes (runner_main.cpp, die_with_parent).
  const std::string parent = "WSSTRESS_TSAN_PARENT=" + std::to_string(getpid());
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view v(*e);
    if (v.rfind("TSAN_OPTIONS=", 0) != 0 && v.rfind("WSSTRESS_TSAN_PARENT=", 0) != 0) envp.push_back(*e);
  }
  envp.push_back(const_cast<char*>(opts.c_str()));
  envp.push_back(const_cast<char*>(parent.c_str()));
  envp.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

EngineResult caught(std::string outcome, std::string message, const RunnerOutput& p, double seconds,
                    const std::string& replay) {
  return {true, std::move(outcome), std::move(message), p.last_seed, p.runs, seconds, replay};
}

EngineResult tsan_row(const MatrixSpec& spec, const MutantInfo& m, const std::string& dir) {
  const std::string runner = companion_program("wsstress-tsan", "WSSTRESS_TSAN_RUNNER");
  if (access(runner.c_str(), X_OK) != 0) {
    return engine_error(3, "no ThreadSanitizer runner at " + runner +
                               " (build the target wsstress-tsan, or point WSSTRESS_TSAN_RUNNER at one)");
  }
  RunSpec run = spec.base;
  run.scenario = m.scenario;
  run.mutant = m.name;
  run.hang_timeout_s = spec.hang_timeout_s * kHangFactor;
  std::vector<std::string> args = {runner, "run"};
  for (std::string& a : run_arguments(run, kTsanRunner)) args.push_back(std::move(a));
  for (const char* a : {"--seeds", "0..1000000000", "--max-seconds"}) args.emplace_back(a);
  args.push_back(arg(spec.budget_s));
  const std::string out = dir + "/" + m.name + ".tsan.out", err = dir + "/" + m.name + ".tsan.err";
  const auto t0 = std::chrono::steady_clock::now();
  const int status = spawn_runner(args, out, err);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (status < 0) return engine_error(3, "cannot start " + runner);
  const RunnerOutput p = read_protocol(slurp(out));
  const std::string log = slurp(err);
  std::remove(out.c_str());
  std::remove(err.c_str());
  const std::string replay = threads::replay_command(runner, run, p.last_seed);
  if (WIFSIGNALED(status)) {
    return caught("crash (signal " + std::to_string(WTERMSIG(status)) + ")", first_line(log), p, seconds, replay);
  }
  const int code = WEXITSTATUS(status);
  // TSan ends with its exit code for a report, and also for a crash it caught
  // or for its own failure to start: only the first is a race.
  if (code == kTsanExit && log.find("WARNING: ThreadSanitizer: ") != std::string::npos) {
    return caught("race", summarize_tsan_report(log), p, seconds, replay);
  }
  if (code == kTsanExit && log.find("ERROR: ThreadSanitizer: ") != std::string::npos && p.runs > 0) {
    return caught("crash", first_line(log.substr(log.find("ERROR: ThreadSanitizer: "))), p, seconds, replay);
  }
  if (code == 1 && !p.fail_line.empty()) {  // "fail N WORD SECONDS\tMESSAGE"
    std::istringstream f(p.fail_line);
    std::string tag, word;
    std::uint64_t seed = 0;
    double at = 0;
    f >> tag >> seed >> word >> at;
    const auto tab = p.fail_line.find('\t');
    return {true,
            word,
            tab == std::string::npos ? "" : p.fail_line.substr(tab + 1),
            seed,
            p.runs,
            at,
            threads::replay_command(runner, run, seed)};
  }
  if (code == 0 && p.done) return matrix::nothing_caught(p.runs);
  return engine_error(3, runner + " exited " + std::to_string(code) + ": " + first_line(log));
}

class TsanEngine final : public Engine {
 public:
  std::string_view name() const override { return "tsan"; }
  int rank() const override { return 90; }
  std::string_view gloss() const override { return "real threads under ThreadSanitizer"; }
  // The matrix's backstop allows the runner's longer hang timeout.
  Limits limits() const override { return {.hang_factor = kHangFactor}; }
  EngineResult run(const MatrixSpec& spec, const MutantInfo& m, const std::string& dir, const Deliver&) const override {
    return tsan_row(spec, m, dir);
  }
  Expect expect(const MutantInfo& m) const override { return row_of(tsan_rows::kRows, m.id).expect; }
};

}  // namespace

WSSTRESS_REGISTER_ENGINE(tsan_engine, TsanEngine{})

}  // namespace wsstress::matrix
