// SPDX-License-Identifier: MIT OR Apache-2.0
// The fuzz targets' pieces, in-process: programs decode from any bytes to a
// bounded program; the sequential interpreter's outcomes, run counts and
// panic-handler counts; the program scenario agrees with it on the clean pool
// in the simulator and fails on a cross-pool mutant; schedule inputs decode
// as documented, steer the simulator byte by byte, and convert to reproducers
// that replay exactly; reads_from_fuzzer's inputs (RFF's abstract schedules)
// round-trip through their bytes and its mutation, and the in-process loop's
// finding is such an input.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "wsstress/core/program.hpp"
#include "wsstress/pool/platform/splitmix64.hpp"
#include "wsstress/sim/fuzz_input.hpp"
#include "wsstress/sim/observer.hpp"

namespace {
using namespace wsstress;
using core::ByteSource;
using core::Program;
using K = Program::Kind;

Program decode(const std::vector<std::uint8_t>& b) {
  ByteSource src(b.data(), b.size());
  return Program::decode(src);
}

TEST(ProgramDecode, AnyBytesGiveABoundedProgramRootedInAnInstall) {
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::vector<std::uint8_t> b(rng() % 300);
    for (auto& x : b) x = static_cast<std::uint8_t>(rng());
    const Program p = decode(b);
    ASSERT_GE(p.pool_threads.size(), 1u);
    ASSERT_LE(p.pool_threads.size(), Program::kMaxPools);
    ASSERT_LE(p.nodes.size(), Program::kMaxNodes);
    ASSERT_EQ(p.nodes[0].kind, K::Install);
    for (const auto& n : p.nodes) {
      for (auto k : n.kids) {
        ASSERT_LT(k, p.nodes.size());
      }
      if (n.kind == K::Install) {
        ASSERT_LT(n.value, p.pool_threads.size());
      }
    }
    // Decoding is a function of the bytes.
    ASSERT_EQ(decode(b).render(), p.render());
  }
  // Nothing at all: one pool, one worker, one caller, install(leaf 0).
  const Program empty = decode({});
  EXPECT_EQ(empty.nodes.size(), 2u);
  EXPECT_EQ(empty.nodes[1].kind, K::Leaf);
}

// Builds a program by hand: pools, then nodes (root first).
Program make(std::vector<std::uint8_t> pools, std::vector<Program::Node> nodes, std::uint8_t callers = 1) {
  Program p;
  p.pool_threads = std::move(pools);
  p.callers = callers;
  p.nodes = std::move(nodes);
  return p;
}

TEST(ProgramOracle, JoinSumsAndTheFirstHalfsExceptionWins) {
  // install p0 (join(leaf 3, leaf 4))
  Program p = make({2}, {{K::Install, 0, 0, {1}}, {K::Join, 0, 0, {2, 3}}, {K::Leaf, 3, 0, {}}, {K::Leaf, 4, 0, {}}});
  auto e = p.expected();
  EXPECT_FALSE(e.outcome.throws);
  EXPECT_EQ(e.outcome.value, 7u);
  EXPECT_EQ(e.runs[2], 1u);
  // Both halves throw: A's wins, and B still runs.
  p.nodes[2].kind = K::Throw;
  p.nodes[3].kind = K::Throw;
  e = p.expected();
  EXPECT_TRUE(e.outcome.throws);
  EXPECT_EQ(e.outcome.ids, (std::set<std::uint32_t>{2}));
  EXPECT_EQ(e.runs[3], 1u);
}

TEST(ProgramOracle, ScopeMayRethrowAnyOfItsJobsExceptions) {
  Program p = make({2}, {{K::Install, 0, 0, {1}},
                         {K::Scope, 0, 0, {2, 3, 4}},
                         {K::Throw, 0, 0, {}},
                         {K::Leaf, 5, 0, {}},
                         {K::Throw, 0, 0, {}}});
  const auto e = p.expected();
  EXPECT_TRUE(e.outcome.throws);
  EXPECT_EQ(e.outcome.ids, (std::set<std::uint32_t>{2, 4}));
  EXPECT_EQ(e.runs[3], 1u);
}

TEST(ProgramOracle, BroadcastRunsOncePerWorkerOfTheCurrentPool) {
  // Two callers; install p1 (3 workers) -> broadcast(leaf 2): 3 runs a caller.
  Program p = make({1, 3}, {{K::Install, 1, 0, {1}}, {K::Broadcast, 0, 0, {2}}, {K::Leaf, 2, 0, {}}}, 2);
  const auto e = p.expected();
  EXPECT_EQ(e.outcome.value, 6u);
  EXPECT_EQ(e.runs[2], 6u);
}

