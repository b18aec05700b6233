// SPDX-License-Identifier: MIT OR Apache-2.0
// The crash guard of a simulator campaign. The parent
// forks a child that runs the seeds and journals its progress and every
// decision of the execution in flight (journal.hpp); the parent keeps the
// report. A child that stops at an ordinary failure leaves that failure's
// schedule, which the parent replays in-process for the full result (the
// simulator is deterministic); a child that dies of a signal leaves the seed
// and the decisions up to the crash, which become a `crash` finding whose
// reproducer replays to the same crash. With --keep-going a new child goes on
// after the failing seed. Cost: one fork per campaign and per failure, and one
// store per scheduling decision.
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>

#include "journal.hpp"
#include "wsstress/sim/engine.hpp"

namespace wsstress::sim {

CrashJournal::CrashJournal(std::uint64_t capacity) : capacity_(capacity) {
  bytes_ = sizeof(Header) + capacity * sizeof(std::uint32_t);
  // Only the pages written are backed: a long schedule costs what it uses.
  void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return;
  header_ = new (p) Header();
  decisions_ = reinterpret_cast<std::uint32_t*>(static_cast<char*>(p) + sizeof(Header));
}

CrashJournal::~CrashJournal() {
  if (active_ == this) active_ = nullptr;
  if (header_ != nullptr) munmap(header_, bytes_);
}

void journal_seed_done(CrashJournal& journal, const SimCampaignReport& report) {
  CrashJournal::Header& h = journal.header();
  h.runs = report.runs;
  h.executions = report.executions;
  h.steps = report.steps;
  h.dfs_exhausted = report.dfs_exhausted;
}

std::string process_end_text(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* abbrev = sigabbrev_np(sig);
    return std::string("killed by ") + (abbrev ? std::string("SIG") + abbrev : "a signal") + " (signal " +
           std::to_string(sig) + ")";
  }
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

ChildAnswer answer_in_child(const std::function<std::string()>& body) {
  ChildAnswer a;
  int fds[2];
  if (pipe(fds) != 0) return a;
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return a;
  }
  if (pid == 0) {
    close(fds[0]);
    std::string text;
    try {
      text = body();
    } catch (...) {
      _exit(1);  // never back into the caller's frames in the child
    }
    std::fflush(nullptr);
    for (std::size_t done = 0; done < text.size();) {
      const ssize_t n = write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) _exit(1);
      done += static_cast<std::size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  char buf[65536];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;) {
    if (n > 0) a.text.append(buf, static_cast<std::size_t>(n));
    else if (errno != EINTR) break;
  }
  close(fds[0]);
  while (waitpid(pid, &a.status, 0) < 0 && errno == EINTR) {
  }
  a.started = true;
  a.clean = WIFEXITED(a.status) && WEXITSTATUS(a.status) == 0;
  return a;
}

