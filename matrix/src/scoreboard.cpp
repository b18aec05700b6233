// SPDX-License-Identifier: MIT OR Apache-2.0
// Running the scoreboard (scoreboard.hpp): the cells' runs, each a
// crash-guarded simulator campaign over its own seed range, shared out among
// worker processes that take the next run from a counter in shared memory
// and send each result back as one JSON line on a pipe. Processes, not
// threads: a mutant is a process-wide switch (pool/mutant_list.hpp), and the
// parent replays a guarded campaign's failure in-process.
#include "wsstress/matrix/scoreboard.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "wsstress/core/sweep.hpp"
#include "wsstress/pool/platform/splitmix64.hpp"
#include "wsstress/sim/flags.hpp"

namespace wsstress::matrix {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ScoreRun, first_seed, found, schedules, seconds, seed, verdict, message, replay)

using sim::MemoryModel;
using sim::StrategyKind;

ScoreTarget mutant_target(const MutantInfo& m, const std::vector<MemoryModel>& memories) {
  ScoreTarget t{m.name, m.scenario, m.name, !m.harmless(), {}};
  for (MemoryModel mm : memories) {
    if (simulator_expects(m, mm) != Expect::Cannot) t.models.push_back(mm);
  }
  return t;
}

std::vector<ScoreTarget> catalog_targets(const std::vector<MemoryModel>& memories) {
  std::vector<ScoreTarget> out;
  for (const MutantInfo& m : core::mutant_catalog()) {
    bool caught = false;
    for (MemoryModel mm : memories) caught = caught || simulator_expects(m, mm) == Expect::Catch;
    if (m.id == MutantId::none || (caught && !m.harmless())) out.push_back(mutant_target(m, memories));
  }
  return out;
}

std::uint64_t run_first_seed(std::uint64_t seed, std::size_t run) {
  const std::uint64_t high = (SplitMix64::mix(seed) >> 32) + run;
  return high << 32;  // the sum's bits past 32 shift out: mod 2^32
}

