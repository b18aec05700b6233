// SPDX-License-Identifier: MIT OR Apache-2.0
// A lost wake-up, explained: for every mutant of the catalog that
// the simulator catches as a hang of sleeping or blocked workers, the first
// failing seed's explanation names the gate and the waker that missed and the
// rule of sleep/README.md the pair breaks, not only that some text exists.
// The seeds are searched deterministically (the same every run).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "wsstress/core/catalog.hpp"
#include "wsstress/core/scenario.hpp"
#include "wsstress/explain/explain.hpp"
#include "wsstress/sim/engine.hpp"

namespace {
using namespace wsstress;

struct ExplainCase {
  std::string mutant, scenario;
  std::size_t threads;
  std::vector<std::string> expected;  // each must be in the explanation
};

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// The first hang among the seeds of a random walk and of PCT, alternating.
sim::SimResult first_hang(const ExplainCase& c) {
  core::RunSpec s;
  s.scenario = c.scenario;
  s.mutant = c.mutant;
  s.threads = c.threads;
  s.pools = 2;
  s.iterations = 3;
  sim::SimConfig cfg;
  cfg.step_budget = 400000;
  sim::SimResult r{};
  for (std::uint64_t seed = 0; seed < 4000; ++seed) {
    cfg.seed = seed;
    cfg.strategy = seed % 2 == 0 ? sim::StrategyKind::Random : sim::StrategyKind::PCT;
    r = sim::find_sim_runner(c.mutant)(s, cfg);
    core::LiveState::get().reset();
    if (r.verdict.kind == core::VerdictKind::Hang && !r.verdict.explanation.empty()) return r;
  }
  return r;
}

class Explains : public ::testing::TestWithParam<ExplainCase> {};

TEST_P(Explains, TheGateTheWakerAndTheRule) {
  const ExplainCase& c = GetParam();
  const sim::SimResult r = first_hang(c);
  ASSERT_EQ(r.verdict.kind, core::VerdictKind::Hang) << r.verdict.message;
  const std::string why = joined(r.verdict.explanation);
  for (const std::string& e : c.expected) EXPECT_NE(why.find(e), std::string::npos) << "missing: " << e << "\n" << why;
}

INSTANTIATE_TEST_SUITE_P(
    HangMutants, Explains,
    ::testing::Values(
        ExplainCase{"late_is_blocked_lock",
                    "join",
                    2,
                    {"passed gate 4", "found is_blocked false: the sleeper had not blocked yet", "§2 gate 2"}},
        ExplainCase{"latch_set_no_wake",
                    "join",
                    2,
                    {"its swap read SLEEPING (made so at gate 3", "tried no wake-up", "sleep/README.md §3"}},
        ExplainCase{
            "terminate_no_wake", "terminate", 2, {"set the terminate latch", "tried no wake-up", "sleep/README.md §6"}},
        ExplainCase{"gate5_ignores_broadcasts",
                    "broadcast",
                    2,
                    {"broadcast queue) and", "gate 5 found no job", "sleep/README.md §6"}},
        ExplainCase{"no_gate5", "inject", 2, {"gate 5 found", "passed gate 5"}},
        ExplainCase{"no_gate5_narrow_jec", "inject", 2, {"gate 5 found", "passed gate 5"}},
        ExplainCase{"internal_push_no_jec",
                    "rendezvous",
                    2,
                    {"pushed a job and woke nobody", "gate 4 found the JEC it remembered", "sleep/README.md §5"}},
        ExplainCase{"spawn_no_terminate_count",
                    "terminate",
                    2,
                    {"has exited", "job(s) still queued in it", "sleep/README.md §6: spawn takes a terminate count"}},
        ExplainCase{"cross_is_cold", "cross", 1, {"is blocked outside sleep()", "sleep/README.md §8"}},
        ExplainCase{"self_install_blocks", "cross", 2, {"is blocked outside sleep()", "sleep/README.md §8"}}),
    [](const ::testing::TestParamInfo<ExplainCase>& info) { return info.param.mutant; });

// The clean pool's idle workers asleep beside a wait that never ends are not
// blamed on a waker: nothing recorded should have woken them.
TEST(Explains, IdleSleepersAreNotBlamedOnAWaker) {
  sim::SimConfig c;
  sim::SimResult r = sim::simulate(c, [] {
    using Pool = pool::BasicThreadPool<sim::SimPlatform, pool::NoMutants>;
    pool::BasicThreadPoolBuilder<sim::SimPlatform, pool::NoMutants> b;
    b.num_threads(2);
    auto* p = new Pool(std::move(b));
    EXPECT_EQ(p->install([] { return 7; }), 7);
    pool::LockLatch<sim::SimPlatform> never_set;
    never_set.wait();
    return core::Verdict{};
  });
  ASSERT_EQ(r.verdict.kind, core::VerdictKind::Hang) << r.verdict.message;
  const std::string why = joined(r.verdict.explanation);
  EXPECT_NE(why.find("nothing recorded after its announce should have woken it"), std::string::npos) << why;
  EXPECT_EQ(why.find("lost between"), std::string::npos) << why;
  EXPECT_EQ(why.find("lost at"), std::string::npos) << why;
}

// Hand-written records: one pool's event, with a made-up source location.
using pool::Event;
using pool::EventKind;
explain::RecordedEvent ev(std::uint64_t step, std::uint32_t fiber, EventKind k, std::uint32_t worker,
                          std::uint64_t a = 0, std::uint64_t b = 0) {
  static int registry_object;
  return explain::RecordedEvent{step, fiber, Event{k, &registry_object, worker, a, b}, pool::SrcLoc{"x.hpp", 1}};
}

// Every fiber named by its number and blocked for good.
explain::StallContext all_blocked() {
  explain::StallContext ctx;
  ctx.fiber_name = [](std::uint32_t id) { return "fiber" + std::to_string(id); };
  ctx.blocked = [](std::uint32_t) { return true; };
  ctx.where = [](std::uint32_t) { return std::string("blocked"); };
  return ctx;
}

// Worker w's way to sleep, hand-written: started at step `start`, idle on
// `latch`, announced (remembering JEC 6), past gates 1-4 by step start + 6,
// registered and past gate 5 at step `sleeping`.
std::vector<explain::RecordedEvent> asleep(std::uint32_t w, std::uint32_t fiber, std::uint64_t latch,
                                           std::uint64_t start, std::uint64_t sleeping) {
  return {
      ev(start, fiber, EventKind::ThreadStart, w, latch),     ev(start + 1, fiber, EventKind::ThreadIdle, w, latch),
      ev(start + 2, fiber, EventKind::ThreadSleepy, w, 6),    ev(start + 3, fiber, EventKind::ThreadSleepGate, w, 1),
      ev(start + 4, fiber, EventKind::ThreadSleepGate, w, 2), ev(start + 5, fiber, EventKind::ThreadSleepGate, w, 3),
      ev(start + 6, fiber, EventKind::ThreadSleepGate, w, 4), ev(sleeping, fiber, EventKind::ThreadSleeping, w, latch),
      ev(sleeping, fiber, EventKind::ThreadSleepGate, w, 5)};
}

// The explainer on a hand-written event record (checking the checker): a
// worker asleep since step 10; an injection at step 20 whose publisher read
// two sleepers and two idle-but-awake threads (sleepers counted as awake: the
// blind study's bug A) and woke nobody; the job never taken. The loss is the
// wake rule's (§7), not "nothing should have woken it".
TEST(Explains, AWakeRuleThatCountsSleepersAsIdleIsItsOwnLoss) {
  const std::uint32_t w = 1, fiber = 2;
  std::vector<explain::RecordedEvent> events = asleep(w, fiber, 0x500, 1, 10);
  events.push_back(ev(20, 0, EventKind::JobsInjected, Event::kNoWorker, 1));
  events.push_back(ev(21, 0, EventKind::JobThreadCounts, Event::kNoWorker, 2, 2));
  explain::StallContext ctx = all_blocked();
  const std::string why = joined(explain::explain_stall(events, ctx));
  EXPECT_NE(why.find("injected 1 job(s) from outside the pool; read 2 sleeping, 2 idle; woke nobody"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("lost at step 20"), std::string::npos) << why;
  EXPECT_NE(why.find("sleep/README.md §7"), std::string::npos) << why;
  // The same record with the job taken by someone: not this sleeper's loss.
  events.push_back(ev(30, 3, EventKind::JobUninjected, 0));
  const std::string taken = joined(explain::explain_stall(events, ctx));
  EXPECT_EQ(taken.find("§7"), std::string::npos) << taken;
  // A worker that only woke up (no ThreadTerminate) has not exited: a job
  // queued in its pool is no abandoned work.
  const std::vector<explain::RecordedEvent> awake = {ev(1, fiber, EventKind::ThreadStart, w, 0x500),
                                                     ev(2, 0, EventKind::JobsInjected, Event::kNoWorker, 1),
                                                     ev(3, fiber, EventKind::ThreadFoundWork, w)};
  ctx.blocked = [](std::uint32_t) { return false; };
  EXPECT_TRUE(explain::explain_stall(awake, ctx).empty()) << joined(explain::explain_stall(awake, ctx));
}

// A sleeper that blocked uncounted (a bug written blind: gate 4
// ignored a failed CAS on the counters): workers 0 and 1 asleep for good since
// steps 8 and 10, and an injection at step 20 whose publisher read one
// sleeping thread and two idle, so it counted one sleeper as idle but awake
// and woke nobody. The loss is gate 4's (a sleeper missing from the count),
// not the wake rule's (§7), which the explainer said before.
TEST(Explains, ASleeperMissingFromTheCountIsGate4s) {
  std::vector<explain::RecordedEvent> events = asleep(0, 1, 0x500, 1, 8);
  for (const auto& e : asleep(1, 2, 0x501, 3, 10)) events.push_back(e);
  std::stable_sort(events.begin(), events.end(), [](const auto& a, const auto& b) { return a.step < b.step; });
  events.push_back(ev(20, 0, EventKind::JobsInjected, Event::kNoWorker, 1));
  events.push_back(ev(21, 0, EventKind::JobThreadCounts, Event::kNoWorker, 2, 1));
  const explain::StallContext ctx = all_blocked();
  const std::string why = joined(explain::explain_stall(events, ctx));
  EXPECT_NE(why.find("lost at step 20: fiber0 injected 1 job(s) from outside the pool and read 1 sleeping, but 2 "
                     "workers were asleep for good by then (worker 0 since step 8, worker 1 since step 10)"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("rule broken: sleep/README.md §2 gate 4"), std::string::npos) << why;
  EXPECT_EQ(why.find("rule broken: sleep/README.md §7"), std::string::npos) << why;
  // Read two sleeping (both counted): the count is whole, so the idle-but-awake
  // reading is §7's again.
  events.back() = ev(21, 0, EventKind::JobThreadCounts, Event::kNoWorker, 3, 2);
  const std::string counted = joined(explain::explain_stall(events, ctx));
  EXPECT_EQ(counted.find("gate 4: a sleeper registers"), std::string::npos) << counted;
  EXPECT_NE(counted.find("sleep/README.md §7"), std::string::npos) << counted;
}

// Gate 5 found the injector empty after an injection whose job nobody took
// (hand-written records, as Relacy's weak-memory losses look). With no other
// announce in between, the loss is the fences' pairing (§4; the injection may
// even precede the sleeper's search, as a push it could not yet see); with
// another worker's announce between the injection and the registration, the
// JEC rolled back and gate 4 let it through (§4, gate 4 alone is not enough).
TEST(Explains, AnInjectionGate5MissedIsTheFencesOrTheRollover) {
  const std::uint32_t w = 1, fiber = 2;
  explain::StallContext ctx = all_blocked();
  const std::vector<explain::RecordedEvent> fences = {ev(5, 0, EventKind::JobsInjected, Event::kNoWorker, 1),
                                                      ev(6, 0, EventKind::JobThreadCounts, Event::kNoWorker, 1, 0),
                                                      ev(9, fiber, EventKind::ThreadStart, w, 0x500),
                                                      ev(10, fiber, EventKind::ThreadIdle, w, 0x500),
                                                      ev(11, fiber, EventKind::ThreadSleepy, w, 0),
                                                      ev(12, fiber, EventKind::ThreadSleepGate, w, 1),
                                                      ev(13, fiber, EventKind::ThreadSleepGate, w, 2),
                                                      ev(14, fiber, EventKind::ThreadSleepGate, w, 3),
                                                      ev(15, fiber, EventKind::ThreadSleepGate, w, 4),
                                                      ev(16, fiber, EventKind::ThreadSleeping, w, 0x500),
                                                      ev(17, fiber, EventKind::ThreadSleepGate, w, 5)};
  const std::string why = joined(explain::explain_stall(fences, ctx));
  EXPECT_NE(why.find("step 5  fiber0: injected 1 job(s) from outside the pool; read 0 sleeping, 1 idle"),
            std::string::npos)
      << why;
  EXPECT_NE(
      why.find("lost between step 5 (fiber0 injected a job) and step 17 (fiber2's gate 5 found the injector empty"),
      std::string::npos)
      << why;
  EXPECT_NE(why.find("sleep/README.md §4: gate 5 must look at the injector itself"), std::string::npos) << why;
  EXPECT_NE(why.find("the publisher's SeqCst fence"), std::string::npos) << why;
  const std::vector<explain::RecordedEvent> rollover = {ev(9, fiber, EventKind::ThreadStart, w, 0x500),
                                                        ev(10, fiber, EventKind::ThreadIdle, w, 0x500),
                                                        ev(11, fiber, EventKind::ThreadSleepy, w, 0),
                                                        ev(12, fiber, EventKind::ThreadSleepGate, w, 1),
                                                        ev(13, fiber, EventKind::ThreadSleepGate, w, 2),
                                                        ev(14, fiber, EventKind::ThreadSleepGate, w, 3),
                                                        ev(15, 0, EventKind::JobsInjected, Event::kNoWorker, 1),
                                                        ev(16, 0, EventKind::JobThreadCounts, Event::kNoWorker, 1, 0),
                                                        ev(17, 3, EventKind::ThreadSleepy, 0, 0),
                                                        ev(18, fiber, EventKind::ThreadSleepGate, w, 4),
                                                        ev(19, fiber, EventKind::ThreadSleeping, w, 0x500),
                                                        ev(20, fiber, EventKind::ThreadSleepGate, w, 5)};
  const std::string rolled = joined(explain::explain_stall(rollover, ctx));
  EXPECT_NE(rolled.find("lost between step 15 (fiber0 injected a job) and step 20"), std::string::npos) << rolled;
  EXPECT_NE(rolled.find("gate 4 alone is not enough: fiber3's announce at step 17 turned the JEC sleepy again"),
            std::string::npos)
      << rolled;
}

// A wake-up sent to the wrong worker (the blind study's held-out bugs 1 and
// 3, hand-written): a latch set whose swap read SLEEPING but whose
// notify_worker_latch_is_set woke worker 0 instead of the owner, worker 1;
// and an injection whose wake_any_threads tried worker 0, found it awake and
// stopped, counting the attempt as a wake-up. Each is its own loss (§3, §7),
// not "nothing should have woken it".
std::vector<explain::RecordedEvent> asleep_on(std::uint64_t latch) {
  const std::uint32_t w = 1, fiber = 2;
  return {ev(1, fiber, EventKind::ThreadStart, w, 0x500), ev(2, fiber, EventKind::ThreadIdle, w, latch),
          ev(3, fiber, EventKind::ThreadSleepy, w, 6),    ev(4, fiber, EventKind::ThreadSleepGate, w, 1),
          ev(5, fiber, EventKind::ThreadSleepGate, w, 2), ev(6, fiber, EventKind::ThreadSleepGate, w, 3),
          ev(7, fiber, EventKind::ThreadSleepGate, w, 4), ev(10, fiber, EventKind::ThreadSleeping, w, latch),
          ev(10, fiber, EventKind::ThreadSleepGate, w, 5)};
}

TEST(Explains, AWakeUpSentToTheWrongWorkerIsNamed) {
  const explain::StallContext ctx = all_blocked();
  std::vector<explain::RecordedEvent> latch = asleep_on(0x600);
  latch.push_back(ev(20, 3, EventKind::LatchSet, 1, 0x600, 1));
  latch.push_back(ev(21, 3, EventKind::ThreadNotifyMissed, 0));
  const std::string why = joined(explain::explain_stall(latch, ctx));
  EXPECT_NE(why.find("lost at step 20: fiber3 set the latch, its swap read SLEEPING, and it tried to wake worker 0 "
                     "(is_blocked false), not the latch's owner (worker 1)"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("sleep/README.md §3"), std::string::npos) << why;
  // The same set waking the owner is no loss of this kind.
  latch.back() = ev(21, 3, EventKind::ThreadNotifyMissed, 1);
  const std::string owner = joined(explain::explain_stall(latch, ctx));
  EXPECT_EQ(owner.find("not the latch's owner"), std::string::npos) << owner;

  std::vector<explain::RecordedEvent> inject = asleep_on(0x500);
  inject.push_back(ev(20, 0, EventKind::JobsInjected, Event::kNoWorker, 1));
  inject.push_back(ev(21, 0, EventKind::JobThreadCounts, Event::kNoWorker, 1, 1));
  inject.push_back(ev(22, 0, EventKind::ThreadNotifyMissed, 0));
  const std::string wake = joined(explain::explain_stall(inject, ctx));
  EXPECT_NE(
      wake.find("lost at step 20: fiber0 injected 1 job(s) from outside the pool, read 1 sleeping, tried worker 0 "
                "(is_blocked false) and stopped before fiber2 (worker 1)"),
      std::string::npos)
      << wake;
  EXPECT_NE(wake.find("sleep/README.md §7: wake_any_threads tries workers from index 0 up"), std::string::npos) << wake;
  // Had it gone on to worker 1 and woken it, the record is no such loss.
  inject.push_back(ev(23, 0, EventKind::ThreadNotify, 1));
  const std::string woke = joined(explain::explain_stall(inject, ctx));
  EXPECT_EQ(woke.find("stopped before"), std::string::npos) << woke;
}

// A set erased (the blind study's held-out bug C, hand-written): the worker
// idles on latch 0x600, a setter sets it while it sleeps and wakes it, the
// worker never sees the set (no ThreadSawLatchSet) and sleeps on the same
// latch again: the set was undone, which a CoreLatch never does (§3). With
// a ThreadSawLatchSet after the set (the latch's address reused by a new
// latch later), the same record is no such loss.
TEST(Explains, ASetThatWasUndoneIsNamed) {
  const std::uint32_t w = 1, fiber = 2;
  std::vector<explain::RecordedEvent> events = {
      ev(1, fiber, EventKind::ThreadStart, w, 0x500), ev(2, fiber, EventKind::ThreadIdle, w, 0x600),
      ev(5, 3, EventKind::LatchSet, w, 0x600, 1), ev(6, 3, EventKind::ThreadNotify, w),
      ev(7, fiber, EventKind::ThreadAwoken, w, 0x600)};
  for (const explain::RecordedEvent& e : asleep_on(0x600)) {
    if (e.event.kind != EventKind::ThreadStart && e.event.kind != EventKind::ThreadIdle) {
      explain::RecordedEvent later = e;
      later.step += 10;
      events.push_back(later);
    }
  }
  const explain::StallContext ctx = all_blocked();
  const std::string why = joined(explain::explain_stall(events, ctx));
  EXPECT_NE(why.find("lost between step 5 (fiber3 set the latch fiber2 was waiting on, since step 2) and step 13"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("sleep/README.md §3: SET is final"), std::string::npos) << why;
  events.insert(events.begin() + 5, ev(8, fiber, EventKind::ThreadSawLatchSet, w, 0x600));
  const std::string seen = joined(explain::explain_stall(events, ctx));
  EXPECT_EQ(seen.find("undone"), std::string::npos) << seen;
}

// A broadcast whose wake loop skipped a worker (a bug written blind
// A: inject_broadcast's loop stopped one short): worker 1 asleep since step 10,
// a broadcast at step 20 into both queues, whose loop tried worker 0 only.
// The loss is the broadcaster's (§6: wake every worker), not gate 5's; with
// worker 1 tried too, it is not this rule's.
TEST(Explains, ABroadcastThatWokeNotEveryWorkerIsNamed) {
  const std::uint32_t w = 1, fiber = 2;
  std::vector<explain::RecordedEvent> events = asleep(w, fiber, 0x500, 1, 10);
  events.push_back(ev(20, 0, EventKind::JobBroadcast, Event::kNoWorker, 2));
  events.push_back(ev(21, 0, EventKind::ThreadNotifyMissed, 0));
  const explain::StallContext ctx = all_blocked();
  const std::string why = joined(explain::explain_stall(events, ctx));
  EXPECT_NE(why.find("lost at step 20: fiber0 pushed a broadcast job into each of 2 broadcast queues and tried to "
                     "wake worker 0 (is_blocked false), not fiber2 (worker 1), whose queue still holds its job"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("rule broken: sleep/README.md §6: inject_broadcast bumps no JEC, so it wakes every worker"),
            std::string::npos)
      << why;
  events.push_back(ev(22, 0, EventKind::ThreadNotifyMissed, 1));
  const std::string tried = joined(explain::explain_stall(events, ctx));
  EXPECT_EQ(tried.find("not fiber2 (worker 1)"), std::string::npos) << tried;
}

// Work abandoned in broadcast queues (the blind study's held-out bug B,
// hand-written: spawn_broadcast taking one terminate count instead of one
// per worker): both workers of a pool exit while worker 1's broadcast job is
// still queued, and nobody sleeps; the verdict names the abandoned job (§6).
TEST(Explains, WorkLeftInABroadcastQueueIsAbandonedWork) {
  std::vector<explain::RecordedEvent> events = {ev(1, 1, EventKind::ThreadStart, 0, 0x500),
                                                ev(2, 2, EventKind::ThreadStart, 1, 0x510),
                                                ev(3, 0, EventKind::JobBroadcast, Event::kNoWorker, 2),
                                                ev(4, 1, EventKind::BroadcastJobTaken, 0),
                                                ev(5, 1, EventKind::ThreadTerminate, 0),
                                                ev(6, 2, EventKind::ThreadTerminate, 1)};
  explain::StallContext ctx = all_blocked();
  ctx.blocked = [](std::uint32_t) { return false; };
  const std::string why = joined(explain::explain_stall(events, ctx));
  EXPECT_NE(why.find("every worker of a pool has exited (the last at step 6) with 1 job(s) still queued in it"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("spawn_broadcast one for each worker's job"), std::string::npos) << why;
  events.insert(events.begin() + 4, ev(4, 2, EventKind::BroadcastJobTaken, 1));
  EXPECT_TRUE(explain::explain_stall(events, ctx).empty()) << joined(explain::explain_stall(events, ctx));
}

}  // namespace
