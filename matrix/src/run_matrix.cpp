// SPDX-License-Identifier: MIT OR Apache-2.0
// run_matrix: one forked child per mutant, in which the engine runs through
// its library API (an matrix::Engine) and leaves a typed EngineResult in a
// file; the child's end (a result, a signal, the backstop's kill) becomes a
// row, judged against what that engine expects of the mutant. An engine
// sweeps seeds from 0 until the first failure or until its time budget runs
// out.
#include "wsstress/matrix/run_matrix.hpp"

#include "wsstress/core/sweep.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

namespace wsstress::matrix {
// The child's result crosses the process boundary as JSON of the typed
// struct, written and read only here.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(EngineResult, caught, outcome, message, first_seed, runs, at_seconds, replay)
}  // namespace wsstress::matrix

namespace wsstress::matrix {

using core::classify_failure;
using core::FailureKind;
using core::mutant_catalog;
using core::StopSignals;

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

namespace {

struct ChildEnd {
  int status = 0;
  bool killed = false;
  int stopped_by_signal = 0;  // we were asked to stop, and passed the signal on to the child
  double seconds = 0;
};

// The child's side: its own process group (so a signal passed on, or the
// backstop's kill, reaches what it starts too: a Relacy search; a fuzzer has
// a group of its own, which the fuzz engine passes signals to), stdout to
// /dev/null and stderr to `err` (a crash's last words), then the engine; its
// result goes to `result` and the process ends.
[[noreturn]] void be_child(const MatrixSpec& spec, const Engine& engine, const MutantInfo& m, const std::string& dir,
                           const std::string& result, const std::string& err) {
  setpgid(0, 0);
  const int out = open("/dev/null", O_WRONLY);
  const int errfd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out >= 0) dup2(out, 1);
  if (errfd >= 0) dup2(errfd, 2);
  const Deliver deliver = [&result](const EngineResult& r) {
    std::ofstream out(result);
    out << nlohmann::json(r).dump();
    out.close();
    if (!out) std::fprintf(stderr, "wsstress: error: cannot write the row's result to %s\n", result.c_str());
    std::fflush(nullptr);
    std::_Exit(out ? 0 : 3);
  };
  try {
    deliver(engine.run(spec, m, dir, deliver));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wsstress: error: %s\n", e.what());
  }
  std::fflush(nullptr);
  std::_Exit(3);
}

// Forks the child for one row and waits until it ends, or kills it at
// `limit` seconds; a stop signal is passed on to it, with a few seconds to
// report what it ran before the backstop.
ChildEnd run_child(const MatrixSpec& spec, const Engine& engine, const MutantInfo& m, const std::string& dir,
                   const std::string& result, const std::string& err, double limit) {
  std::fflush(nullptr);  // nothing buffered is written twice
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("cannot fork a matrix child");
  if (pid == 0) be_child(spec, engine, m, dir, result, err);
  setpgid(pid, pid);  // as the child does: whichever runs first, the group exists before a kill
  ChildEnd end;
  for (;;) {
    if (waitpid(pid, &end.status, WNOHANG) == pid) break;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (const int sig = StopSignals::requested(); sig != 0 && end.stopped_by_signal == 0) {
      kill(-pid, sig);
      end.stopped_by_signal = sig;
      limit = std::min(limit, elapsed + 5);
    }
    if (elapsed > limit) {
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
  if (auto at = e.find(matrix::kFuzzFindingMarker); at != std::string::npos) {
    char* end = nullptr;
    row.runs = std::strtoull(e.c_str() + at + std::strlen(matrix::kFuzzFindingMarker), &end, 10);
    const std::string in = " executions in ";
    if (e.compare(end - e.c_str(), in.size(), in) == 0) row.seconds = std::strtod(end + in.size(), nullptr);
  }
  for (const char* what : {"ERROR: AddressSanitizer: ", "WARNING: ThreadSanitizer: ", "wsstress pool: "}) {
    if (auto at = e.find(what); at != std::string::npos) {
      row.message = e.substr(at, e.find('\n', at) - at);
      break;
    }
  }
}

// The child's result, if it left one.
std::optional<EngineResult> read_result(const std::string& path) {
  try {
    const std::string text = slurp(path);
    if (!text.empty()) return nlohmann::json::parse(text).get<EngineResult>();
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// The row from how the child ended and the result it left.
void read_outcome(const ChildEnd& end, const std::string& result, const std::string& err, MatrixRow& row) {
  row.seconds = end.seconds;
  const std::optional<EngineResult> r = end.killed ? std::nullopt : read_result(result);
  if (r) row.runs = r->runs;
  if (end.killed) {
    row.caught = true;
    row.outcome = "hang (killed)";
  } else if (WIFSIGNALED(end.status)) {
    row.caught = true;
    row.outcome = "crash (signal " + std::to_string(WTERMSIG(end.status)) + ")";
    read_crash(slurp(err), row);
  } else if (r) {
    row.caught = r->caught;
    row.outcome = r->outcome;
    row.message = r->message;
    row.first_seed = r->first_seed;
    row.replay = r->replay;
    if (r->caught && r->at_seconds >= 0) row.seconds = r->at_seconds;
  } else {
    const std::string code = std::to_string(WIFEXITED(end.status) ? WEXITSTATUS(end.status) : -1);
    const std::string e = slurp(err);
    if (e.find("ERROR: AddressSanitizer: ") != std::string::npos) {
      // ASan ends a process with an exit code (1), not a signal: the pool
      // crashed in the child (a fuzz engine's conversion runs the finding in
      // process), and its report, not the banner above it, is the message.
      row.caught = true;
      row.outcome = "crash (exit " + code + ")";
      read_crash(e, row);
    } else {
      row.outcome = "error (exit " + code + ")";
      row.message = e.substr(0, e.find('\n'));
    }
  }
}

// Whether the row is what the engine expects of the mutant.
void judge(const Engine& engine, const MutantInfo& m, MatrixRow& row) {
  // An engine that could not run (no runner, a tool failure) measured
  // nothing: that is never what the catalog expects, whatever it expects.
  if (is_engine_error(row)) {
    row.as_expected = false;
    return;
  }
  // A row stopped by its limit without a verdict (incomplete) is neither a
  // catch nor a pass: a miss where a catch is expected, and not the pass
  // expected of the clean pool and the negative controls.
  switch (engine.expect(m)) {
    case Expect::Catch: row.as_expected = row.caught; break;
    case Expect::Pass: row.as_expected = !row.caught && !is_incomplete(row); break;
    case Expect::Maybe:
    case Expect::Cannot: row.as_expected = true; break;
  }
  // The kind of a catch is judged where the engine has an expectation; the
  // columns that only measure do not (a program finding the simulator cannot
  // replay has no kind of its own).
  if (row.caught) {
    row.kind = classify_failure(row.outcome, row.message);
    row.kind_as_expected = !engine.judges_kinds() || contains(row.mutant.kinds, row.kind);
    row.as_expected = row.as_expected && row.kind_as_expected;
  }
}

}  // namespace

MatrixReport run_matrix(const MatrixSpec& spec, const Engine& engine,
                        const std::function<void(const MatrixRow&)>& on_row) {
  MatrixReport report;
  report.spec = spec;
  const auto t0 = std::chrono::steady_clock::now();
  char dir_template[] = "/tmp/wsstress-matrix-XXXXXX";
  const char* made = mkdtemp(dir_template);
  if (made == nullptr) throw std::runtime_error("cannot create a temporary directory in /tmp");
  const std::string dir = made;
  // The child stops itself at its budget; this is the backstop.
  const Limits l = engine.limits();
  const double limit = l.budgets * spec.budget_s + l.hang_factor * spec.hang_timeout_s + l.slack_s;
  for (const MutantInfo& m : mutant_catalog()) {
    if (!spec.only.empty() && std::find(spec.only.begin(), spec.only.end(), m.name) == spec.only.end()) continue;
    if ((report.stopped_by_signal = StopSignals::requested()) != 0) break;
    MatrixRow row;
    row.mutant = m;
    if (const auto over = spec.expect_kinds.find(m.name); over != spec.expect_kinds.end())
      row.mutant.kinds = over->second;
    row.scenario = m.scenario;
    if (const std::optional<std::string> skipped = engine.skip(m)) {
      row.outcome = *skipped;  // nothing to run (Relacy: no model targets this mutant)
    } else {
      const std::string result = dir + "/" + m.name + ".result", err = dir + "/" + m.name + ".err";
      const ChildEnd end = run_child(spec, engine, m, dir, result, err, limit);
      if (end.stopped_by_signal != 0) {  // an unfinished row is not a result
        report.stopped_by_signal = end.stopped_by_signal;
        break;
      }
      read_outcome(end, result, err, row);
      judge(engine, m, row);
      std::remove(result.c_str());
      std::remove(err.c_str());
    }
    report.rows.push_back(row);
    if (on_row) on_row(row);
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);  // the fuzz columns leave corpora and findings there
  report.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report;
}

}  // namespace wsstress::matrix