namespace {

struct Item {
  std::size_t cell, run;
};

// The campaign of one run: `budget` seeds from the run's first (DFS: one
// seed's search of `budget` executions), stopping at the first failure.
sim::SimCampaignSpec run_campaign(const ScoreboardSpec& spec, const ScoreCell& cell, std::size_t run) {
  const ScoreTarget& t = spec.targets[cell.target];
  sim::SimCampaignSpec c = spec.base;
  c.base.run.scenario = t.scenario;
  c.base.run.mutant = t.mutant;
  c.config.strategy = cell.strategy;
  c.config.memory = cell.memory;
  c.crash_guard = true;
  c.base.max_seconds = spec.run_seconds;
  c.base.stop_on_failure = true;
  c.base.shard = {};
  c.base.repeat = 1;
  const std::uint64_t from = run_first_seed(spec.seed, run);
  const bool dfs = cell.strategy == StrategyKind::DFS;
  c.base.seeds = {from, dfs ? from : from + spec.budget - 1};
  if (dfs) c.max_executions = spec.budget;
  return c;
}

// The first line of `s`, at most 400 characters: a result line stays well
// under PIPE_BUF, so that the workers' writes never interleave.
std::string first_line(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  if (line.size() > 400) line = line.substr(0, 400) + "...";
  return line;
}

ScoreRun run_one(const ScoreboardSpec& spec, const ScoreCell& cell, std::size_t run, int& stopped) {
  const sim::SimCampaignSpec c = run_campaign(spec, cell, run);
  const sim::SimCampaignReport rep = sim::run_sim_campaign(c, nullptr);
  stopped = rep.stopped_by_signal;
  ScoreRun r;
  r.first_seed = c.base.seeds.from;
  r.schedules = rep.executions;
  r.seconds = rep.elapsed_s;
  if (rep.failures.empty()) return r;
  const sim::SimFailure& f = rep.failures.front();
  r.found = f.result.verdict.kind != core::VerdictKind::Internal;  // a tool failure finds nothing
  r.seconds = f.at_seconds;
  r.seed = f.seed;
  r.verdict = core::verdict_name(f.result.verdict.kind);
  r.message = first_line(f.result.verdict.message);
  r.replay = sim::sim_command_line(c, f.seed);
  return r;
}

// A worker: runs the next unclaimed item until none is left or a stop
// signal came, writing each result as a line on `out`.
[[noreturn]] void worker(const ScoreboardSpec& spec, const std::vector<ScoreCell>& cells,
                         const std::vector<Item>& items, std::atomic<std::size_t>& next, int out, pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(0);
  try {
    while (core::StopSignals::requested() == 0) {
      const std::size_t i = next.fetch_add(1);
      if (i >= items.size()) break;
      int stopped = 0;
      const ScoreRun r = run_one(spec, cells[items[i].cell], items[i].run, stopped);
      if (stopped != 0) break;  // an unfinished run is no result
      const std::string line = nlohmann::json{{"item", i}, {"run", r}}.dump() + "\n";
      if (write(out, line.data(), line.size()) != static_cast<ssize_t>(line.size())) _exit(3);
    }
  } catch (...) {
    _exit(3);
  }
  _exit(0);
}

// The cells in report order: target-major, then model, then strategy.
std::vector<ScoreCell> plan_cells(const ScoreboardSpec& spec) {
  std::vector<ScoreCell> cells;
  for (std::size_t t = 0; t < spec.targets.size(); ++t) {
    const auto& models = spec.targets[t].models;
    for (MemoryModel m : spec.memories) {
      if (!models.empty() && std::find(models.begin(), models.end(), m) == models.end()) continue;
      for (StrategyKind s : spec.strategies) cells.push_back({t, s, m, {}});
    }
  }
  return cells;
}

// Reads the workers' lines until every worker has closed the pipe, passing a
// stop signal on to them; each result goes to its cell.
void collect(int in, const std::vector<pid_t>& workers, const std::vector<Item>& items, std::vector<ScoreCell>& cells,
             const std::function<void(std::size_t, std::size_t)>& progress) {
  std::string buffer;
  std::size_t done = 0;
  bool forwarded = false;
  char chunk[8192];
  for (;;) {
    if (const int sig = core::StopSignals::requested(); sig != 0 && !forwarded) {
      for (pid_t w : workers) kill(w, sig);
      forwarded = true;
    }
    pollfd p{in, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = read(in, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buffer.append(chunk, static_cast<std::size_t>(n));
    for (std::size_t nl; (nl = buffer.find('\n')) != std::string::npos; buffer.erase(0, nl + 1)) {
      const nlohmann::json j = nlohmann::json::parse(buffer.substr(0, nl));
      const Item& it = items.at(j.at("item").get<std::size_t>());
      cells[it.cell].runs[it.run] = j.at("run").get<ScoreRun>();
      if (progress) progress(++done, items.size());
    }
  }
}

}  // namespace

ScoreboardReport run_scoreboard(const ScoreboardSpec& spec,
                                const std::function<void(std::size_t, std::size_t)>& progress) {
  const auto start = std::chrono::steady_clock::now();
  ScoreboardReport report;
  report.spec = spec;
  std::vector<ScoreCell> cells = plan_cells(spec);
  std::vector<Item> items;
  for (std::size_t r = 0; r < spec.runs; ++r) {
    for (std::size_t c = 0; c < cells.size(); ++c) items.push_back({c, r});  // run 0 of every cell first
  }
  ScoreRun unfinished;  // a run no worker has reported yet
  unfinished.schedules = ~std::uint64_t{0};
  for (ScoreCell& c : cells) c.runs.assign(spec.runs, unfinished);
  void* shared =
      mmap(nullptr, sizeof(std::atomic<std::size_t>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) throw std::runtime_error(std::string("mmap: ") + std::strerror(errno));
  auto* next = new (shared) std::atomic<std::size_t>(0);
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::vector<pid_t> workers;
  std::fflush(nullptr);
  for (unsigned j = 0; j < std::max(1u, spec.jobs); ++j) {
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) break;  // fewer workers: the ones started take every item
    if (pid == 0) {
      close(fds[0]);
      worker(spec, cells, items, *next, fds[1], parent);
    }
    workers.push_back(pid);
  }
  close(fds[1]);
  if (!workers.empty()) collect(fds[0], workers, items, cells, progress);
  close(fds[0]);
  bool died = workers.empty();
  for (pid_t w : workers) {
    int status = 0;
    while (waitpid(w, &status, 0) < 0 && errno == EINTR) {
    }
    died = died || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  }
  munmap(shared, sizeof(std::atomic<std::size_t>));
  report.stopped_by_signal = core::StopSignals::requested();
  // A cell missing a run is unfinished: a stop keeps the finished cells; a
  // worker that died without a stop is the tool's failure.
  for (ScoreCell& c : cells) {
    bool whole = true;
    for (const ScoreRun& r : c.runs) whole = whole && r.schedules != ~std::uint64_t{0};
    if (whole) {
      report.cells.push_back(std::move(c));
    } else if (report.stopped_by_signal == 0) {
      throw std::runtime_error(died ? "a scoreboard worker process died before finishing its runs"
                                    : "a scoreboard run left no result");
    }
  }
  report.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace wsstress::matrix