TEST(ProgramOracle, DetachedSpawnsSendTheirExceptionsToThePanicHandler) {
  Program p = make({2}, {{K::Install, 0, 0, {1}}, {K::Spawn, 0, 0, {2}}, {K::Throw, 0, 0, {}}});
  const auto e = p.expected();
  EXPECT_FALSE(e.outcome.throws);
  EXPECT_EQ(e.spawns, 1u);
  EXPECT_EQ(e.handled, 1u);
  EXPECT_EQ(e.handled_ids, (std::set<std::uint32_t>{2}));
}

TEST(ProgramOracle, SpawnBroadcastIsADetachedSpawnOnEachWorker) {
  // Two callers; install p1 (3 workers) -> spawn_broadcast(throw): 3 copies a
  // caller, each exception to the panic handler; the caller sees none.
  Program p = make({1, 3}, {{K::Install, 1, 0, {1}}, {K::SpawnBroadcast, 0, 0, {2}}, {K::Throw, 0, 0, {}}}, 2);
  const auto e = p.expected();
  EXPECT_FALSE(e.outcome.throws);
  EXPECT_EQ(e.outcome.value, 0u);
  EXPECT_EQ(e.runs[2], 6u);
  EXPECT_EQ(e.spawns, 6u);
  EXPECT_EQ(e.handled, 6u);
  EXPECT_EQ(e.handled_ids, (std::set<std::uint32_t>{2}));
}

// The later kinds take kind bytes from 240 up; below, a byte means what it
// meant when there were eight kinds (stored corpus files decode the same).
TEST(ProgramDecode, LaterKindsLeaveTheEarlierBytesAlone) {
  for (unsigned b = 0; b < 240; ++b) EXPECT_EQ(Program::kind_of(b), static_cast<K>(b % 8)) << b;
  for (unsigned b = 240; b < 248; ++b) EXPECT_EQ(Program::kind_of(b), K::SpawnBroadcast) << b;
  for (unsigned b = 248; b < 256; ++b) EXPECT_EQ(Program::kind_of(b), K::InPlaceScope) << b;
  // 1 pool of 1 thread, 1 caller; in_place_scope (248) of 2 (byte 1) leaves.
  const Program p = decode({0, 0, 0, 248, 1, 0, 5, 0, 0, 6, 0});
  EXPECT_EQ(p.render(),
            "pools p0:1t; 1 caller\n  #0 install p0\n    #1 in_place_scope\n      #2 leaf 5\n      #3 leaf 6\n");
  EXPECT_EQ(p.expected().outcome.value, 11u);
}

sim::SimConfig cfg(std::uint64_t seed) {
  sim::SimConfig c;
  c.seed = seed;
  return c;
}

TEST(ProgramScenario, AgreesWithTheSequentialInterpreterInTheSimulator) {
  sim::SimRunFn run = sim::find_sim_runner("none");
  std::mt19937 rng(11);
  for (int i = 0; i < 40; ++i) {
    std::vector<std::uint8_t> b(20 + rng() % 120);
    for (auto& x : b) x = static_cast<std::uint8_t>(rng());
    core::RunSpec spec = sim::program_input_spec(b.data(), b.size(), "none");
    const auto r = run(spec, cfg(static_cast<std::uint64_t>(i)));
    ASSERT_EQ(r.verdict.kind, core::VerdictKind::Pass) << r.verdict.message << "\n" << decode(b).render();
  }
}

TEST(ProgramScenario, ACrossPoolInstallHangsUnderCrossIsCold) {
  // install p0 (install p1 (install p0 (leaf 1))), one worker each: p0's
  // worker blocks in p1's cold path, and p1's worker then waits for p0.
  const std::vector<std::uint8_t> b = {1, 0, 0, 0, 0, 5, 1, 5, 0, 0, 1, 0};
  const Program p = decode(b);
  ASSERT_EQ(p.nodes[1].kind, K::Install) << p.render();
  ASSERT_EQ(p.nodes[2].kind, K::Install) << p.render();
  core::RunSpec spec = sim::program_input_spec(b.data(), b.size(), "cross_is_cold");
  const auto bad = sim::find_sim_runner("cross_is_cold")(spec, cfg(0));
  EXPECT_EQ(bad.verdict.kind, core::VerdictKind::Hang) << bad.verdict.message;
  const auto good = sim::find_sim_runner("none")(spec, cfg(0));
  EXPECT_EQ(good.verdict.kind, core::VerdictKind::Pass) << good.verdict.message;
}

