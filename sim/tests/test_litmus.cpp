// SPDX-License-Identifier: MIT OR Apache-2.0
// The litmus programs (pool/tests/litmus/litmus.hpp) in the simulator, over
// the same SimPlatform the pool runs on: each runs under DFS in each memory
// model (SC, x86-TSO, the C++ model of --memory cpp), and each test asserts
// the exact set of outcomes reached against the published set (sources in
// litmus.hpp): every allowed outcome reached, no forbidden one. The three
// outcomes C++ allows that the cpp model leaves out by design (load buffering,
// modification orders against execution order: LB, 2+2W and S relaxed; see
// sim/src/cpp_memory.hpp) are named in their tests.
//
// Completeness: DFS counts a switch away from a runnable fiber, a TSO
// store-buffer flush and a load's read of an older store (cpp) as a preemption. For the two-thread programs the bound
// (kBound) exceeds the number of scheduling decisions of any execution (each
// test checks it on every execution it ran), and a preemption is one kind of
// decision, so the bound never cuts a branch: the search is the full tree of
// schedules and flush points, and `exhausted` means every one was run. IRIW
// runs at a smaller bound (kIriwBound, see there).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "litmus/litmus.hpp"
#include "wsstress/sim/engine.hpp"
#include "wsstress/sim/sim.hpp"

namespace {

using namespace wsstress;
using sim::MemoryModel;
using sim::SimPlatform;
namespace lit = wsstress::litmus;

constexpr unsigned kBound = 64;
// IRIW's tree is too big for that: DFS has no partial-order reduction, and
// four fibers' starts and exits multiply the 180 orders of its six accesses
// into more than 3 million schedules (not finished in 240 s). Bound 4 (about
// 10 000 schedules under SC, 36 000 under TSO) already reaches every outcome
// the models allow; it is exhaustive within the bound, not complete: an
// order of the accesses (and flushes) needing more than 4 deviations from
// the default schedule is not run.
constexpr unsigned kIriwBound = 4;
// The three-thread programs (WRC, RWC, ISA2): bound 6, exhaustive within it.
constexpr unsigned kThreeBound = 6;

// One run of litmus L: the main fiber starts a fiber per litmus thread and
// returns. No joins, and the program lives outside the simulated fibers, so
// the main fiber adds only its thread starts to the tree DFS walks (with
// joins, IRIW's tree had well over a million schedules). The outcome is read
// once the run is over: every fiber has exited, so every TSO store buffer has
// drained and a final value (litmus::last, an RMW, here outside any run: no
// scheduling point) is the newest in modification order. (Read by the last
// thread to finish instead, 2+2W under TSO reached "11": another thread's
// exit had not drained its buffer yet.) The verdict is always a pass, so DFS
// goes on to the next schedule instead of stopping.
template <template <class> class L>
sim::SimResult run_once(const sim::SimConfig& config, std::uint64_t& reached) {
  using Program = L<SimPlatform>;
  Program p;
  sim::SimResult r = sim::simulate(config, [&]() -> core::Verdict {
    for (unsigned i = 0; i < Program::kThreads; ++i) sim::detail::spawn("litmus", [&p, i] { p.thread(i); });
    return core::Verdict{};
  });
  reached |= std::uint64_t{1} << p.outcome();
  return r;
}

template <template <class> class L>
std::string outcomes(MemoryModel memory, unsigned bound = kBound) {
  std::uint64_t reached = 0;
  std::size_t longest = 0;
  bool all_passed = true;
  sim::SimConfig config;
  config.memory = memory;
  config.preemption_bound = bound;
  const auto start = std::chrono::steady_clock::now();
  const sim::DfsReport report = sim::dfs_explore(
      [&](const sim::SimConfig& c) {
        sim::SimResult r = run_once<L>(c, reached);
        longest = std::max(longest, r.decisions.size());
        all_passed = all_passed && r.verdict.kind == core::VerdictKind::Pass;
        return r;
      },
      config, 1'000'000, 0);
  const std::string set = lit::describe(reached, L<SimPlatform>::kReads);
  std::printf("sim litmus (%s): %llu executions, longest %zu decisions, %.3f s, outcomes {%s}\n",
              sim::memory_name(memory), static_cast<unsigned long long>(report.executions), longest,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), set.c_str());
  EXPECT_TRUE(report.exhausted) << "DFS stopped after " << report.executions << " executions";
  EXPECT_FALSE(report.failure.has_value()) << report.failure->verdict.message;
  EXPECT_TRUE(all_passed);
  if (bound == kBound) {
    EXPECT_LE(longest, kBound) << "an execution has more decisions than the bound: the search may be incomplete";
  }
  return set;
}

constexpr MemoryModel SC = MemoryModel::SC;
constexpr MemoryModel TSO = MemoryModel::TSO;
constexpr MemoryModel CPP = MemoryModel::CPP;

// Every outcome of a program with `reads` observation bits but `except`.
std::string but(unsigned reads, const std::string& except) { return lit::all_outcomes_except(reads, except); }
std::string all(unsigned reads) { return lit::all_outcomes_except(reads); }

