// SPDX-License-Identifier: MIT OR Apache-2.0
// run_campaign: seeds one after the other on real threads, a watchdog thread
// that turns "no progress for timeout seconds" into a hang verdict with a state
// dump, an invariant handler that does the same for broken pool invariants,
// and crash handlers that print the replay command and, for `run`, end the
// campaign with a crash verdict.
#include "wsstress/threads/campaign.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "wsstress/core/run_flags.hpp"
#include "wsstress/threads/noise.hpp"
#include "wsstress/threads/runner.hpp"

#include "wsstress/pool/platform/sanitizers.hpp"

#if WSSTRESS_ASAN || defined(WSSTRESS_TSAN)
#define WSSTRESS_SANITIZED 1
#else
#define WSSTRESS_SANITIZED 0
#endif

namespace wsstress::threads {

VerdictKind CampaignReport::overall() const {
  VerdictKind worst = VerdictKind::Pass;
  for (const SeedFailure& f : failures) worst = worse(worst, f.verdict.kind);
  return worst;
}

std::string replay_command(const std::string& program, const RunSpec& s, std::uint64_t seed) {
  std::string cmd = program + " run";
  for (const std::string& a : run_arguments(s, kRunCommand, seed)) cmd += " " + a;
  return cmd;
}

// Named rather than anonymous: ResidentCampaign::State holds a Machinery.
namespace campaign_detail {

using Clock = std::chrono::steady_clock;

// The campaign in progress (one per process), for the watchdog, the invariant
// handler and the crash handlers.
struct Active {
  std::mutex m;
  CampaignReport report;
  const CampaignHooks* hooks = nullptr;
  std::uint64_t seed = 0;
  Clock::time_point start;
  std::atomic<bool> fatal_taken{false};
  bool in_flight = false;  // a seed is running (the watchdog counts only then)
};
Active* g_active = nullptr;
// The crash handlers' message, prepared before each seed (they may only write).
char g_crash_line[1024];

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

[[noreturn]] void finish_fatal(Verdict v) {
  Active& a = *g_active;
  if (a.fatal_taken.exchange(true)) {
    // Another thread is already reporting; wait for it to end the process.
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  CampaignReport snapshot;
  {
    std::lock_guard<std::mutex> g(a.m);
    SeedFailure f{a.seed, std::move(v), replay_command(a.report.spec.program, a.report.spec.run, a.seed),
                  seconds_since(a.start)};
    a.report.failures.push_back(std::move(f));
    ++a.report.runs;  // the seed in progress ran, and failed (a failing seed 0 is 1 seed run)
    a.report.elapsed_s = seconds_since(a.start);
    snapshot = a.report;
  }
  a.hooks->fatal(snapshot);
  std::_Exit(70);  // fatal() must not return; if it does, still end
}

void on_invariant(const char* what, SrcLoc loc) {
  char line[512];
  std::snprintf(line, sizeof line, "pool invariant violated at %s:%u: %s", loc.file, loc.line, what);
  finish_fatal(Verdict{VerdictKind::Bug, line, dump_live_state()});
}

// The handlers in place before the campaign's (a fuzzing engine's, which
// saves the crashing input), restored when the campaign ends and chained to.
struct sigaction g_previous[3];
const int kCrashSignals[3] = {SIGABRT, SIGSEGV, SIGBUS};

void restore_crash_handlers() {
  for (int i = 0; i < 3; ++i) sigaction(kCrashSignals[i], &g_previous[i], nullptr);
}

// Set on the thread that renders a crash's report: a crash of its own while
// rendering (which allocates, as a signal handler should not) goes on to the
// handlers from before, the default; another thread's crash meanwhile waits
// in finish_fatal for the report to end the process.
thread_local bool t_reporting_crash = false;

// A crash reported as a finding: the report is rendered from the crashing
// thread, as a hang's is from the watchdog. An alarm ends a rendering that
// deadlocks (a crash inside malloc); the replay line is on stderr already.
[[noreturn]] void report_crash(int sig) {
  t_reporting_crash = true;
  alarm(10);
  const char* abbrev = sigabbrev_np(sig);
  char msg[200];
  std::snprintf(msg, sizeof msg,
                "killed by SIG%s (signal %d): the pool under test crashed (its last words are on stderr above)",
                abbrev != nullptr ? abbrev : "?", sig);
  finish_fatal(Verdict{VerdictKind::Crash, msg, ""});
}

std::atomic<bool> g_crash_line_written{false};

void on_crash(int sig) {
  if (!g_crash_line_written.exchange(true)) {
    const ssize_t n = write(2, g_crash_line, std::strlen(g_crash_line));
    (void)n;
  }
  if (g_active != nullptr && g_active->hooks->crash_is_fatal && !t_reporting_crash) report_crash(sig);
  for (int i = 0; i < 3; ++i) {
    if (kCrashSignals[i] == sig) sigaction(sig, &g_previous[i], nullptr);
  }
  raise(sig);  // delivered to the previous handler (or the default) once this one returns
}

void install_crash_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_crash;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 3; ++i) {
#if WSSTRESS_SANITIZED
    // Under a sanitizer its own SEGV report is better; it ends with an abort,
    // which still reaches on_crash.
    if (kCrashSignals[i] != SIGABRT) {
      sigaction(kCrashSignals[i], nullptr, &g_previous[i]);
      continue;
    }
#endif
    sigaction(kCrashSignals[i], &sa, &g_previous[i]);
  }
}

// The machinery of a campaign, up from construction to destruction: the
// campaign in g_active, the invariant and crash handlers, and the watchdog
// thread. A sweep builds one for its seeds; a ResidentCampaign keeps one up
// across a fuzz engine's inputs.
class Machinery {
 public:
  Machinery(const CampaignSpec& spec, const CampaignHooks& hooks) {
    if (g_active != nullptr) throw std::logic_error("a campaign is already running in this process");
    active_.report.spec = spec;
    active_.hooks = &hooks;
    active_.start = Clock::now();
    g_active = &active_;
    set_invariant_handler(&on_invariant);
    install_crash_handlers();
    watchdog_ = std::thread([this] { watch(); });
  }
  ~Machinery() {
    {
      std::lock_guard<std::mutex> g(wd_m_);
      wd_stop_ = true;
    }
    wd_cv_.notify_all();
    watchdog_.join();
    set_invariant_handler(nullptr);
    restore_crash_handlers();
    g_active = nullptr;
  }
  Machinery(const Machinery&) = delete;
  Machinery& operator=(const Machinery&) = delete;

