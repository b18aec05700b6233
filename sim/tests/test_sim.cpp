// SPDX-License-Identifier: MIT OR Apache-2.0
// The simulator: one seed is one interleaving (the same trace hash twice, for
// every scenario and both memory models), every strategy runs the clean pool,
// TSO store buffers really delay stores, DFS covers a small space exhaustively,
// an operation on a destroyed pool object is a use-after-free verdict (and
// rayon-core 1.10.1's ScopeLatch is caught that way on a fixed seed the clean
// pool passes), and reproducers round-trip and reject bad input.
#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <new>

#include "wsstress/core/catalog.hpp"
#include "wsstress/core/scenario.hpp"
#include "wsstress/sim/engine.hpp"

namespace {
using namespace wsstress;
using sim::MemoryModel;
using sim::SimConfig;
using sim::StrategyKind;

core::RunSpec small(const std::string& scenario) {
  core::RunSpec s;
  s.scenario = scenario;
  s.threads = 2;
  s.pools = 2;
  s.iterations = 3;
  return s;
}

// Every policy of the one mutant list (pool/mutants.hpp) has a simulator
// runner (the real-thread engine's: stress.Runner.*).
TEST(Runner, EveryCatalogMutantHasASimulatorRunner) {
  for (const core::MutantInfo& m : core::mutant_catalog()) EXPECT_NE(sim::find_sim_runner(m.name), nullptr) << m.name;
}

struct Case {
  std::string scenario;
  MemoryModel memory;
};

class Determinism : public ::testing::TestWithParam<Case> {};

TEST_P(Determinism, SameSeedSameTraceHashTwice) {
  sim::SimRunFn run = sim::find_sim_runner("none");
  for (std::uint64_t seed : {3u, 17u}) {
    SimConfig c;
    c.seed = seed;
    c.memory = GetParam().memory;
    sim::SimResult a = run(small(GetParam().scenario), c);
    sim::SimResult b = run(small(GetParam().scenario), c);
    ASSERT_EQ(a.verdict.kind, core::VerdictKind::Pass) << a.verdict.message;
    EXPECT_EQ(a.trace_hash, b.trace_hash);
    EXPECT_EQ(a.schedule, b.schedule);
    EXPECT_EQ(a.steps, b.steps);
    EXPECT_GT(a.steps, 100u);
    // A different seed is a different interleaving.
    c.seed = seed + 1000;
    EXPECT_NE(run(small(GetParam().scenario), c).trace_hash, a.trace_hash);
  }
}

std::vector<Case> all_cases() {
  std::vector<Case> v;
  for (const std::string& s : core::pool_scenario_names()) {
    v.push_back({s, MemoryModel::SC});
    v.push_back({s, MemoryModel::TSO});
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(EveryScenarioAndMemoryModel, Determinism, ::testing::ValuesIn(all_cases()),
                         [](const auto& info) {
                           return info.param.scenario + (info.param.memory == MemoryModel::SC ? "_sc" : "_tso");
                         });

TEST(Strategies, RandomAndPctPassTheCleanPool) {
  sim::SimRunFn run = sim::find_sim_runner("none");
  for (StrategyKind st : {StrategyKind::Random, StrategyKind::PCT}) {
    for (std::uint64_t seed = 0; seed < 30; ++seed) {
      SimConfig c;
      c.seed = seed;
      c.strategy = st;
      sim::SimResult r = run(small("mixed"), c);
      ASSERT_EQ(r.verdict.kind, core::VerdictKind::Pass)
          << sim::strategy_name(st) << " seed " << seed << ": " << r.verdict.message;
    }
  }
}

TEST(Strategies, PctAndRandomScheduleDifferently) {
  sim::SimRunFn run = sim::find_sim_runner("none");
  SimConfig c;
  c.seed = 5;
  const auto random_hash = run(small("join"), c).trace_hash;
  c.strategy = StrategyKind::PCT;
  EXPECT_NE(run(small("join"), c).trace_hash, random_hash);
}

TEST(Strategies, DfsIsExhaustiveOnATinyProgram) {
  core::RunSpec s = small("join");
  s.iterations = 1;
  s.pools = 1;
  SimConfig c;
  c.seed = 1;
  c.preemption_bound = 1;
  sim::DfsReport d = sim::dfs_explore(sim::find_sim_runner("none"), s, c, 100000, 120);
  EXPECT_TRUE(d.exhausted);
  EXPECT_FALSE(d.failure.has_value());
  EXPECT_GT(d.executions, 10u);
  // A smaller bound explores strictly less (bound 0: the one non-preemptive
  // schedule and its forced switches at blocking points).
  c.preemption_bound = 0;
  sim::DfsReport d0 = sim::dfs_explore(sim::find_sim_runner("none"), s, c, 100000, 120);
  EXPECT_TRUE(d0.exhausted);
  EXPECT_LT(d0.executions, d.executions);
}

TEST(Strategies, DfsFindsADeterministicDeadlock) {
  core::RunSpec s = small("cross");
  s.mutant = "cross_is_cold";
  s.threads = 1;
  SimConfig c;
  c.seed = 1;  // a program (seed) whose cross call calls back into the first pool
  sim::DfsReport d = sim::dfs_explore(sim::find_sim_runner("cross_is_cold"), s, c, 1000, 60);
  ASSERT_TRUE(d.failure.has_value());
  EXPECT_EQ(d.failure->verdict.kind, core::VerdictKind::Hang);
  EXPECT_NE(d.failure->verdict.message.find("lost wake-up"), std::string::npos);
}

// crossbeam's Steal::Retry reaches the registry's retry loops (injector,
// victims' deques, broadcast queues, JobFifo): the simulator interleaves
// thieves between their loads and their CAS, and each retry is an event.
TEST(Queues, StealRetryIsExercised) {
  sim::SimRunFn run = sim::find_sim_runner("none");
  std::size_t retries = 0;
  for (std::uint64_t seed = 0; seed < 40 && retries == 0; ++seed) {
    SimConfig c;
    c.seed = seed;
    c.record_trace = true;
    sim::SimResult r = run(small("inject"), c);
    ASSERT_EQ(r.verdict.kind, core::VerdictKind::Pass) << r.verdict.message;
    for (const sim::TracePoint& t : r.trace) {
      if (t.op == sim::Op::Event && t.detail == static_cast<std::uint64_t>(pool::EventKind::StealRetry)) ++retries;
    }
  }
  EXPECT_GT(retries, 0u) << "no steal lost a race in 40 seeds of the inject scenario";
}

TEST(Memory, TsoBuffersStoresAndFlushesThem) {
  sim::SimRunFn run = sim::find_sim_runner("none");
  SimConfig c;
  c.seed = 9;
  c.memory = MemoryModel::TSO;
  sim::SimResult r = run(small("inject"), c);
  ASSERT_EQ(r.verdict.kind, core::VerdictKind::Pass);
  std::size_t flushes = 0;
  for (std::uint32_t code : r.schedule) flushes += (code % 4) == 1;
  EXPECT_GT(flushes, 0u) << "no store was ever delayed in a buffer";
  c.memory = MemoryModel::SC;
  sim::SimResult sc = run(small("inject"), c);
  for (std::uint32_t code : sc.schedule) ASSERT_NE(code % 4, 1u) << "SC has no store buffers";
}

TEST(Detection, LostWakeUpIsReportedWithFiberStates) {
  // One worker per pool and a cold (blocking) cross-pool call: a callback
  // into the first pool finds its only worker blocked.
  core::RunSpec s = small("cross");
  s.mutant = "cross_is_cold";
  s.threads = 1;
  SimConfig c;
  sim::SimResult r{};
  for (std::uint64_t seed = 0; seed < 50 && r.verdict.kind == core::VerdictKind::Pass; ++seed) {
    c.seed = seed;
    r = sim::find_sim_runner(s.mutant)(s, c);
  }
  ASSERT_EQ(r.verdict.kind, core::VerdictKind::Hang);
  EXPECT_NE(r.verdict.message.find("lost wake-up"), std::string::npos);
  EXPECT_NE(r.verdict.dump.find("fibers:"), std::string::npos);
  EXPECT_NE(r.verdict.dump.find("blocked on a condvar"), std::string::npos);
  EXPECT_NE(r.verdict.dump.find("counters: JEC"), std::string::npos);
  EXPECT_NE(r.verdict.dump.find("last events:"), std::string::npos);
}

// A waiter whose job never comes (here: a latch nobody sets beside an idle
// pool, as when a job's panic is lost) is a hang, but not a missed wake-up:
// the pool reads "nothing to wake for" and the headline says what was awaited.
TEST(Detection, AWaitForSomethingThatNeverCameIsNotCalledALostWakeUp) {
  SimConfig c;
  sim::SimResult r = sim::simulate(c, [] {
    using Pool = pool::BasicThreadPool<sim::SimPlatform, pool::NoMutants>;
    pool::BasicThreadPoolBuilder<sim::SimPlatform, pool::NoMutants> b;
    b.num_threads(2);
    auto* p = new Pool(std::move(b));
    core::LiveState::get().track_pool("idle", &p->registry(), [p] { return core::dump_registry(p->registry()); });
    EXPECT_EQ(p->install([] { return 7; }), 7);
    pool::LockLatch<sim::SimPlatform> never_set;
    never_set.wait();
    return core::Verdict{};
  });
  core::LiveState::get().reset();
  ASSERT_EQ(r.verdict.kind, core::VerdictKind::Hang) << r.verdict.message;
  EXPECT_EQ(r.verdict.message.find("lost wake-up"), std::string::npos) << r.verdict.message;
  EXPECT_NE(r.verdict.message.find("nothing to wake for"), std::string::npos) << r.verdict.message;
  EXPECT_NE(r.verdict.dump.find("reading: nothing to wake for"), std::string::npos) << r.verdict.dump;
}

// The missed wake-up itself: a worker asleep on a latch that is set.
TEST(Detection, ASleeperWithItsLatchSetReadsAsAMissedWakeUp) {
  core::RunSpec s = small("join");
  s.mutant = "latch_set_no_wake";
  SimConfig c;
  c.strategy = StrategyKind::PCT;
  sim::SimResult r{};
  for (std::uint64_t seed = 0; seed < 500 && r.verdict.kind == core::VerdictKind::Pass; ++seed) {
    c.seed = seed;
    r = sim::find_sim_runner(s.mutant)(s, c);
  }
  ASSERT_EQ(r.verdict.kind, core::VerdictKind::Hang);
  EXPECT_NE(r.verdict.message.find("lost wake-up"), std::string::npos) << r.verdict.message;
  EXPECT_NE(r.verdict.dump.find("reading: a wake-up was missed: worker"), std::string::npos) << r.verdict.dump;
}

TEST(Detection, BlockedWorkersWhileMainPollsIsALostWakeUpNotALivelock) {
  // Without the wake in terminate(), sleeping workers never see the
  // termination latch while the scenario polls for their exit.
  core::RunSpec s = small("terminate");
  s.mutant = "terminate_no_wake";
  SimConfig c;
  c.step_budget = 200000;
  sim::SimResult r{};
  for (std::uint64_t seed = 0; seed < 50 && r.verdict.kind == core::VerdictKind::Pass; ++seed) {
    c.seed = seed;
    r = sim::find_sim_runner(s.mutant)(s, c);
  }
  ASSERT_EQ(r.verdict.kind, core::VerdictKind::Hang);
  EXPECT_NE(r.verdict.message.find("lost wake-up"), std::string::npos) << r.verdict.message;
  EXPECT_NE(r.verdict.message.find("poll in virtual time"), std::string::npos) << r.verdict.message;
}

// The budget is below any scenario's three iterations (the cheapest, about
// 460 points each), so the run cannot finish within it whatever mixed draws.
TEST(Detection, StepBudgetTurnsALivelockIntoAReport) {
  SimConfig c;
  c.step_budget = 300;
  sim::SimResult r = sim::find_sim_runner("none")(small("mixed"), c);
  EXPECT_EQ(r.verdict.kind, core::VerdictKind::Hang);
  EXPECT_NE(r.verdict.message.find("livelock"), std::string::npos);
}

// The liveness stamps, on objects in a buffer that outlives them (so the test
// itself reads no freed memory): each kind of operation on a destroyed object
// ends the run with a use-after-free verdict naming the operation.
template <class T, class Op>
sim::SimResult use_after_destroy(Op op) {
  return sim::simulate(SimConfig{}, [op] {
    alignas(T) unsigned char buf[sizeof(T)];
    T* obj = new (buf) T();
    obj->~T();
    // The compiler may treat a dead object's memory as undefined; make it
    // read what the destructor left, as it would through a stale pointer.
    asm volatile("" : : "r"(buf) : "memory");
    op(*obj);
    return core::Verdict{};
  });
}

void expect_use_after_free(const sim::SimResult& r, const char* op) {
  EXPECT_EQ(r.verdict.kind, core::VerdictKind::Bug);
  EXPECT_NE(r.verdict.message.find(std::string("use after free: ") + op + " on a destroyed pool object"),
            std::string::npos)
      << r.verdict.message;
  EXPECT_NE(r.verdict.message.find("test_sim.cpp"), std::string::npos) << "names the caller's line";
}

TEST(Detection, AnOperationOnADestroyedObjectIsAUseAfterFree) {
  expect_use_after_free(
      use_after_destroy<sim::SimAtomic<int>>([](auto& a) { (void)a.load(std::memory_order_relaxed); }), "load");
  expect_use_after_free(use_after_destroy<sim::SimAtomic<int>>([](auto& a) { a.store(1, std::memory_order_seq_cst); }),
                        "store");
  expect_use_after_free(
      use_after_destroy<sim::SimAtomic<int>>([](auto& a) { (void)a.fetch_add(1, std::memory_order_seq_cst); }), "rmw");
  expect_use_after_free(use_after_destroy<sim::SimMutex>([](auto& m) { m.lock(); }), "lock");
  expect_use_after_free(use_after_destroy<sim::SimCondVar>([](auto& cv) { cv.notify_one(); }), "notify");
}

// An object may also be freed while its user is at the operation's
// scheduling point, after the entry check: the notifier marks that it has
// passed the check, and the other fiber destroys the condition variable only
// after that, so only the check when the notifier gets the processor back can
// see it. DFS tries every interleaving; one of them frees it at that point.
TEST(Detection, AnObjectFreedAtItsSchedulingPointIsAUseAfterFree) {
  const sim::DfsReport report = sim::dfs_explore(
      [](const SimConfig& config) {
        return sim::simulate(config, [] {
          auto buf = std::make_shared<std::array<unsigned char, sizeof(sim::SimCondVar)>>();
          auto* cv = new (buf->data()) sim::SimCondVar();
          auto entered = std::make_shared<bool>(false);
          sim::detail::spawn("notifier", [buf, cv, entered] {
            *entered = true;  // no scheduling point between this and notify's entry check
            cv->notify_one();
          });
          sim::detail::spawn("destroyer", [buf, cv, entered] {
            while (!*entered) sim::SimPlatform::yield_now();
            cv->~SimCondVar();
            asm volatile("" : : "r"(buf->data()) : "memory");
          });
          return core::Verdict{};
        });
      },
      SimConfig{}, 10'000, 0);
  ASSERT_TRUE(report.failure.has_value())
      << "no interleaving freed the condvar at its point (" << report.executions << " executions)";
  expect_use_after_free(*report.failure, "notify");
}

// rayon-core 1.10.1's ScopeLatch::set (the mutant) notifies the scope owner's
// registry without holding it: on this PCT seed (found by a sweep, the first
// failing one of 0..400000 in SC since the engines run the release build) the owner's pool is freed while a worker of
// the other pool is inside that notify. The clean pool (1.12.0's keep-alive) passes
// the same seed.
core::RunSpec cross_scope_spec(const std::string& mutant) {
  core::RunSpec s = small("cross_scope");
  s.mutant = mutant;
  return s;
}

TEST(Detection, ScopeLatchWithoutKeepAliveIsAUseAfterFree) {
  SimConfig c;
  c.seed = 107290;
  c.strategy = StrategyKind::PCT;
  sim::SimResult r = sim::find_sim_runner("scope_latch_no_keepalive")(cross_scope_spec("scope_latch_no_keepalive"), c);
  ASSERT_EQ(r.verdict.kind, core::VerdictKind::Bug) << r.verdict.message;
  EXPECT_NE(r.verdict.message.find("use after free: lock on a destroyed pool object"), std::string::npos)
      << r.verdict.message;
  // The setter's last pool operation: the CoreLatch swap that let the owner go.
  EXPECT_NE(r.verdict.message.find("pool/latch.hpp"), std::string::npos) << r.verdict.message;
}

TEST(Detection, CleanPoolPassesTheScopeLatchSeed) {
  SimConfig c;
  c.seed = 107290;
  c.strategy = StrategyKind::PCT;
  sim::SimResult r = sim::find_sim_runner("none")(cross_scope_spec("none"), c);
  EXPECT_EQ(r.verdict.kind, core::VerdictKind::Pass) << r.verdict.message;
}

// read_repro's one-line refusal, or "" when it accepts the text.
std::string refusal(const std::string& text) {
  auto r = sim::read_repro(text);
  return r ? "" : r.error();
}

TEST(Repro, RoundTripsAndReplaysExactly) {
  core::RunSpec s = small("inject");
  SimConfig c;
  c.seed = 11;
  c.memory = MemoryModel::TSO;
  sim::SimResult r = sim::find_sim_runner("none")(s, c);
  sim::Repro repro{s, c, "pass", "", r.trace_hash, ""};
  repro.config.forced = r.schedule;
  auto back = sim::read_repro(sim::write_repro(repro));
  ASSERT_TRUE(back) << (back ? "" : back.error());
  EXPECT_EQ(back->config.forced, r.schedule);
  EXPECT_EQ(back->trace_hash, r.trace_hash);
  sim::SimResult again = sim::find_sim_runner("none")(back->spec, back->config);
  EXPECT_EQ(again.trace_hash, r.trace_hash);
  EXPECT_TRUE(again.divergence.empty());
}

TEST(Repro, BadFilesGetOneLineErrors) {
  std::string error;
  error = refusal("hello\n");
  EXPECT_FALSE(error.empty());
  EXPECT_NE(error.find("not a wsstress reproducer"), std::string::npos);
  error = refusal("wsstress-repro 7\nscenario join\n");
  EXPECT_FALSE(error.empty());
  EXPECT_NE(error.find("version '7'"), std::string::npos);
  const std::string good =
      "wsstress-repro 1\nscenario join\nmutant none\nthreads 2\npools 2\niterations 1\nseed 1\nstrategy random\n"
      "memory sc\npct-depth 3\npreemption-bound 2\nstep-budget 100000\nschedule 0 0 4\n";
  error = refusal(good);
  EXPECT_TRUE(error.empty()) << error;
  error = refusal(good.substr(0, good.find("schedule")));
  EXPECT_FALSE(error.empty());
  EXPECT_NE(error.find("missing 'schedule'"), std::string::npos);
  std::string bad = good;
  bad.replace(bad.find("join"), 4, "juggle");
  error = refusal(bad);
  EXPECT_FALSE(error.empty());
  EXPECT_NE(error.find("unknown scenario 'juggle'"), std::string::npos);
  bad = good;
  bad.replace(bad.find("mutant none"), 11, "mutant zap");
  error = refusal(bad);
  EXPECT_FALSE(error.empty());
  EXPECT_NE(error.find("unknown mutant 'zap'"), std::string::npos);
}

// A reproducer cut short, added to, edited, or with
// a malformed trace hash is refused with one line (never replayed as a prefix,
// never an uncaught exception); a file from before the count and checksum
// still reads.
TEST(Repro, TruncatedEditedOrMalformedFilesAreRefused) {
  sim::Repro repro{small("join"), SimConfig{}, "hang", "lost wake-up", 0x0123456789abcdefull, ""};
  repro.config.forced = {0, 4, 4, 0, 8, 4};
  const std::string good = sim::write_repro(repro);
  std::string error;
  error = refusal(good);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_NE(good.find("\ndecisions 6\n"), std::string::npos);
  // Cut inside the schedule, with and without its end line.
  const std::string cut = good.substr(0, good.find(" 8 4"));
  error = refusal(cut + "\n");
  EXPECT_FALSE(error.empty());
  EXPECT_NE(error.find("truncated"), std::string::npos) << error;
  // Text after the end line.
  error = refusal(good + "schedule 0\n");
  EXPECT_FALSE(error.empty());
  EXPECT_NE(error.find("after its end line"), std::string::npos) << error;
  // A decision changed: the checksum no longer matches.
  std::string edited = good;
  edited.replace(edited.find("schedule 0 4"), 12, "schedule 0 8");
  error = refusal(edited);
  EXPECT_FALSE(error.empty());
  EXPECT_NE(error.find("checksum"), std::string::npos) << error;
  // Malformed trace hashes, in a file without a checksum.
  const std::string old_format =
      "wsstress-repro 1\nscenario join\nmutant none\nthreads 2\npools 2\niterations 1\nseed 1\nstrategy random\n"
      "memory sc\npct-depth 3\npreemption-bound 2\nstep-budget 100000\nschedule 0 0 4\n";
  error = refusal(old_format);
  EXPECT_TRUE(error.empty()) << error;
  for (const char* hash : {"", "zz", "12345678901234567", "-1", "0x10"}) {
    error = refusal(old_format + "trace-hash " + hash + "\n");
    EXPECT_FALSE(error.empty()) << hash;
    EXPECT_NE(error.find("trace-hash"), std::string::npos) << error;
  }
  error = refusal(old_format + "trace-hash 00000000000000ff\n");
  EXPECT_TRUE(error.empty()) << error;
  // A field given twice is refused by name, not read as whichever came last.
  error = refusal(old_format + "seed 2\n");
  EXPECT_FALSE(error.empty());
  EXPECT_NE(error.find("the field 'seed' twice"), std::string::npos) << error;
}

// A failure message with line breaks (an exception's what()) stays on its
// line: written with spaces, so the file reads back and writes back the same
// (parser_fuzzer found a carriage return that broke the checksum).
TEST(Repro, ControlCharactersInTheMessageBecomeSpaces) {
  sim::Repro repro{small("join"), SimConfig{}, "bug", "first line\nsecond\rthird", 0x1ull, ""};
  repro.config.forced = {0, 4};
  const std::string text = sim::write_repro(repro);
  auto back = sim::read_repro(text);
  ASSERT_TRUE(back) << (back ? "" : back.error());
  EXPECT_EQ(back->message, "first line second third");
  EXPECT_EQ(sim::write_repro(*back), text);
}

// A reproducer with CRLF line ends (a Windows editor, git's autocrlf) reads
// as the LF file its checksum was taken over.
TEST(Repro, CrlfLineEndsReadAsLf) {
  sim::Repro repro{small("join"), SimConfig{}, "hang", "lost wake-up", 0x0123456789abcdefull, ""};
  repro.config.forced = {0, 4, 4, 0};
  const std::string good = sim::write_repro(repro);
  std::string crlf;
  for (char c : good) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  auto back = sim::read_repro(crlf);
  ASSERT_TRUE(back) << (back ? "" : back.error());
  EXPECT_EQ(back->config.forced, repro.config.forced);
  EXPECT_EQ(back->trace_hash, repro.trace_hash);
}

TEST(Repro, AScheduleThatDoesNotFitSaysWhere) {
  SimConfig c;
  c.forced = {0, 0, 400};  // fiber 100 does not exist
  sim::SimResult r = sim::find_sim_runner("none")(small("join"), c);
  EXPECT_FALSE(r.divergence.empty());
  EXPECT_NE(r.divergence.find("decision 2"), std::string::npos);
}

TEST(Shrink, KeepsTheFailureAndDoesNotGrow) {
  core::RunSpec s = small("cross");
  s.mutant = "cross_is_cold";
  SimConfig c;
  sim::SimResult r{};
  std::uint64_t seed = 0;
  for (; seed < 50 && r.verdict.kind == core::VerdictKind::Pass; ++seed) {
    c.seed = seed;
    r = sim::find_sim_runner(s.mutant)(s, c);
  }
  ASSERT_EQ(r.verdict.kind, core::VerdictKind::Hang);
  sim::Repro repro{s, c, "hang", r.verdict.message, r.trace_hash, ""};
  repro.config.forced = r.schedule;
  sim::ShrinkReport sh = sim::shrink(repro);
  EXPECT_LE(sh.after.spec.iterations, repro.spec.iterations);
  EXPECT_LE(sh.after.config.forced.size(), repro.config.forced.size());
  EXPECT_LE(sh.preemptions_after, sh.preemptions_before);
  sim::SimResult again = sim::find_sim_runner(s.mutant)(sh.after.spec, sh.after.config);
  EXPECT_EQ(again.verdict.kind, core::VerdictKind::Hang);
}

}  // namespace
