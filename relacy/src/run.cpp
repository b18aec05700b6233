// The model catalog and the runner: each (model, mutant) search runs in a
// forked child, which reports back through a pipe; the parent enforces the
// time limit (Relacy's full and context-bound searches cannot be stopped from
// inside) and turns a crash of the child into an error verdict.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <thread>

#include "wsstress/relacy/models.hpp"
#include "wsstress/relacy/stop.hpp"

namespace wsstress::relacy {

std::vector<ModelEntry> inject_entries();
std::vector<ModelEntry> latch_entries();
std::vector<ModelEntry> cross_entries();
std::vector<ModelEntry> cross_scope_entries();
std::vector<ModelEntry> broadcast_entries();
std::vector<ModelEntry> terminate_entries();
std::vector<ModelEntry> deque_entries();
std::vector<ModelEntry> handshake_entries();

const char* to_string(Search s) {
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

const char* to_string(Outcome o) {
  switch (o) {
    case Outcome::Pass: return "pass";
    case Outcome::Fail: return "fail";
    case Outcome::Timeout: return "timeout";
    case Outcome::MemoryLimit: return "memory";
    case Outcome::Error: return "error";
  }
  return "?";
}

const std::vector<ModelEntry>& model_table() {
  static const std::vector<ModelEntry> table = [] {
    std::vector<ModelEntry> t;
    for (auto f : {inject_entries, latch_entries, cross_entries, cross_scope_entries, broadcast_entries, terminate_entries,
                   deque_entries, handshake_entries}) {
      for (const ModelEntry& e : f()) t.push_back(e);
    }
    return t;
  }();
  return table;
}

const std::vector<ModelInfo>& models() {
  static const std::vector<ModelInfo> list = [] {
    // The CI searches are sized from measurements on 2 cores (README): the
    // registry-level models are too big for a context-bound search to finish
    // (bound 0 of latch or broadcast runs past 150 s), so they run a random
    // search of 10^5 executions, the second line; the deque and the handshake
    // models run the exhaustive context-bound search at the largest bound
    // that finishes in seconds (the README's table has the next bound's time).
    std::vector<ModelInfo> v = {
        {"inject",
         "outside installs race the worker's idle rounds and sleep gates: every install returns and the worker exits "
         "after the pool is dropped",
         "1 worker; 2 outside threads (one installs twice in a row); 1 idle round; 1-bit JEC",
         {}, {Search::Random, 0, 100000, 600}},
        {"latch",
         "join(a, b) inside an install on two workers, b slow enough for the joining worker to reach its sleep "
         "gates while the other steals it: the join returns both results",
         "2 workers; 1 outside thread; 1 idle round; 1-bit JEC", {}, {Search::Random, 0, 100000, 600}},
        {"cross",
         "pool A calls into pool B, which calls back into A (one worker each), then both are dropped, A first: "
         "the chain returns, both pools' workers exit, nothing touches A after it is freed",
         "2 pools x 1 worker; 1 outside thread; 1 idle round; 1-bit JEC", {}, {Search::Random, 0, 100000, 600}},
        {"cross_scope",
         "a job spawned into pool A opens a scope over pool B whose one job runs on B's worker, and A is dropped "
         "at once: the scope returns with its job run, both workers exit, nothing touches A after it is freed",
         "2 pools x 1 worker; 1 outside thread; 1 idle round; 1-bit JEC", {}, {Search::Random, 0, 100000, 600}},
        {"broadcast",
         "an outside broadcast into a two-worker pool whose workers are going to sleep: one result per worker, in "
         "index order, and both exit after the drop",
         "2 workers; 1 outside thread; 1 idle round; 1-bit JEC", {}, {Search::Random, 0, 100000, 600}},
        {"terminate",
         "a pool dropped right after a job, while its worker heads for sleep: the worker wakes and exits",
         "1 worker; 1 outside thread; 1 idle round; 1-bit JEC", {}, {Search::Random, 0, 100000, 600}},
        {"deque",
         "the owner pushes two jobs and pops until empty while a thief steals twice: every job taken exactly once",
         "the Chase-Lev deque alone; owner and one thief", {}, {Search::Bound, 3, 0, 600}},
        {"handshake_latch",
         "below the registry: worker 0 idles on its latch until worker 1, having written the result, sets it: worker "
         "0 returns and reads the result",
         "Sleep + queues of 2 workers; 1 idle round; 1-bit JEC", {}, {Search::Bound, 3, 0, 600}},
        {"handshake_internal",
         "below the registry: worker 1 pushes a job on its own deque and waits for it while worker 0 idles (it may "
         "steal the job or sleep through the push): the job runs exactly once and both return",
         "Sleep + queues of 2 workers; 1 idle round; 1-bit JEC", {}, {Search::Bound, 1, 0, 600}},
        {"handshake_inject",
         "below the registry: an outside thread injects a job for the one worker, which idles on its way to sleep: "
         "the worker runs the job and returns",
         "Sleep + queues of 1 worker; 1 idle round; 1-bit JEC, started active; Injector lap 4", {}, {Search::Bound, 2, 0, 600}},
        {"handshake_inject_rollover",
         "below the registry: an outside thread injects a job for worker 0 while worker 1's sleepy announce can roll "
         "the JEC back: worker 0 runs the job and returns",
         "Sleep + queues of 2 workers; 1 idle round; 1-bit JEC; Injector lap 4", {}, {Search::Bound, 1, 0, 600}},
        {"handshake_broadcast",
         "below the registry: an outside broadcast into a worker on its way to sleep: the worker runs its job and "
         "returns",
         "Sleep + queues of 1 worker; 1 idle round; 1-bit JEC", {}, {Search::Bound, 3, 0, 600}},
        {"handshake_terminate",
         "below the registry: the last terminate count dropped while the worker idles on its terminate latch: the "
         "worker returns",
         "Sleep + queues of 1 worker; 1 idle round; 1-bit JEC", {}, {Search::Bound, 4, 0, 600}},
    };
    for (ModelInfo& m : v) {
      for (const ModelEntry& e : model_table()) {
        if (m.name == e.model && std::string(e.mutant) != "none") m.targets.push_back({e.mutant, e.expect_fail, e.note});
      }
    }
    return v;
  }();
  return list;
}

const ModelInfo* find_model(const std::string& name) {
  for (const ModelInfo& m : models()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

static const ModelEntry* find_entry(const std::string& model, const std::string& mutant) {
  for (const ModelEntry& e : model_table()) {
    if (model == e.model && mutant == e.mutant) return &e;
  }
  return nullptr;
}

RawResult run_entry_here(const std::string& model, const std::string& mutant, const SearchSpec& search) {
  const ModelEntry* e = find_entry(model, mutant);
  if (e == nullptr) return RawResult{false, "no such model", 0, ""};
  return e->run(search);
}

namespace {

// The child's report: "passed executions result-length result output-length output".
std::string encode(const RawResult& r) {
  std::ostringstream o;
  o << (r.passed ? 1 : 0) << ' ' << r.executions << ' ' << r.relacy_result.size() << ' ' << r.relacy_result << ' '
    << r.output.size() << ' ' << r.output;
  return o.str();
}

bool decode(const std::string& text, RawResult& r) {
  std::istringstream in(text);
  int passed = 0;
  std::size_t n = 0;
  if (!(in >> passed >> r.executions >> n)) return false;
  in.get();
  r.relacy_result.resize(n);
  if (!in.read(r.relacy_result.data(), static_cast<std::streamsize>(n))) return false;
  if (!(in >> n)) return false;
  in.get();
  r.output.resize(n);
  if (n > 0 && !in.read(r.output.data(), static_cast<std::streamsize>(n))) return false;
  r.passed = passed != 0;
  return true;
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

}  // namespace

namespace {
std::atomic<bool (*)()> g_stop_check{nullptr};

// The forked search must not outlive the command, nor catch its stop signals:
// it dies with its parent and takes SIGINT/SIGTERM/SIGHUP as their default
// (unless they were ignored, nohup), so a terminal's Ctrl-C ends it at once.
void become_search_child(pid_t parent) noexcept {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(3);  // the parent died before prctl: nobody would stop this search
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler != SIG_IGN) signal(sig, SIG_DFL);
  }
}
}  // namespace

void set_stop_check(bool (*check)()) noexcept { g_stop_check.store(check); }

namespace {

// A search running in a forked child, writing its encoded RawResult to `fd`.
struct SearchChild {
  pid_t pid = -1;
  int fd = -1;
};

Result<SearchChild> fork_search(const std::string& model, const std::string& mutant, const SearchSpec& search) {
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
    const std::string text = encode(run_entry_here(model, mutant, search));
    std::size_t off = 0;
    while (off < text.size()) {
      ssize_t w = write(fds[1], text.data() + off, text.size() - off);
      if (w <= 0) _exit(3);
      off += static_cast<std::size_t>(w);
    }
    _exit(0);
  }
  close(fds[1]);
  return SearchChild{pid, fds[0]};
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
  if (!raw.passed) res.trace = raw.output;
}

}  // namespace

Result<ModelResult> run_model(const std::string& model, const std::string& mutant, const SearchSpec& search) {
  const ModelInfo* info = find_model(model);
  if (info == nullptr) return fail("--model: unknown model '" + model + "'");
  if (find_entry(model, mutant) == nullptr) {
    std::string targets;
    for (const Target& t : info->targets) targets += (targets.empty() ? "" : ", ") + t.mutant;
    return fail("--mutant: model '" + model + "' does not target '" + mutant + "' (it targets: none, " + targets + ")");
  }
  const auto start = std::chrono::steady_clock::now();
  const Result<SearchChild> child = fork_search(model, mutant, search);
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