TEST(ScheduleInput, HeaderDecodesAsDocumented) {
  std::vector<std::uint8_t> b = {2, 1 | (2 << 1) | (1 << 3) | (1 << 4), 0x10, 0, 0, 0, 0, 0, 0, 0, 7, 7, 7};
  const auto in = sim::decode_schedule_input(b.data(), b.size(), "none");
  EXPECT_EQ(in.spec.scenario, "cross");
  EXPECT_EQ(in.config.memory, sim::MemoryModel::TSO);
  EXPECT_EQ(in.spec.threads, 3u);
  EXPECT_EQ(in.spec.pools, 3u);
  EXPECT_EQ(in.spec.iterations, 2u);
  EXPECT_EQ(in.config.seed, 0x10u);
  EXPECT_EQ(in.config.strategy, sim::StrategyKind::Fuzz);
  EXPECT_EQ(in.config.fuzz_bytes, (std::vector<std::uint8_t>{7, 7, 7}));
  // The program scenario takes a length byte and that many program bytes.
  std::vector<std::uint8_t> p = {7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3, 9};
  const auto pin = sim::decode_schedule_input(p.data(), p.size(), "none");
  EXPECT_EQ(pin.spec.scenario, "program");
  EXPECT_EQ(pin.spec.input, std::string("\x01\x02\x03", 3));
  EXPECT_EQ(pin.config.fuzz_bytes, (std::vector<std::uint8_t>{9}));
}

