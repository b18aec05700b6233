// SPDX-License-Identifier: MIT OR Apache-2.0
// `wsstress smoke`: drives every entry path of the production pool once per
// round and checks each result against a sequential computation. A watchdog
// turns a hang into exit code 4 with the step that hung, so the command never
// blocks forever.
#include "commands.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "exit_codes.hpp"
#include "wsstress/core/shown.hpp"
#include "wsstress/pool.hpp"

namespace wsstress::cli {
namespace {

struct SmokeOptions {
  std::size_t threads = 0;
  int fib = 25;
  int rounds = 5;
  double hang_timeout_s = core::default_hang_timeout(core::kSmokeCommand);
};

std::uint64_t fib_seq(int n) { return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2); }

std::uint64_t fib_join(int n) {
  if (n < 2) return n;
  auto [a, b] = wsstress::join([&] { return fib_join(n - 1); }, [&] { return fib_join(n - 2); });
  return a + b;
}

int ping(ThreadPool& here, ThreadPool& there, int depth) {
  if (depth == 0) return 0;
  return 1 + there.install([&] { return ping(there, here, depth - 1); });
}

// Fires if the current step does not finish in time.
class Watchdog {
 public:
  explicit Watchdog(double seconds) : seconds_(seconds), thread_([this] { watch(); }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> g(m_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void step(const char* name) {
    std::lock_guard<std::mutex> g(m_);
    step_ = name;
    deadline_ = after(seconds_);
    cv_.notify_all();
  }

 private:
  // A decimal number of seconds from now (--hang-timeout 0.5 is half a second).
  static std::chrono::steady_clock::time_point after(double seconds) {
    return std::chrono::steady_clock::now() +
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
  }
  void watch() {
    std::unique_lock<std::mutex> lock(m_);
    while (!stop_) {
      if (std::chrono::steady_clock::now() >= deadline_) {
        std::fprintf(stderr, "wsstress: smoke: hang: step '%s' made no progress for %g s\n", step_, seconds_);
        std::fflush(stderr);
        std::_Exit(kHang);
      }
      cv_.wait_until(lock, deadline_);
    }
  }

  double seconds_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  const char* step_ = "start";
  std::chrono::steady_clock::time_point deadline_ = after(seconds_);
  std::thread thread_;
};

// RAYON_NUM_THREADS, read when -j is 0: a number above
// -j's cap (kMaxThreads) is a usage error, as `-j 100000` is, rather than
// 100 000 threads a watchdog would call a hang; a value that is not a number
// gets a warning (the pool falls back as rayon-core does). False: refused.
bool check_environment(const SmokeOptions& o) {
  const char* v = std::getenv("RAYON_NUM_THREADS");
  if (v == nullptr || o.threads != 0) return true;
  const std::optional<std::size_t> n = pool::parse_thread_count(v);
  if (!n) {
    std::fprintf(stderr,
                 "wsstress: warning: RAYON_NUM_THREADS=%s is not a number; pools fall back to "
                 "RAYON_RS_NUM_CPUS or the CPU count, as rayon-core does\n",
                 shown(v).c_str());
    return true;
  }
  if (*n > kMaxThreads) {
    usage_error("RAYON_NUM_THREADS=" + shown(v) + " is more than " + std::to_string(kMaxThreads) +
                " threads, the most -j allows");
    return false;
  }
  return true;
}

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// One smoke run: each step a method, each check counted and named on stderr.
struct Smoke {
  const SmokeOptions& o;
  Watchdog& watchdog;
  int failures = 0;

  void check(bool ok, const char* what) {
    if (ok) return;
    ++failures;
    std::fprintf(stderr, "wsstress: smoke: FAILED: %s\n", what);
  }

  void join(ThreadPool& a) {
    const std::uint64_t expected = fib_seq(o.fib);
    const auto t0 = Clock::now();
    watchdog.step("join: fib");
    for (int r = 0; r < o.rounds; ++r) check(a.install([&] { return fib_join(o.fib); }) == expected, "fib via join");
    std::printf("smoke: join      fib(%d) = %llu x%d in %.1f ms\n", o.fib, static_cast<unsigned long long>(expected),
                o.rounds, ms_since(t0));
  }

  void install(ThreadPool& a) {
    const auto t0 = Clock::now();
    watchdog.step("install from outside threads");
    std::atomic<long> sum{0};
    {
      std::vector<std::thread> callers;
      for (int c = 0; c < 4; ++c) {
        callers.emplace_back([&, c] {
          for (int r = 0; r < o.rounds * 25; ++r) sum.fetch_add(a.install([c] { return long{c}; }));
        });
      }
      for (auto& t : callers) t.join();
    }
    check(sum.load() == 6L * o.rounds * 25, "installs from outside threads");
    std::printf("smoke: install   %d calls from 4 outside threads in %.1f ms\n", 4 * o.rounds * 25, ms_since(t0));
  }

  void cross(ThreadPool& a, ThreadPool& b) {
    const auto t0 = Clock::now();
    watchdog.step("cross-pool install chain");
    for (int r = 0; r < o.rounds; ++r) check(a.install([&] { return ping(a, b, 8); }) == 8, "A->B->A chain");
    std::printf("smoke: cross     A->B->A chains of depth 8 x%d in %.1f ms\n", o.rounds, ms_since(t0));
  }

  void broadcast(ThreadPool& a) {
    const auto t0 = Clock::now();
    watchdog.step("broadcast");
    for (int r = 0; r < o.rounds; ++r) {
      auto idx = a.broadcast([](BroadcastContext ctx) { return ctx.index(); });
      bool ok = idx.size() == a.current_num_threads();
      for (std::size_t i = 0; i < idx.size(); ++i) ok = ok && idx[i] == i;
      check(ok, "broadcast reached every worker once");
    }
    std::printf("smoke: broadcast x%d in %.1f ms\n", o.rounds, ms_since(t0));
  }

  // Spawned jobs all run before a dropped pool's workers exit.
  void spawn_and_drop() {
    const auto t0 = Clock::now();
    watchdog.step("spawn and drop");
    auto ran = std::make_shared<std::atomic<int>>(0);
    auto exited = std::make_shared<std::atomic<std::size_t>>(0);
    std::size_t n_threads = 0;
    {
      ThreadPool c(
          ThreadPoolBuilder().num_threads(o.threads).exit_handler([exited](std::size_t) { exited->fetch_add(1); }));
      n_threads = c.current_num_threads();
      for (int i = 0; i < 100 * o.rounds; ++i) c.spawn([ran] { ran->fetch_add(1); });
    }
    while (exited->load() < n_threads) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    check(ran->load() == 100 * o.rounds, "every spawned job ran before the pool stopped");
    std::printf("smoke: spawn     %d jobs, pool dropped, %zu workers exited in %.1f ms\n", 100 * o.rounds, n_threads,
                ms_since(t0));
  }
};

int run_smoke(const SmokeOptions& o) {
  if (!check_environment(o)) return kUsage;
  Watchdog watchdog(o.hang_timeout_s);
  Smoke smoke{o, watchdog};
  try {
    watchdog.step("build pools");
    ThreadPool a(ThreadPoolBuilder().num_threads(o.threads));
    ThreadPool b(ThreadPoolBuilder().num_threads(o.threads));
    std::printf("smoke: pools of %zu threads\n", a.current_num_threads());
    smoke.join(a);
    smoke.install(a);
    smoke.cross(a, b);
    smoke.broadcast(a);
    smoke.spawn_and_drop();
  } catch (const ThreadPoolBuildError& e) {
    // Name the count: a thread limit (ulimit -u, a container's pids.max) is the usual cause.
    const std::size_t wanted =
        std::min(ThreadPoolBuilder().num_threads(o.threads).get_num_threads(), pool::max_num_threads());
    std::fprintf(stderr, "wsstress: smoke: cannot build a pool of %zu threads: %s%s\n", wanted, e.what(),
                 e.code() == std::errc::resource_unavailable_try_again
                     ? " (a limit on threads: see ulimit -u, /proc/sys/kernel/threads-max, a container's pids.max)"
                     : "");
    return kInternal;
  }
  if (smoke.failures > 0) {
    std::printf("smoke: %d check(s) FAILED\n", smoke.failures);
    return kFailed;
  }
  std::printf("smoke: ok\n");
  return kOk;
}

}  // namespace

Subcommand add_smoke(CLI::App& parent) {
  auto o = std::make_shared<SmokeOptions>();
  CLI::App* cmd = parent.add_subcommand("smoke", "quick end-to-end run of the pool: join, install, cross-pool, "
                                                 "broadcast, spawn, termination");
  add_threads(cmd, o->threads, 0, "worker threads per pool (0: RAYON_NUM_THREADS or the CPU count)");
  cmd->add_option("--fib", o->fib, "compute fib(N) with join")->check(whole_range(1, 40));
  cmd->add_option("--rounds", o->rounds, "repeat each step this many times")->check(whole_range(1, 100000));
  add_table_option(cmd, "--hang-timeout", core::kSmokeCommand, o->hang_timeout_s);
  cmd->footer("Examples:\n  wsstress smoke\n  wsstress smoke -j 8 --fib 30 --rounds 100");
  return {cmd, [o] { return run_smoke(*o); }};
}

}  // namespace wsstress::cli