// One program in the three models: the sets each must reach exactly.
template <template <class> class L>
void check(const std::string& sc, const std::string& tso, const std::string& cpp, unsigned bound = kBound) {
  EXPECT_EQ(outcomes<L>(SC, bound), sc) << "SC";
  EXPECT_EQ(outcomes<L>(TSO, bound), tso) << "x86-TSO";
  EXPECT_EQ(outcomes<L>(CPP, bound), cpp) << "C++";
}

// ---- store buffering: r0 r1; "00" is the store->load reordering ----
TEST(SimLitmus, SbRelaxed) { check<lit::SbRelaxed>(but(2, "00"), all(2), all(2)); }
TEST(SimLitmus, SbRelAcq) { check<lit::SbRelAcq>(but(2, "00"), all(2), all(2)); }
TEST(SimLitmus, SbSeqCstFencesBoth) { check<lit::SbFences>(but(2, "00"), but(2, "00"), but(2, "00")); }
// One fence (an mfence in thread 0) leaves thread 1's store free to pass its load.
TEST(SimLitmus, SbOneFence) { check<lit::SbOneFence>(but(2, "00"), all(2), all(2)); }
// A SeqCst store drains the buffer on x86 (xchg); in C++ the SeqCst accesses are ordered in S.
TEST(SimLitmus, SbSeqCst) { check<lit::SbSeqCst>(but(2, "00"), but(2, "00"), but(2, "00")); }
// SeqCst stores with relaxed loads: x86 drains at the store; C++ orders nothing for the loads.
TEST(SimLitmus, SbSeqCstStoresRelaxedLoads) { check<lit::SbScStores>(but(2, "00"), but(2, "00"), all(2)); }
// Relaxed stores with SeqCst loads: a plain load on x86, and C++ has no SeqCst store to order.
TEST(SimLitmus, SbRelaxedStoresSeqCstLoads) { check<lit::SbScLoads>(but(2, "00"), all(2), all(2)); }
// A fence on one side, SeqCst accesses on the other: C++20 forbids "00" (P0668R5; C++11 allowed it).
TEST(SimLitmus, SbFenceAgainstSeqCst) { check<lit::SbFenceSc>(but(2, "00"), but(2, "00"), but(2, "00")); }

// ---- message passing: r0 r1 = flag data; "10" is the stale read ----
TEST(SimLitmus, MpRelaxed) { check<lit::MpRelaxed>(but(2, "10"), but(2, "10"), all(2)); }
TEST(SimLitmus, MpReleaseAcquire) { check<lit::MpRelAcq>(but(2, "10"), but(2, "10"), but(2, "10")); }
TEST(SimLitmus, MpFences) { check<lit::MpFences>(but(2, "10"), but(2, "10"), but(2, "10")); }
TEST(SimLitmus, MpReleaseWithoutAcquire) { check<lit::MpRelRlx>(but(2, "10"), but(2, "10"), all(2)); }
TEST(SimLitmus, MpAcquireWithoutRelease) { check<lit::MpRlxAcq>(but(2, "10"), but(2, "10"), all(2)); }

// ---- load buffering: "11" needs a load to read a later store ----
// C++ allows "11" for relaxed accesses; the cpp model leaves load buffering
// out (cpp_memory.hpp), as Relacy, tsan11 and C11Tester do: pinned here.
TEST(SimLitmus, LbRelaxedNotModelled) { check<lit::LbRelaxed>(but(2, "11"), but(2, "11"), but(2, "11")); }
TEST(SimLitmus, LbReleaseAcquire) { check<lit::LbRelAcq>(but(2, "11"), but(2, "11"), but(2, "11")); }

// ---- IRIW: r0 r1 (x then y) r2 r3 (y then x); "1010": readers disagree ----
// TSO is multi-copy atomic; C++ is not below SeqCst.
TEST(SimLitmus, IriwRelaxed) { check<lit::IriwRelaxed>(but(4, "1010"), but(4, "1010"), all(4), kIriwBound); }
TEST(SimLitmus, IriwReleaseAcquire) { check<lit::IriwAcquire>(but(4, "1010"), but(4, "1010"), all(4), kIriwBound); }
TEST(SimLitmus, IriwSeqCst) { check<lit::IriwSeqCst>(but(4, "1010"), but(4, "1010"), but(4, "1010"), kIriwBound); }
// SeqCst fences between the reads: forbidden by C++20 (the fences are ordered in S).
TEST(SimLitmus, IriwFences) { check<lit::IriwFence>(but(4, "1010"), but(4, "1010"), but(4, "1010"), kIriwBound); }

// ---- WRC: r0 (T1's x) r1 (T2's y) r2 (T2's x); "110" breaks causality ----
TEST(SimLitmus, WrcRelaxed) { check<lit::WrcRelaxed>(but(3, "110"), but(3, "110"), all(3), kThreeBound); }
// Through a release/acquire pair T1's read of x happens before T2's (read-read coherence).
TEST(SimLitmus, WrcReleaseAcquire) { check<lit::WrcRelAcq>(but(3, "110"), but(3, "110"), but(3, "110"), kThreeBound); }