// Byte 0 from 248 up reaches the scenarios mixed draws that the
// first list lacks (cross_scope, rendezvous); 0-247 keep their meaning (a
// stored corpus's byte 0 is 0-7); rendezvous's oracle holds under sequential
// consistency only, so its memory is SC whatever byte 1 asks.
TEST(ScheduleInput, ByteZeroReachesEveryScenarioMixedDraws) {
  std::vector<std::uint8_t> b = {0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
  const auto& names = sim::schedule_fuzz_scenarios();
  EXPECT_NE(std::find(names.begin(), names.end(), "rendezvous"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "cross_scope"), names.end());
  EXPECT_EQ(sim::decode_schedule_input(b.data(), b.size(), "none").spec.scenario, "join");
  b[0] = 2;
  EXPECT_EQ(sim::decode_schedule_input(b.data(), b.size(), "none").spec.scenario, "cross");
  b[0] = 247;
  EXPECT_EQ(sim::decode_schedule_input(b.data(), b.size(), "none").spec.scenario, "program");
  b[0] = 248;
  EXPECT_EQ(sim::decode_schedule_input(b.data(), b.size(), "none").spec.scenario, "cross_scope");
  EXPECT_EQ(sim::decode_schedule_input(b.data(), b.size(), "none").config.memory, sim::MemoryModel::TSO);
  b[0] = 249;
  const auto r = sim::decode_schedule_input(b.data(), b.size(), "none");
  EXPECT_EQ(r.spec.scenario, "rendezvous");
  EXPECT_EQ(r.config.memory, sim::MemoryModel::SC);  // byte 1 asked for TSO
  const auto pinned = sim::decode_schedule_input(b.data(), b.size(), "none", "rendezvous");
  EXPECT_EQ(pinned.config.memory, sim::MemoryModel::SC);
}

TEST(ScheduleInput, DecisionBytesSteerTheRunAndTheReproducerReplaysIt) {
  sim::SimRunFn run = sim::find_sim_runner("none");
  std::vector<std::uint8_t> b = {1, 2, 5, 0, 0, 0, 0, 0, 0, 0};
  std::vector<std::uint8_t> zeros = b, ones = b;
  zeros.resize(b.size() + 400, 0);
  ones.resize(b.size() + 400, 1);
  const auto in0 = sim::decode_schedule_input(zeros.data(), zeros.size(), "none");
  const auto in1 = sim::decode_schedule_input(ones.data(), ones.size(), "none");
  const auto r0 = run(in0.spec, in0.config), r0b = run(in0.spec, in0.config), r1 = run(in1.spec, in1.config);
  ASSERT_EQ(r0.verdict.kind, core::VerdictKind::Pass) << r0.verdict.message;
  ASSERT_EQ(r1.verdict.kind, core::VerdictKind::Pass) << r1.verdict.message;
  EXPECT_EQ(r0.trace_hash, r0b.trace_hash);
  EXPECT_NE(r0.trace_hash, r1.trace_hash);
  // Converted, written, read back and replayed: the same interleaving.
  auto rep = sim::read_repro(sim::write_repro(sim::schedule_repro(in1, r1)));
  ASSERT_TRUE(rep) << (rep ? "" : rep.error());
  const auto again = run(rep->spec, rep->config);
  EXPECT_TRUE(again.divergence.empty()) << again.divergence;
  EXPECT_EQ(again.trace_hash, r1.trace_hash);
}

// The PCT encoding: a change point moved by one step moves the schedule; the
// same bytes give the same run; and the observer (the fuzzer's extra
// counters) sees events of different fibers follow each other.
TEST(ScheduleInput, PctChangePointsAreInputBytes) {
  sim::SimRunFn run = sim::find_sim_runner("none");
  // Mode 3: PCT with one change point, at step 0x120.
  const std::vector<std::uint8_t> a = {1, 2, 9, 0, 0, 0, 0, 0, 0, 0, 3, 0x20, 0x01};
  std::vector<std::uint8_t> b = a;
  b[11] = 0x21;  // the change point one step later
  const auto ina = sim::decode_schedule_input(a.data(), a.size(), "none");
  const auto inb = sim::decode_schedule_input(b.data(), b.size(), "none");
  static std::uint64_t cross_fiber_pairs;
  static std::uint32_t last_fiber;
  cross_fiber_pairs = 0;
  last_fiber = ~0u;
  sim::set_event_observer([](std::uint32_t fiber, const pool::Event&) {
    if (last_fiber != ~0u && fiber != last_fiber) ++cross_fiber_pairs;
    last_fiber = fiber;
  });
  const auto ra = run(ina.spec, ina.config);
  sim::set_event_observer(nullptr);
  const auto ra2 = run(ina.spec, ina.config), rb = run(inb.spec, inb.config);
  ASSERT_EQ(ra.verdict.kind, core::VerdictKind::Pass) << ra.verdict.message;
  EXPECT_EQ(ra.trace_hash, ra2.trace_hash);
  EXPECT_NE(ra.trace_hash, rb.trace_hash);
  EXPECT_GT(cross_fiber_pairs, 10u);
  // An even mode byte: the same bytes are per-decision choices.
  std::vector<std::uint8_t> c = a;
  c[10] = 2;
  const auto inc = sim::decode_schedule_input(c.data(), c.size(), "none");
  EXPECT_NE(run(inc.spec, inc.config).trace_hash, ra.trace_hash);
}

TEST(ScheduleInput, ProgramsTooLargeForTheScheduleTargetAreSkipped) {
  // The header, then L = 10 program bytes: 3 workers, install, then 0xa6
  // nests broadcasts down to the depth limit; the leaf runs 3^6 times a caller.
  const std::vector<std::uint8_t> big = {0x07, 0x03, 0x65, 0x64, 0x90, 0x23, 0x1d, 0x33, 0x52, 0x02, 10,
                                         0x9c, 0xd1, 0x51, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6};
  const auto in = sim::decode_schedule_input(big.data(), big.size(), "none");
  ASSERT_EQ(in.spec.scenario, "program");
  ByteSource src(reinterpret_cast<const std::uint8_t*>(in.spec.input.data()), in.spec.input.size());
  const auto e = Program::decode(src).expected();
  std::uint64_t executions = 0;
  for (auto r : e.runs) executions += r;
  EXPECT_EQ(sim::program_executions(in.spec.input), executions);
  EXPECT_GT(executions, sim::kMaxProgramExecutions);
  EXPECT_TRUE(sim::schedule_input_is_too_long(in));
  // A small program, and any other scenario, run.
  const std::vector<std::uint8_t> small = {7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3, 9};
  EXPECT_FALSE(sim::schedule_input_is_too_long(sim::decode_schedule_input(small.data(), small.size(), "none")));
  std::vector<std::uint8_t> cross = big;
  cross[0] = 2;
  EXPECT_FALSE(sim::schedule_input_is_too_long(sim::decode_schedule_input(cross.data(), cross.size(), "none")));
}

// program_fuzzer's cap is higher (a leaf costs microseconds on real threads):
// the 3^6-leaf program is above it; with broadcasts four deep (162), the program
// is above the schedule target's cap and below this one.
TEST(ProgramInput, ProgramsTooLargeForTheProgramTargetAreSkipped) {
  const std::vector<std::uint8_t> deep = {0x9c, 0xd1, 0x51, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6};
  const core::RunSpec big = sim::program_input_spec(deep.data(), deep.size(), "none");
  EXPECT_GT(sim::program_executions(big.input), sim::kMaxRealThreadProgramExecutions);
  EXPECT_TRUE(sim::program_input_is_too_long(big));
  const std::vector<std::uint8_t> four(deep.begin(), deep.begin() + 7);
  const core::RunSpec mid = sim::program_input_spec(four.data(), four.size(), "none");
  const std::uint64_t n = sim::program_executions(mid.input);
  EXPECT_GT(n, sim::kMaxProgramExecutions);
  EXPECT_LE(n, sim::kMaxRealThreadProgramExecutions);
  EXPECT_FALSE(sim::program_input_is_too_long(mid));
}

TEST(ScheduleInput, ProgramInputsSurviveTheReproducerFile) {
  const std::vector<std::uint8_t> b = {1, 0, 0, 0, 0, 5, 1, 0, 1, 0, 0xff, 0x00};
  bool found = true;
  sim::Repro rep = sim::program_repro(b.data(), b.size(), "none", 2, found);
  EXPECT_FALSE(found);  // the clean pool passes
  rep.config.forced = {0};
  auto back = sim::read_repro(sim::write_repro(rep));
  ASSERT_TRUE(back) << (back ? "" : back.error());
  EXPECT_EQ(back->spec.scenario, "program");
  EXPECT_EQ(back->spec.input, std::string(reinterpret_cast<const char*>(b.data()), b.size()));
}

// reads_from_fuzzer's format: schedule_fuzzer's header, then 9-byte constraints.
TEST(ReadsFromInput, DecodesAndEncodesAsDocumented) {
  std::vector<std::uint8_t> b = {1,    0x22, 9,    0,    0,    0,    0,    0,    0,
                                 0,                                                  // inject, cpp, 3 workers, seed 9
                                 0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55, 1,  // 0x11223344 </- 0x55667788
                                 7,    7,    7};                                     // a partial constraint
  const auto in = sim::decode_reads_from_input(b.data(), b.size(), "none");
  EXPECT_EQ(in.schedule.spec.scenario, "inject");
  EXPECT_EQ(in.schedule.config.memory, sim::MemoryModel::CPP);
  EXPECT_EQ(in.schedule.config.seed, 9u);
  EXPECT_EQ(in.schedule.config.strategy, sim::kReadsFromStrategy);
  EXPECT_TRUE(in.schedule.config.fuzz_bytes.empty());
  ASSERT_EQ(in.constraints.size(), 1u);
  EXPECT_EQ(in.constraints[0].read, 0x11223344u);
  EXPECT_EQ(in.constraints[0].write, 0x55667788u);
  EXPECT_TRUE(in.constraints[0].negated);
  EXPECT_EQ(sim::encode_reads_from_input(in.header, in.constraints), std::vector<std::uint8_t>(b.begin(), b.end() - 3));
  // A program's bytes belong to the header; the constraints follow them.
  const std::vector<std::uint8_t> p = {7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 2, 4, 0, 0, 0, 5, 0, 0, 0, 0};
  const auto pin = sim::decode_reads_from_input(p.data(), p.size(), "none");
  EXPECT_EQ(pin.schedule.spec.input, std::string("\x01\x02", 2));
  EXPECT_EQ(pin.header.size(), 13u);
  ASSERT_EQ(pin.constraints.size(), 1u);
  EXPECT_EQ(pin.constraints[0].read, 4u);
  EXPECT_EQ(pin.constraints[0].write, 5u);
  EXPECT_FALSE(pin.constraints[0].negated);
  // Any bytes: encoding what was decoded decodes to the same input.
  std::mt19937 rng(11);
  for (int i = 0; i < 500; ++i) {
    std::vector<std::uint8_t> x(rng() % 80);
    for (auto& v : x) v = static_cast<std::uint8_t>(rng());
    const auto a = sim::decode_reads_from_input(x.data(), x.size(), "none");
    const auto y = sim::encode_reads_from_input(a.header, a.constraints);
    const auto c = sim::decode_reads_from_input(y.data(), y.size(), "none");
    ASSERT_EQ(c.header, a.header);
    ASSERT_EQ(c.constraints.size(), a.constraints.size());
    for (std::size_t k = 0; k < a.constraints.size(); ++k) {
      ASSERT_EQ(c.constraints[k].read, a.constraints[k].read);
      ASSERT_EQ(c.constraints[k].write, a.constraints[k].write);
      ASSERT_EQ(c.constraints[k].negated, a.constraints[k].negated);
    }
    ASSERT_EQ(c.schedule.spec.scenario, a.schedule.spec.scenario);
    ASSERT_EQ(c.schedule.spec.input, a.schedule.spec.input);
    ASSERT_EQ(c.schedule.config.seed, a.schedule.config.seed);
    ASSERT_EQ(c.schedule.config.memory, a.schedule.config.memory);
  }
}

// The custom mutator: constraints only from the pairs seen (a read site with
// a write site it was seen to read), at most the maximum, byte 0 kept, a new
// walk seed every time, and the same generator gives the same bytes.
TEST(ReadsFromInput, MutationDrawsConstraintsFromThePairsSeen) {
  sim::ReadsFromPairs pairs;
  const std::vector<std::uint64_t> seen = {(10ull << 32) | 20, (10ull << 32) | 21, (11ull << 32) | 0,
                                           (12ull << 32) | 20};
  EXPECT_EQ(pairs.note(seen), seen);
  EXPECT_TRUE(pairs.note({seen[0], seen[0]}).empty());
  EXPECT_EQ(pairs.count(seen[0]), 3u);
  std::vector<std::uint8_t> x = {5, 2, 1, 2, 3, 4, 5, 6, 7, 8};  // broadcast, no constraint
  SplitMix64 rng(4), again(4);
  bool constrained = false, negated = false;
  for (int i = 0; i < 300; ++i) {
    const auto y = sim::mutate_reads_from_input(x.data(), x.size(), "", pairs, rng, 4);
    ASSERT_EQ(y, sim::mutate_reads_from_input(x.data(), x.size(), "", pairs, again, 4));
    const auto in = sim::decode_reads_from_input(y.data(), y.size(), "none");
    ASSERT_EQ(y.size(), 10 + 9 * in.constraints.size());
    ASSERT_EQ(y[0], 5);
    ASSERT_NE(std::vector<std::uint8_t>(y.begin() + 2, y.begin() + 10),
              std::vector<std::uint8_t>(x.begin() + 2, x.begin() + 10));
    ASSERT_LE(in.constraints.size(), 4u);
    for (const sim::ReadsFrom& c : in.constraints) {
      const std::uint64_t pair = (static_cast<std::uint64_t>(c.read) << 32) | c.write;
      ASSERT_NE(std::find(seen.begin(), seen.end(), pair), seen.end()) << c.read << " <- " << c.write;
      negated = negated || c.negated;
    }
    constrained = constrained || !in.constraints.empty();
    x = y;
  }
  EXPECT_TRUE(constrained);
  EXPECT_TRUE(negated);
}

// The in-process loop (`wsstress fuzz --target schedule --reads-from`) and
// reads_from_fuzzer run the same bytes: the loop's failing abstract schedule,
// decoded unpinned (byte 0 names its scenario), fails again the same way.
TEST(ReadsFromInput, TheLoopsFindingIsAnInputThatFailsAgain) {
  sim::ReadsFromOptions o;
  o.mutant = "no_gate5";
  o.seed = 3;
  o.max_schedules = 300;
  const sim::ReadsFromResult r = sim::reads_from_fuzz(o);
  ASSERT_TRUE(r.found) << r.schedules << " schedules";
  const auto in = sim::decode_reads_from_input(r.input.data(), r.input.size(), "no_gate5");
  EXPECT_EQ(in.schedule.spec.scenario, "inject");
  EXPECT_EQ(in.constraints.size(), r.constraints.size());
  sim::ReadsFromRun walk;
  const sim::SimResult again = sim::run_reads_from_input(in, walk);
  EXPECT_EQ(core::verdict_name(again.verdict.kind), r.repro.verdict);
  EXPECT_EQ(again.trace_hash, r.repro.trace_hash);
  EXPECT_FALSE(walk.pairs.empty());
}

}  // namespace