namespace {

constexpr int kChildDone = 0;     // the seeds ran out, the budget or a stop signal ended them
constexpr int kChildFailed = 97;  // stopped at an ordinary failure; its schedule is in the journal
constexpr int kChildThrew = 98;   // the campaign threw (an allocation failure): the tool's failure

// The child: the seeds from `from` on (in the shard), stopping at the first failure.
[[noreturn]] void child_main(const SimCampaignSpec& spec, std::uint64_t from, double seconds_left,
                             std::uint64_t runs_before, double elapsed_before, const core::ProgressFn& progress,
                             CrashJournal& journal, pid_t parent) {
  // The child dies with the command (a SIGKILL of the parent leaves no orphan).
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(kChildDone);
  journal.activate();
  SimCampaignSpec part = spec;
  part.crash_guard = false;
  part.base.seeds.from = from;
  part.base.shard.index = 0;  // `from` is a seed of the shard; the stride stays
  part.base.max_seconds = seconds_left;
  part.base.stop_on_failure = true;
  const std::uint64_t planned = core::seeds_in_shard(spec.base.seeds, spec.base.shard);
  core::ProgressFn shifted;
  if (progress) {
    shifted = [&](std::uint64_t done, std::uint64_t, double el) {
      progress(runs_before + done, planned, el + elapsed_before);
    };
  }
  SimCampaignReport r;
  try {
    r = run_sim_campaign(part, shifted);
  } catch (...) {  // never back into the parent's code with two processes
    _exit(kChildThrew);
  }
  CrashJournal::Header& h = journal.header();
  journal_seed_done(journal, r);
  h.budget_exhausted = r.budget_exhausted;
  h.stopped_by_signal = r.stopped_by_signal;
  if (!r.failures.empty()) {
    const SimFailure& f = r.failures.front();
    h.seed = f.seed;
    journal.begin_execution();
    for (std::uint32_t d : f.repro.config.forced) journal.decision(d);
    h.failed = true;
  }
  std::fflush(nullptr);
  _exit(h.failed ? kChildFailed : kChildDone);
}

// The failure the child stopped at, replayed here from its schedule.
SimFailure replay_child_failure(const SimCampaignSpec& spec, CrashJournal& journal, double at) {
  const CrashJournal::Header& h = journal.header();
  SimConfig cfg = spec.config;
  cfg.seed = h.seed;
  cfg.forced.assign(journal.decisions(), journal.decisions() + h.n_decisions);
  // A schedule longer than the journal: the seed alone replays a random or
  // PCT run (a DFS prefix cannot be rebuilt; the verdict below says so).
  if (h.overflowed && cfg.strategy != StrategyKind::DFS) cfg.forced.clear();
  SimResult r = find_sim_runner(spec.base.run.mutant)(spec.base.run, cfg);
  cfg.forced = r.schedule;  // the whole schedule, for the reproducer, even after an overflow
  if (r.verdict.kind == core::VerdictKind::Pass) {
    r.verdict = {core::VerdictKind::Internal,
                 "seed " + std::to_string(h.seed) +
                     " failed in the campaign's child process and passed when replayed "
                     "in the parent: the simulator is not deterministic here (a bug of wsstress)",
                 ""};
  }
  return make_sim_failure(spec.base.run, h.seed, cfg, std::move(r), at);
}

// The execution the child died in: its seed and decisions up to the crash.
SimFailure crash_failure(const SimCampaignSpec& spec, CrashJournal& journal, int status, double at,
                         const char* note = "") {
  const CrashJournal::Header& h = journal.header();
  SimConfig cfg = spec.config;
  cfg.seed = h.seed;
  cfg.forced.assign(journal.decisions(), journal.decisions() + h.n_decisions);
  SimResult r;
  r.verdict.kind = core::VerdictKind::Crash;
  r.verdict.message = process_end_text(status) + " after " + std::to_string(h.n_decisions) +
                      " scheduling decisions: the pool under test crashed (its last words are on stderr above)";
  if (h.overflowed) r.verdict.message += "; the journal overflowed, so the reproducer holds only the first decisions";
  r.verdict.message += note;
  r.steps = h.n_decisions;
  r.schedule = cfg.forced;
  return make_sim_failure(spec.base.run, h.seed, cfg, std::move(r), at);
}

// Waits for the child, passing a stop signal the parent got (from a `kill` of
// its pid alone) on to it, so the child stops after its seed as the parent
// would have. -1: waitpid failed (SIGCHLD ignored?).
int wait_for(pid_t pid) {
  int status = 0;
  bool forwarded = false;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return status;
    if (done < 0 && errno != EINTR) return -1;
    if (const int sig = core::StopSignals::requested(); sig != 0 && !forwarded) {
      kill(pid, sig);
      forwarded = true;
    }
    usleep(2000);
  }
}

}  // namespace