// ---- RWC: r0 r1 (T1: x, y) r2 (T2: x after y=1); "100" ----
TEST(SimLitmus, RwcRelaxed) { check<lit::RwcRelaxed>(but(3, "100"), all(3), all(3), kThreeBound); }
TEST(SimLitmus, RwcSeqCst) { check<lit::RwcSeqCst>(but(3, "100"), but(3, "100"), but(3, "100"), kThreeBound); }
TEST(SimLitmus, RwcFences) { check<lit::RwcFences>(but(3, "100"), but(3, "100"), but(3, "100"), kThreeBound); }

// ---- ISA2: r0 (T1's y) r1 (T2's z) r2 (T2's x); "110" ----
TEST(SimLitmus, Isa2Relaxed) { check<lit::Isa2Relaxed>(but(3, "110"), but(3, "110"), all(3), kThreeBound); }
TEST(SimLitmus, Isa2ReleaseAcquire) {
  check<lit::Isa2RelAcq>(but(3, "110"), but(3, "110"), but(3, "110"), kThreeBound);
}

// ---- 2+2W: bits final x == 1, final y == 1 ----
// C++ allows "11" for relaxed stores; the cpp model's modification order is
// the order of execution (as Relacy's, tsan11's), which cannot reach it.
TEST(SimLitmus, TwoPlusTwoWRelaxedNotModelled) { check<lit::W2Relaxed>(but(2, "11"), but(2, "11"), but(2, "11")); }
TEST(SimLitmus, TwoPlusTwoWSeqCst) { check<lit::W2SeqCst>(but(2, "11"), but(2, "11"), but(2, "11")); }

// ---- coherence: forbidden in every model, at every order ----
TEST(SimLitmus, CoRR) { check<lit::CoRRRelaxed>(but(2, "10"), but(2, "10"), but(2, "10")); }
// bits r == 1, r == 2: never the initial value after its own store.
TEST(SimLitmus, CoWR) { check<lit::CoWRRelaxed>("10 01", "10 01", "10 01"); }
// bits r == 2, final x == 2: "11" would put T0's store before the one it read.
TEST(SimLitmus, CoRW) { check<lit::CoRWRelaxed>(but(2, "11"), but(2, "11"), but(2, "11")); }
// bits r0 == 2, r1 == 1: never the first store after the second.
TEST(SimLitmus, CoWW) { check<lit::CoWWRelaxed>(but(2, "11"), but(2, "11"), but(2, "11")); }

// ---- R: bits final y == 2, r0; "10" ----
TEST(SimLitmus, RRelaxed) { check<lit::RRelaxed>(but(2, "10"), all(2), all(2)); }
TEST(SimLitmus, RSeqCst) { check<lit::RSeqCst>(but(2, "10"), but(2, "10"), but(2, "10")); }
TEST(SimLitmus, RFences) { check<lit::RFences>(but(2, "10"), but(2, "10"), but(2, "10")); }

// ---- S: bits r0, final x == 2; "11" ----
// C++ allows "11" for relaxed accesses (mo against execution order, as 2+2W).
TEST(SimLitmus, SRelaxedNotModelled) { check<lit::SRelaxed>(but(2, "11"), but(2, "11"), but(2, "11")); }
TEST(SimLitmus, SReleaseAcquire) { check<lit::SRelAcq>(but(2, "11"), but(2, "11"), but(2, "11")); }

// Checking the checker: a model with a flaw put in on purpose fails the
// suite. A SeqCst fence treated as acq_rel lets store buffering through two
// fences; a load allowed to read an overwritten store breaks coherence.
TEST(SimLitmus, ABrokenModelFailsTheSuite) {
  sim::set_cpp_flaw_for_tests(sim::CppFlaw::SeqCstFenceAsAcqRel);
  const std::string sb = outcomes<lit::SbFences>(CPP);
  const std::string rfences = outcomes<lit::RFences>(CPP);
  sim::set_cpp_flaw_for_tests(sim::CppFlaw::ReadOverwritten);
  const std::string corr = outcomes<lit::CoRRRelaxed>(CPP);
  const std::string mp = outcomes<lit::MpRelAcq>(CPP);
  sim::set_cpp_flaw_for_tests(sim::CppFlaw::None);
  EXPECT_EQ(sb, all(2)) << "store buffering's 00 through two 'SeqCst' fences";
  EXPECT_NE(rfences, but(2, "10"));
  EXPECT_EQ(corr, all(2)) << "CoRR's 10: a load reads the store its thread saw overwritten";
  EXPECT_EQ(mp, all(2)) << "MP's stale data after the acquire";
  EXPECT_EQ(outcomes<lit::CoRRRelaxed>(CPP), but(2, "10")) << "the flaw stayed on";
}

}  // namespace
