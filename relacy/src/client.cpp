// SPDX-License-Identifier: MIT OR Apache-2.0
// The client's side of the models (wsstress_relacy_client, linked into
// wsstress): it lists the models and runs each search through the runner,
// wsstress-relacy, a child process that reports through a pipe. The parent
// enforces the time and memory limits (Relacy's full and context-bound
// searches cannot be stopped from inside) and turns a crash of the child into
// an error verdict.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cxxabi.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "wsstress/core/companion.hpp"
#include "wsstress/relacy/models.hpp"
#include "wsstress/relacy/stop.hpp"

namespace wsstress::relacy {

const char* search_name(Search s) {
  switch (s) {
    case Search::Random: return "random";
    case Search::Bound: return "bound";
    case Search::Full: return "full";
  }
  return "?";
}

std::optional<Search> parse_search(const std::string& text) {
  if (text == "random") return Search::Random;
  if (text == "bound") return Search::Bound;
  if (text == "full") return Search::Full;
  return std::nullopt;
}

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::Pass: return "pass";
    case Outcome::Fail: return "fail";
    case Outcome::Timeout: return "timeout";
    case Outcome::MemoryLimit: return "memory";
    case Outcome::Error: return "error";
  }
  return "?";
}

std::string runner_path() { return companion_program("wsstress-relacy", "WSSTRESS_RELACY_RUNNER"); }

namespace {

std::atomic<bool (*)()> g_stop_check{nullptr};

// The search child must not outlive the command, nor catch its stop signals:
// it dies with its parent (PR_SET_PDEATHSIG survives exec) and takes
// SIGINT/SIGTERM/SIGHUP as their default (unless they were ignored, nohup), so
// a terminal's Ctrl-C ends it at once.
void become_search_child(pid_t parent) noexcept {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(3);  // the parent died before prctl: nobody would stop this search
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler != SIG_IGN) signal(sig, SIG_DFL);
  }
}

// The runner with `args`, its stdout the write end of a pipe.
struct SearchChild {
  pid_t pid = -1;
  int fd = -1;
};

Result<SearchChild> start_runner(const std::vector<std::string>& args) {
  const std::string path = runner_path();
  if (access(path.c_str(), X_OK) != 0) {
    return fail("the Relacy models are not built: no runner " + path +
                " (build the target wsstress-relacy, or point WSSTRESS_RELACY_RUNNER at one)");
  }
  std::vector<char*> argv{const_cast<char*>(path.c_str())};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int fds[2];
  if (pipe(fds) != 0) return fail(std::string("pipe: ") + std::strerror(errno));
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return fail(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    become_search_child(parent);
    close(fds[0]);
    if (dup2(fds[1], STDOUT_FILENO) < 0) _exit(3);
    close(fds[1]);
    execv(path.c_str(), argv.data());
    _exit(3);
  }
  close(fds[1]);
  return SearchChild{pid, fds[0]};
}

// The child's resident set from /proc (0 when it cannot be read).
double resident_gib(pid_t pid) {
  std::FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/statm").c_str(), "r");
  if (f == nullptr) return 0;
  unsigned long long size = 0, resident = 0;
  const int n = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  if (n != 2) return 0;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024 * 1024);
}

// How the wait for a search child ended.
enum class Ended { Exited, TimedOut, OutOfMemory };

// Reads the child's report while waiting, so a large trace cannot fill the
// pipe and stall it; kills it on a stop request, at the time limit, or above
// the memory limit (the kernel's OOM killer would otherwise end it, or a
// neighbour, with a bare signal 9). Reaps it and fills `status`.
Ended collect(const SearchChild& child, const SearchSpec& search, std::chrono::steady_clock::time_point start,
              std::string& text, int& status) {
  char buf[65536];
  Ended ended = Ended::Exited;
  for (;;) {
    fd_set set;
    FD_ZERO(&set);
    FD_SET(child.fd, &set);
    timeval tv{0, 100000};
    if (select(child.fd + 1, &set, nullptr, nullptr, &tv) > 0) {
      ssize_t n = read(child.fd, buf, sizeof buf);
      if (n > 0) {
        text.append(buf, static_cast<std::size_t>(n));
        continue;
      }
      if (n == 0) break;  // the child closed its end: it is exiting
    }
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // A stop request is reported as a timeout; the caller knows why and drops the result.
    if (auto stop = g_stop_check.load(); (stop != nullptr && stop()) || elapsed > search.max_seconds) {
      ended = Ended::TimedOut;
    } else if (resident_gib(child.pid) > search.max_gib) {
      ended = Ended::OutOfMemory;
    } else {
      continue;
    }
    kill(child.pid, SIGKILL);
    break;
  }
  close(child.fd);
  waitpid(child.pid, &status, 0);
  return ended;
}