namespace {

// A failure of the tool itself (fork, waitpid, a child that threw).
SimFailure internal_failure(const SimCampaignSpec& spec, std::uint64_t seed, std::string message, double at) {
  SimResult r;
  r.verdict = {core::VerdictKind::Internal, std::move(message), ""};
  return make_sim_failure(spec.base.run, seed, spec.config, std::move(r), at);
}

// Folds one child's end into the report; false when the sweep is over.
bool account_child(const SimCampaignSpec& spec, CrashJournal& journal, int status, double at,
                   SimCampaignReport& report) {
  const CrashJournal::Header& h = journal.header();
  report.runs += h.runs;
  report.executions += h.executions;
  report.steps += h.steps;
  report.dfs_exhausted = report.dfs_exhausted && h.dfs_exhausted;
  report.budget_exhausted = h.budget_exhausted;
  report.stopped_by_signal = h.stopped_by_signal;
  if (status == -1) {
    report.failures.push_back(
        internal_failure(spec, h.seed, std::string("waitpid: ") + strerror(errno) + " (is SIGCHLD ignored?)", at));
    return false;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == kChildDone) return false;
  if (WIFEXITED(status) && WEXITSTATUS(status) == kChildThrew) {
    report.failures.push_back(internal_failure(
        spec, h.seed, "the campaign's child process threw (an allocation failure?) at seed " + std::to_string(h.seed),
        at));
    return false;
  }
  const int stop = core::StopSignals::requested();
  if (WIFSIGNALED(status) && stop != 0 && WTERMSIG(status) == stop) {  // our stop signal, not a crash
    report.stopped_by_signal = stop;
    return false;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == kChildFailed && h.failed) {
    // The replay runs the pool under test again in this process. A failure
    // whose replay crashes here (a use after free the child's heap turned
    // into a report and this heap into a SIGSEGV) ended a scoreboard worker,
    // so the replay is tried in a child first; one that crashes there is
    // recorded as that crash.
    const ChildAnswer probe = answer_in_child([&] {
      replay_child_failure(spec, journal, at);
      return std::string();
    });
    if (!probe.started || probe.clean) {
      report.failures.push_back(replay_child_failure(spec, journal, at));
    } else {
      report.failures.push_back(crash_failure(
          spec, journal, probe.status, at, " (the campaign's child stopped at another failure; replayed, it crashed)"));
    }
  } else {
    ++report.runs;  // the seed it died in was run, as far as its crash
    ++report.executions;
    report.steps += h.n_decisions;
    report.dfs_exhausted = false;  // the crashed seed's search was cut short
    report.failures.push_back(crash_failure(spec, journal, status, at));
  }
  return !spec.base.stop_on_failure && report.stopped_by_signal == 0;
}

}  // namespace

SimCampaignReport run_guarded_campaign(const SimCampaignSpec& spec, const core::ProgressFn& progress) {
  const auto& b = spec.base;
  SimCampaignReport report;
  report.spec = spec;
  report.seeds_planned = core::seeds_in_shard(b.seeds, b.shard);
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  // Flushes and spurious wake-ups are decisions that take no step: room for
  // four decisions a step (only the pages written are backed).
  CrashJournal journal(4 * spec.config.step_budget + 4096);
  if (!journal.ok()) {  // no shared memory: run unguarded rather than not at all
    SimCampaignSpec plain = spec;
    plain.crash_guard = false;
    return run_sim_campaign(plain, progress);
  }
  if (b.shard.index > b.seeds.to - b.seeds.from) return report;  // an empty shard
  std::uint64_t from = b.seeds.from + b.shard.index;
  for (;;) {
    const double left = b.max_seconds > 0 ? b.max_seconds - elapsed() : 0;
    if (b.max_seconds > 0 && left <= 0) {
      report.budget_exhausted = true;
      break;
    }
    journal.header() = CrashJournal::Header{};
    journal.header().seed = from;
    std::fflush(nullptr);  // a child must not write the parent's buffered output again
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
      report.failures.push_back(internal_failure(spec, from, std::string("fork: ") + strerror(errno), elapsed()));
      break;
    }
    if (pid == 0)
      child_main(spec, from, b.max_seconds > 0 ? left : 0, report.runs, elapsed(), progress, journal, parent);
    const int status = wait_for(pid);  // before elapsed(): argument order is unspecified
    const bool go_on = account_child(spec, journal, status, elapsed(), report);
    if (progress) progress(report.runs, report.seeds_planned, elapsed());     // the parent's bar ends the line
    if (!go_on || journal.header().seed > b.seeds.to - b.shard.count) break;  // no next seed in the shard
    from = journal.header().seed + b.shard.count;
  }
  report.elapsed_s = elapsed();
  return report;
}

}  // namespace wsstress::sim
