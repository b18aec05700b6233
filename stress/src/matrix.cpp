// run_matrix: one child `wsstress` (run, sim, relacy or fuzz, by engine) per
// mutant, its JSON report and exit status turned into a row and judged
// against the catalog. A child sweeps seeds from 0 until the first failure or
// until its time budget runs out.
#include "wsstress/stress/matrix.hpp"

#include "wsstress/stress/sweep.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

extern char** environ;

namespace wsstress::stress {
namespace {

std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The child's command line for one mutant under the spec's engine.
std::vector<std::string> child_args(const MatrixSpec& spec, const MutantInfo& m, const std::string& dir,
                                    const std::string& json) {
  if (spec.engine == "relacy") {
    // Every model that targets the mutant, each with its own search; the
    // budget is each search's time limit.
    std::vector<std::string> args = {spec.self, "relacy", "--mutant", m.name, "--max-seconds", fmt(spec.budget_s),
                                     "--json", json, "--quiet"};
    if (m.name == "none") args.erase(args.begin() + 2, args.begin() + 4);  // every model, clean
    return args;
  }
  if (spec.engine == "stress") {
    return {spec.self, "run", "--scenario", m.scenario, "--mutant", m.name, "--seeds", "0..1000000000",
            "--max-seconds", fmt(spec.budget_s), "--hang-timeout", fmt(spec.hang_timeout_s), "--threads",
            std::to_string(spec.base.threads), "--pools", std::to_string(spec.base.pools), "--iterations",
            std::to_string(spec.base.iterations), "--noise", std::to_string(spec.base.noise), "--json", json,
            "--quiet"};
  }
  if (spec.engine == "fuzz-program" || spec.engine == "fuzz-schedule") {
    // A fuzz target for the budget, from its seed corpus, with a fixed
    // libFuzzer seed so a row can be measured again.
    return {spec.self, "fuzz", "--target", spec.engine.substr(5), "--mutant", m.name, "--max-seconds", fmt(spec.budget_s),
            "--hang-timeout", fmt(spec.hang_timeout_s), "--fuzzer-seed", "1", "--out", dir + "/" + m.name + "-fuzz",
            "--json", json, "--quiet"};
  }
  // sim-random: the simulator's uniform random walk (SC), the baseline the
  // fuzz columns are measured against. sim-sc / sim-tso: the simulator with
  // PCT (it finds the deep orderings lost wake-ups need much sooner than a
  // uniform random walk), under the given memory model.
  return {spec.self, "sim", "--scenario", m.scenario, "--mutant", m.name, "--seeds", "0..1000000000",
          "--max-seconds", fmt(spec.budget_s), "--memory", spec.engine == "sim-tso" ? "tso" : "sc", "--strategy",
          spec.engine == "sim-random" ? "random" : "pct", "--threads", std::to_string(spec.base.threads), "--pools",
          std::to_string(spec.base.pools), "--iterations", std::to_string(spec.sim_iterations), "--json", json,
          "--repro", dir + "/" + m.name + ".repro", "--quiet"};
}

struct ChildEnd {
  int status = 0;
  bool killed = false;
  int stopped_by_signal = 0;  // we were asked to stop, and passed the signal on to the child
  double seconds = 0;
};

// Runs the child (stdout to /dev/null, stderr to `err`) until it ends, or
// kills it at `limit` seconds.
ChildEnd run_child(std::vector<std::string> args, const std::string& err, double limit) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  // A process group of its own, so a signal we pass on reaches the child's
  // own children too (a Relacy search, a fuzzer) and arrives once.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0].c_str(), &fa, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw std::runtime_error("cannot run " + args[0]);
  ChildEnd end;
  for (;;) {
    if (waitpid(pid, &end.status, WNOHANG) == pid) break;
    if (const int sig = StopSignals::requested(); sig != 0 && end.stopped_by_signal == 0) {
      // Asked to stop: so is the child (it reports what it ran), with a
      // few seconds before the backstop below kills it.
      kill(-pid, sig);
      end.stopped_by_signal = sig;
      limit = std::min(limit, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() + 5);
    }
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > limit) {
      kill(-pid, SIGKILL);
      waitpid(pid, &end.status, 0);
      end.killed = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  end.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return end;
}

// A crashed child: the seed and replay command its crash handler printed,
// and the sanitizer's or the pool's own first line.
void read_crash(const std::string& e, MatrixRow& row) {
  const std::string marker = "crashed while running seed ";
  if (auto at = e.find(marker); at != std::string::npos) {
    row.first_seed = std::strtoull(e.c_str() + at + marker.size(), nullptr, 10);
    const std::string replay = "; replay: ";
    if (auto r = e.find(replay, at); r != std::string::npos) {
      const auto start = r + replay.size();
      row.replay = e.substr(start, e.find('\n', start) - start);
    }
  }
  for (const char* what : {"ERROR: AddressSanitizer: ", "WARNING: ThreadSanitizer: ", "wsstress pool: "}) {
    if (auto at = e.find(what); at != std::string::npos) {
      row.message = e.substr(at, e.find('\n', at) - at);
      break;
    }
  }
}

// The row from how the child ended and the report it wrote (every engine's
// JSON report has `runs` and `failures` with the same fields).
void read_outcome(const MatrixSpec& spec, const MutantInfo& m, const ChildEnd& end, const std::string& json,
                  const std::string& err, MatrixRow& row) {
  row.seconds = end.seconds;
  nlohmann::json j;
  try {
    const std::string text = slurp(json);
    if (!text.empty()) j = nlohmann::json::parse(text);
  } catch (const std::exception&) {
    j = nlohmann::json();
  }
  const bool have_json = j.is_object();
  if (have_json) row.runs = j.value("runs", 0ull);
  if (end.killed) {
    row.caught = true;
    row.outcome = "hang (killed)";
  } else if (WIFSIGNALED(end.status)) {
    row.caught = true;
    row.outcome = "crash (signal " + std::to_string(WTERMSIG(end.status)) + ")";
    read_crash(slurp(err), row);
  } else if (WIFEXITED(end.status) && have_json && j.contains("failures") && !j["failures"].empty()) {
    const auto& f = j["failures"][0];
    row.caught = true;
    row.outcome = f.value("verdict", "bug");
    row.message = f.value("message", "");
    row.first_seed = f.value("seed", 0ull);
    row.replay = f.value("replay", "");
    if (spec.engine == "sim-sc" || spec.engine == "sim-tso" || spec.engine == "sim-random") {
      // The simulator's seed is the whole interleaving: rerunning it is the replay.
      row.replay = "wsstress sim --scenario " + m.scenario + " --mutant " + m.name + " --seed " +
                   std::to_string(row.first_seed) + " --memory " + (spec.engine == "sim-tso" ? "tso" : "sc") +
                   " --strategy " + (spec.engine == "sim-random" ? "random" : "pct") + " --threads " +
                   std::to_string(spec.base.threads) + " --pools " + std::to_string(spec.base.pools) +
                   " --iterations " + std::to_string(spec.sim_iterations) + " --trace";
    }
    row.seconds = f.value("at_seconds", row.seconds);
    if (spec.engine.rfind("fuzz-", 0) == 0) {
      row.runs = f.value("executions", row.runs);
      row.replay = "wsstress fuzz --target " + spec.engine.substr(5) + " --mutant " + m.name + " --fuzzer-seed 1 --max-seconds " +
                   fmt(spec.budget_s) + " (reproducer not kept)";
    }
  } else if (WIFEXITED(end.status) && WEXITSTATUS(end.status) == 0) {
    row.outcome = "pass";
  } else if (WIFEXITED(end.status) && WEXITSTATUS(end.status) == 5) {
    row.outcome = "empty (no seed ran)";  // the CLI's exit code for a sweep that tested nothing
  } else {
    row.outcome = "error (exit " + std::to_string(WIFEXITED(end.status) ? WEXITSTATUS(end.status) : -1) + ")";
    const std::string e = slurp(err);
    row.message = e.substr(0, e.find('\n'));
  }
}

// Whether the row is what the catalog expects of the mutant on this engine.
void judge(const MatrixSpec& spec, const MutantInfo& m, MatrixRow& row) {
  // The fuzz and sim-random columns measure; only the clean pool and the
  // negative controls have an expectation there (no finding).
  const bool measure_only = spec.engine.rfind("fuzz-", 0) == 0 || spec.engine == "sim-random";
  const Expect measured_expect = m.name == "none" || m.negative_control ? Expect::Pass : Expect::Maybe;
  switch (measure_only ? measured_expect
          : spec.engine == "stress" ? m.stress_expect
          : spec.engine == "sim-sc" ? m.sim_sc_expect
          : spec.engine == "relacy" ? m.relacy_expect
                                    : m.sim_tso_expect) {
    case Expect::Catch: row.as_expected = row.caught; break;
    case Expect::Pass: row.as_expected = !row.caught; break;
    case Expect::Maybe:
    case Expect::Cannot: row.as_expected = true; break;
  }
  // The kind of a catch is judged where the catalog has an expectation; the
  // fuzz and sim-random columns only measure (a program finding the
  // simulator cannot replay has no kind of its own).
  if (row.caught) {
    row.kind = classify_failure(row.outcome, row.message);
    row.kind_as_expected = measure_only || contains(row.mutant.kinds, row.kind);
    row.as_expected = row.as_expected && row.kind_as_expected;
  }
}

}  // namespace

MatrixReport run_matrix(const MatrixSpec& spec, const std::function<void(const MatrixRow&)>& on_row) {
  MatrixReport report;
  report.spec = spec;
  const auto t0 = std::chrono::steady_clock::now();
  char dir_template[] = "/tmp/wsstress-matrix-XXXXXX";
  const char* made = mkdtemp(dir_template);
  if (made == nullptr) throw std::runtime_error("cannot create a temporary directory in /tmp");
  const std::string dir = made;
  // The child stops itself at its budget; this is the backstop. Relacy runs
  // one search per model that targets the mutant, each with the budget as
  // its time limit, and the clean row runs all six models. A fuzz child
  // converts its finding after the budget (up to 200 simulator runs for a
  // program).
  const double limit = (spec.engine == "relacy" ? 6 : 1) * spec.budget_s + spec.hang_timeout_s +
                       (spec.engine.rfind("fuzz-", 0) == 0 ? 150 : 30);
  for (const MutantInfo& m : mutant_catalog()) {
    if (!spec.only.empty() && std::find(spec.only.begin(), spec.only.end(), m.name) == spec.only.end()) continue;
    if ((report.stopped_by_signal = StopSignals::requested()) != 0) break;
    MatrixRow row;
    row.mutant = m;
    if (const auto over = spec.expect_kinds.find(m.name); over != spec.expect_kinds.end()) row.mutant.kinds = over->second;
    row.scenario = m.scenario;
    if (spec.engine == "relacy" && m.relacy_expect == Expect::Cannot) {
      row.outcome = "not modelled";  // no Relacy model targets this mutant: nothing to run
    } else {
      const std::string json = dir + "/" + m.name + ".json", err = dir + "/" + m.name + ".err";
      std::remove(json.c_str());
      const ChildEnd end = run_child(child_args(spec, m, dir, json), err, limit);
      if (end.stopped_by_signal != 0) {  // an unfinished row is not a result
        report.stopped_by_signal = end.stopped_by_signal;
        break;
      }
      read_outcome(spec, m, end, json, err, row);
      judge(spec, m, row);
      std::remove(json.c_str());
      std::remove(err.c_str());
      std::remove((dir + "/" + m.name + ".repro").c_str());
    }
    report.rows.push_back(row);
    if (on_row) on_row(row);
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);  // the fuzz columns leave corpora and findings there
  report.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report;
}

}  // namespace wsstress::stress