  Active& active() { return active_; }

  // Runs one seed spec.repeat times (until one fails) and records it in the
  // report; returns whether it failed.
  bool run_seed(RunFn run, std::uint64_t seed) {
    const CampaignSpec& spec = active_.report.spec;
    {
      std::lock_guard<std::mutex> g(active_.m);
      active_.seed = seed;
      active_.in_flight = true;
    }
    if (active_.hooks->seed_started) active_.hooks->seed_started(seed);
    std::snprintf(g_crash_line, sizeof g_crash_line, "\nwsstress: crashed while running seed %llu; replay: %s\n",
                  static_cast<unsigned long long>(seed), replay_command(spec.program, spec.run, seed).c_str());
    Verdict v;
    for (std::uint64_t rep = 0; rep < spec.repeat && v.kind == VerdictKind::Pass; ++rep) {
      Progress::tick();  // a new run is progress
      v = run(spec.run, seed);
      LiveState::get().reset();
      reset_parallelism_counts();  // no pool is alive between two runs
    }
    std::lock_guard<std::mutex> g(active_.m);
    active_.in_flight = false;
    ++active_.report.runs;
    if (v.kind == VerdictKind::Pass) return false;
    active_.report.failures.push_back(
        {seed, std::move(v), replay_command(spec.program, spec.run, seed), seconds_since(active_.start)});
    return true;
  }

 private:
  // No progress for the run's timeout while a seed runs is a hang.
  void watch() {
    std::uint64_t last = Progress::read();
    Clock::time_point last_change = Clock::now();
    std::unique_lock<std::mutex> lock(wd_m_);
    while (!wd_stop_) {
      wd_cv_.wait_for(lock, std::chrono::milliseconds(50));
      const std::uint64_t now = Progress::read();
      double timeout_s = 0;
      bool in_flight = false;
      {
        std::lock_guard<std::mutex> g(active_.m);
        timeout_s = active_.report.spec.run.hang_timeout_s;
        in_flight = active_.in_flight;
      }
      if (now != last || !in_flight) {
        last = now;
        last_change = Clock::now();
      } else if (seconds_since(last_change) >= timeout_s) {
        lock.unlock();
        char msg[128];
        std::snprintf(msg, sizeof msg, "no progress for %g s: every thread is blocked or spinning", timeout_s);
        finish_fatal(Verdict{VerdictKind::Hang, msg, dump_live_state()});
      }
    }
  }

