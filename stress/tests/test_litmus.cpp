// The litmus programs (pool/tests/litmus/litmus.hpp) in the simulator, over
// the same SimPlatform the pool runs on: each runs under DFS, under SC and
// under x86-TSO, and each test asserts the exact set of outcomes reached. The
// simulator's TSO is what lets the sleep handshake's store->load reorderings
// happen; these tests pin that it allows exactly TSO's reorderings (store
// buffering, with FIFO buffers and one shared memory) and nothing more.
//
// Completeness: DFS counts a switch away from a runnable fiber, and a TSO
// store-buffer flush, as a preemption. For the two-thread programs the bound
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

// One run of litmus L: the main fiber starts a fiber per litmus thread and
// returns; the last thread to finish records the outcome (a plain counter:
// fibers share one OS thread, and it is not a scheduling point). No joins, and
// the program lives outside the simulated fibers, so the main fiber adds only
// its thread starts to the tree DFS walks (with joins, IRIW's tree had well
// over a million schedules). The verdict is always a pass, so DFS goes on to
// the next schedule instead of stopping.
template <template <class> class L>
sim::SimResult run_once(const sim::SimConfig& config, std::uint64_t& reached) {
  using Program = L<SimPlatform>;
  Program p;
  unsigned finished = 0;
  return sim::simulate(config, [&]() -> stress::Verdict {
    for (unsigned i = 0; i < Program::kThreads; ++i) {
      sim::detail::spawn("litmus", [&p, &finished, &reached, i] {
        p.thread(i);
        if (++finished == Program::kThreads) reached |= std::uint64_t{1} << p.outcome();
      });
    }
    return stress::Verdict{};
  });
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
        all_passed = all_passed && r.verdict.kind == stress::VerdictKind::Pass;
        return r;
      },
      config, 1'000'000, 0);
  const std::string set = lit::describe(reached, L<SimPlatform>::kReads);
  std::printf("sim litmus (%s): %llu executions, longest %zu decisions, %.3f s, outcomes {%s}\n",
              sim::to_string(memory), static_cast<unsigned long long>(report.executions), longest,
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

// Store buffering: r0 r1 = 00 is the store->load reordering, TSO's one.
TEST(SimLitmus, StoreBufferingRelaxed) {
  EXPECT_EQ(outcomes<lit::SbRelaxed>(SC), "10 01 11");
  EXPECT_EQ(outcomes<lit::SbRelaxed>(TSO), "00 10 01 11");
}
TEST(SimLitmus, StoreBufferingSeqCstFencesOnBothSides) {
  EXPECT_EQ(outcomes<lit::SbFences>(SC), "10 01 11");
  EXPECT_EQ(outcomes<lit::SbFences>(TSO), "10 01 11");
}
// One fence (an mfence in thread 0) leaves thread 1's store buffered while
// thread 1 loads: 00 on x86 as in C++.
TEST(SimLitmus, StoreBufferingOneFence) {
  EXPECT_EQ(outcomes<lit::SbOneFence>(SC), "10 01 11");
  EXPECT_EQ(outcomes<lit::SbOneFence>(TSO), "00 10 01 11");
}
// A SeqCst store drains the buffer (x86 compiles it as xchg or mov+mfence).
TEST(SimLitmus, StoreBufferingSeqCstAccesses) {
  EXPECT_EQ(outcomes<lit::SbSeqCst>(SC), "10 01 11");
  EXPECT_EQ(outcomes<lit::SbSeqCst>(TSO), "10 01 11");
}

// Message passing: r0 r1 = flag data; 10 (flag seen, data not) needs stores
// to become visible out of order, which FIFO store buffers never do.
TEST(SimLitmus, MessagePassingRelaxed) {
  EXPECT_EQ(outcomes<lit::MpRelaxed>(SC), "00 01 11");
  EXPECT_EQ(outcomes<lit::MpRelaxed>(TSO), "00 01 11");
}
TEST(SimLitmus, MessagePassingReleaseAcquire) {
  EXPECT_EQ(outcomes<lit::MpRelAcq>(SC), "00 01 11");
  EXPECT_EQ(outcomes<lit::MpRelAcq>(TSO), "00 01 11");
}
TEST(SimLitmus, MessagePassingFences) {
  EXPECT_EQ(outcomes<lit::MpFences>(SC), "00 01 11");
  EXPECT_EQ(outcomes<lit::MpFences>(TSO), "00 01 11");
}

// Load buffering: 11 needs a load to read a later store; x86 never does.
TEST(SimLitmus, LoadBufferingRelaxed) {
  EXPECT_EQ(outcomes<lit::LbRelaxed>(SC), "00 10 01");
  EXPECT_EQ(outcomes<lit::LbRelaxed>(TSO), "00 10 01");
}

// IRIW: r0 r1 (x then y) r2 r3 (y then x); 1010 is the readers disagreeing on
// the order of the writes. TSO is multi-copy atomic (a flush makes a store
// visible to every other fiber at once), so no variant reaches it. The
// simulator ignores orders weaker than SeqCst (a release store is buffered
// like a relaxed one), so release/acquire runs under TSO only.
TEST(SimLitmus, IriwRelaxed) {
  EXPECT_EQ(outcomes<lit::IriwRelaxed>(SC, kIriwBound), lit::all_outcomes_except(4, "1010"));
  EXPECT_EQ(outcomes<lit::IriwRelaxed>(TSO, kIriwBound), lit::all_outcomes_except(4, "1010"));
}
TEST(SimLitmus, IriwAcquire) {
  EXPECT_EQ(outcomes<lit::IriwAcquire>(TSO, kIriwBound), lit::all_outcomes_except(4, "1010"));
}
TEST(SimLitmus, IriwSeqCst) {
  EXPECT_EQ(outcomes<lit::IriwSeqCst>(SC, kIriwBound), lit::all_outcomes_except(4, "1010"));
  EXPECT_EQ(outcomes<lit::IriwSeqCst>(TSO, kIriwBound), lit::all_outcomes_except(4, "1010"));
}

}  // namespace