// Relacy opens its report with the test's type as typeid names it, mangled
// (N8wsstress6relacy...InjectModelI...EE): that line becomes the model and the
// mutant, with the type demangled after them.
std::string name_the_test(const std::string& report, const std::string& model, const std::string& mutant) {
  const std::size_t start = report.find_first_not_of('\n');
  if (start == std::string::npos) return report;
  const std::size_t end = report.find('\n', start);
  const std::string first = report.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (first.empty() || first.find(' ') != std::string::npos) return report;  // not a bare type name
  int status = -1;
  char* readable = abi::__cxa_demangle(first.c_str(), nullptr, nullptr, &status);
  const std::string type = status == 0 && readable != nullptr ? readable : first;
  std::free(readable);
  return report.substr(0, start) + "model " + model + ", mutant " + mutant + " (" + type + ")" +
         (end == std::string::npos ? "" : report.substr(end));
}

// The search's outcome from how it ended and what it wrote.
void judge_search(Ended ended, int status, const std::string& text, ModelResult& res) {
  if (ended == Ended::TimedOut) {
    res.outcome = Outcome::Timeout;
    res.relacy_result = "stopped after " + std::to_string(static_cast<int>(res.search.max_seconds)) + " s";
    return;
  }
  if (ended == Ended::OutOfMemory) {
    res.outcome = Outcome::MemoryLimit;
    char text_gib[32];
    std::snprintf(text_gib, sizeof text_gib, "%g", res.search.max_gib);
    res.relacy_result = std::string("stopped at ") + text_gib + " GiB";
    return;
  }
  RawResult raw;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !decode(text, raw)) {
    res.outcome = Outcome::Error;
    res.relacy_result = WIFSIGNALED(status) ? "the search crashed (signal " + std::to_string(WTERMSIG(status)) + ")"
                                            : "the search ended without a report";
    res.trace = text;
    return;
  }
  res.outcome = raw.passed ? Outcome::Pass : Outcome::Fail;
  res.relacy_result = raw.relacy_result;
  res.executions = raw.executions;
  res.exhaustive = raw.passed && res.search.kind != Search::Random;
  if (!raw.passed) res.trace = name_the_test(raw.output, res.model, res.mutant);
  res.explanation = std::move(raw.explanation);
}

struct Listing {
  std::vector<ModelInfo> models;
  std::string error;
};

// `wsstress-relacy list`, once.
const Listing& listing() {
  static const Listing l = [] {
    Listing out;
    const Result<SearchChild> child = start_runner({"list"});
    if (!child) return Listing{{}, child.error()};
    std::string text;
    int status = 0;
    SearchSpec limits;
    limits.max_seconds = 60;
    collect(*child, limits, std::chrono::steady_clock::now(), text, status);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      return Listing{{}, "the Relacy runner " + runner_path() + " failed to list its models"};
    }
    Result<std::vector<ModelInfo>> decoded = decode_models(text);
    if (!decoded) return Listing{{}, "the Relacy runner's list: " + decoded.error()};
    out.models = std::move(*decoded);
    return out;
  }();
  return l;
}

}  // namespace

void set_stop_check(bool (*check)()) noexcept { g_stop_check.store(check); }

const std::vector<ModelInfo>& models() { return listing().models; }
std::string runner_error() { return listing().error; }

const ModelInfo* find_model(const std::string& name) {
  for (const ModelInfo& m : models()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

Result<ModelResult> run_model(const std::string& model, const std::string& mutant, const SearchSpec& search) {
  if (!runner_error().empty()) return fail(runner_error());
  const ModelInfo* info = find_model(model);
  if (info == nullptr) return fail("--model: unknown model '" + model + "'");
  bool targeted = mutant == "none";
  for (const Target& t : info->targets) targeted |= t.mutant == mutant;
  if (!targeted) {
    std::string targets;
    for (const Target& t : info->targets) targets += (targets.empty() ? "" : ", ") + t.mutant;
    return fail("--mutant: model '" + model + "' does not target '" + mutant + "' (it targets: none, " + targets + ")");
  }
  const auto start = std::chrono::steady_clock::now();
  const Result<SearchChild> child = start_runner(RunRequest{model, mutant, search}.to_args());
  if (!child) return fail(child.error());
  std::string text;
  int status = 0;
  const Ended ended = collect(*child, search, start, text, status);
  ModelResult res;
  res.model = model;
  res.mutant = mutant;
  res.search = search;
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  judge_search(ended, status, text, res);
  return res;
}

}  // namespace wsstress::relacy