  Active active_;
  std::mutex wd_m_;
  std::condition_variable wd_cv_;
  bool wd_stop_ = false;
  std::thread watchdog_;
};

CampaignReport sweep_seeds(const CampaignSpec& spec, const CampaignHooks& hooks) {
  Machinery machinery(spec, hooks);
  Active& active = machinery.active();
  {
    std::lock_guard<std::mutex> g(active.m);
    active.report.seeds_planned = seeds_in_shard(spec.seeds, spec.shard);
  }
  const RunFn run = find_runner(spec.run.mutant);
  const SweepPlan plan{spec.seeds, spec.shard, spec.max_seconds, spec.stop_on_failure};
  reset_parallelism_counts();
  ParallelismSampler sampler;
  const SweepOutcome swept = sweep(
      plan, [&](std::uint64_t seed) { return machinery.run_seed(run, seed); }, hooks.progress);
  const ParallelismFigure parallelism = sampler.finish();
  std::lock_guard<std::mutex> g(active.m);
  active.report.budget_exhausted = swept.budget_exhausted;
  active.report.stopped_by_signal = swept.stopped_by_signal;
  active.report.elapsed_s = seconds_since(active.start);
  active.report.parallelism = parallelism;
  return active.report;
}

}  // namespace campaign_detail

using campaign_detail::Active;
using campaign_detail::Clock;
using campaign_detail::Machinery;

struct ResidentCampaign::State {
  CampaignHooks hooks;
  Machinery machinery;
  State(const CampaignSpec& spec, CampaignHooks h) : hooks(std::move(h)), machinery(spec, hooks) {}
};

ResidentCampaign::ResidentCampaign(std::string program, CampaignHooks hooks) {
  CampaignSpec spec;
  spec.program = std::move(program);
  spec.seeds = {0, 0};
  s_ = std::make_unique<State>(spec, std::move(hooks));
}

ResidentCampaign::~ResidentCampaign() = default;

CampaignReport ResidentCampaign::run(const RunSpec& spec, std::uint64_t seed) {
  const RunFn fn = find_runner(spec.mutant);
  if (fn == nullptr) throw std::invalid_argument("unknown mutant '" + spec.mutant + "'");
  Active& a = s_->machinery.active();
  {
    std::lock_guard<std::mutex> g(a.m);
    a.report.spec.run = spec;
    a.report.spec.seeds = {seed, seed};
    a.report.seeds_planned = 1;
    a.report.runs = 0;
    a.report.failures.clear();
    a.start = Clock::now();
  }
  s_->machinery.run_seed(fn, seed);
  std::lock_guard<std::mutex> g(a.m);
  a.report.elapsed_s = campaign_detail::seconds_since(a.start);
  return a.report;
}

CampaignReport run_campaign(const CampaignSpec& spec, const CampaignHooks& hooks) {
  CampaignReport report = campaign_detail::sweep_seeds(spec, hooks);
  const bool compare =
      spec.control && spec.run.mutant != "none" && report.failures.empty() && report.stopped_by_signal == 0;
  if (!compare) return report;
  // The control: the clean pool, the same seeds and shape, the same budget.
  CampaignSpec clean = spec;
  clean.run.mutant = "none";
  clean.control = false;
  const CampaignReport control = campaign_detail::sweep_seeds(clean, hooks);
  report.control = control.parallelism;
  report.parallelism_above_control = rate_above(report.parallelism, control.parallelism, 0.01, &report.parallelism_p);
  report.elapsed_s += control.elapsed_s;
  report.stopped_by_signal = control.stopped_by_signal;
  if (!control.failures.empty()) {
    // The clean pool failed: a finding about the pool itself, not to be lost.
    SeedFailure f = control.failures.front();
    f.verdict.message = "the control run (clean pool) failed: " + f.verdict.message;
    report.failures.push_back(std::move(f));
  }
  return report;
}

}  // namespace wsstress::threads
