// SPDX-License-Identifier: MIT OR Apache-2.0
// Each strategy checked against the case its paper says it wins,
// measured over fixed seeds so the shares are the same every run.
//
// POS (Yuan et al., CAV 2018): fiber A runs kPrivate events on its own
// object, then writes x; fiber B writes x once. The two writes race in two
// orders. A random walk puts A's write first only when A wins kPrivate + 1
// coin flips in a row (2^-(kPrivate+1), about 0.05 % here); POS keeps B's
// priority while A's independent events run, so A's write comes first with
// probability about 1 / (kPrivate + 2), and both orders are sampled.
// Measured over seeds 0..1999: random walk 7 per mille (A starts first, so
// it gets a head start over 2^-11), POS 199 per mille.
//
// SURW (Zhao et al., ASPLOS 2025): fibers A and B write x kWrites times
// each, so their writes interleave in C(2 kWrites, kWrites) orders. SURW
// samples them uniformly (each write waits for a draw weighted by the
// writes its fiber has left); a random walk gives A A A B B B 2^kWrites
// times the share of A B A B A B. Measured over seeds 0..3999: see the test.
//
// Reads-from fuzzing (Wolff et al., ASPLOS 2024): its strategy meets a
// constraint "this load reads that store" that the walk alone rarely meets,
// and its loop finds a gate-5 mutant from a fixed seed in a few dozen
// schedules (the walk without constraints, the same loop: 817).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>

#include "wsstress/sim/engine.hpp"
#include "wsstress/sim/reads_from.hpp"
#include "wsstress/sim/sim.hpp"
#include "wsstress/sim/strategies.hpp"

namespace {

using namespace wsstress;
using sim::SimPlatform;

constexpr unsigned kPrivate = 10;
constexpr std::uint64_t kSeeds = 2000;

// The share of seeds (in per mille) whose run has A's write of x before B's.
unsigned a_first_per_mille(sim::StrategyKind strategy) {
  unsigned a_first = 0;
  for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
    SimPlatform::Atomic<unsigned> mine{0u}, x{0u};
    sim::SimConfig config;
    config.seed = seed;
    config.strategy = strategy;
    const sim::SimResult r = sim::simulate(config, [&]() -> core::Verdict {
      sim::detail::spawn("A", [&] {
        for (unsigned i = 0; i < kPrivate; ++i) mine.store(i, std::memory_order_relaxed);
        x.store(1u, std::memory_order_relaxed);
      });
      sim::detail::spawn("B", [&] { x.store(2u, std::memory_order_relaxed); });
      return core::Verdict{};
    });
    EXPECT_EQ(r.verdict.kind, core::VerdictKind::Pass) << r.verdict.message;
    a_first += x.load(std::memory_order_relaxed) == 2u ? 1 : 0;  // B's write last: A's came first
  }
  return static_cast<unsigned>(a_first * 1000 / kSeeds);
}

TEST(Strategies, PosSamplesBothOrdersOfARaceAfterIndependentEvents) {
  const unsigned random = a_first_per_mille(sim::StrategyKind::Random);
  const unsigned pos = a_first_per_mille(*sim::parse_strategy("pos"));
  EXPECT_GE(pos, 100u) << "POS put A's write first in " << pos << " per mille of the seeds";
  EXPECT_LE(random, 20u) << "the random walk put A's write first in " << random << " per mille";
  EXPECT_GE(pos, 5 * random);
  std::printf("A's write first: random walk %u per mille, POS %u per mille of %llu seeds\n", random, pos,
              static_cast<unsigned long long>(kSeeds));
}

constexpr unsigned kWrites = 3;
constexpr unsigned kOrders = 20;  // C(6, 3)
constexpr std::uint64_t kOrderSeeds = 4000;

struct Spread {
  unsigned orders;  // how many of the kOrders came at all
  unsigned most, fewest;
  double chi_square;  // against the uniform distribution, kOrders - 1 degrees of freedom
};

// How often each order of A's and B's writes of x came over the seeds (an
// order as a mask: bit i set when the i-th write was A's).
Spread write_orders(sim::StrategyKind strategy) {
  std::map<unsigned, unsigned> seen;
  SimPlatform::Atomic<unsigned> x{0u};
  for (std::uint64_t seed = 0; seed < kOrderSeeds; ++seed) {
    unsigned order = 0, n = 0;
    sim::SimConfig config;
    config.seed = seed;
    config.strategy = strategy;
    const sim::SimResult r = sim::simulate(config, [&]() -> core::Verdict {
      order = n = 0;  // SURW runs the program twice: its trial, then the run
      sim::detail::spawn("A", [&] {
        for (unsigned i = 0; i < kWrites; ++i) {
          x.store(1u, std::memory_order_relaxed);
          order |= 1u << n++;  // no scheduling point between the write and this
        }
      });
      sim::detail::spawn("B", [&] {
        for (unsigned i = 0; i < kWrites; ++i) {
          x.store(2u, std::memory_order_relaxed);
          ++n;
        }
      });
      return core::Verdict{};
    });
    EXPECT_EQ(r.verdict.kind, core::VerdictKind::Pass) << r.verdict.message;
    ++seen[order];
  }
  Spread s{static_cast<unsigned>(seen.size()), 0, seen.size() < kOrders ? 0 : ~0u, 0.0};
  const double expected = static_cast<double>(kOrderSeeds) / kOrders;
  for (const auto& [order, count] : seen) {
    s.most = std::max(s.most, count);
    if (seen.size() == kOrders) s.fewest = std::min(s.fewest, count);
    s.chi_square += (count - expected) * (count - expected) / expected;
  }
  s.chi_square += (kOrders - seen.size()) * expected;  // the orders that never came
  return s;
}

TEST(Strategies, SurwSamplesTheInterleavingsOfTheWritesUniformly) {
  const Spread random = write_orders(sim::StrategyKind::Random);
  const Spread surw = write_orders(*sim::parse_strategy("surw"));
  std::printf("%u orders of 2 x %u writes over %llu seeds: random walk %u..%u per order (chi-square %.0f), "
              "SURW %u..%u (chi-square %.1f)\n",
              kOrders, kWrites, static_cast<unsigned long long>(kOrderSeeds), random.fewest, random.most,
              random.chi_square, surw.fewest, surw.most, surw.chi_square);
  EXPECT_EQ(surw.orders, kOrders);
  // 19 degrees of freedom: above 43.8 one uniform sample in a thousand.
  EXPECT_LT(surw.chi_square, 43.8);
  EXPECT_LE(surw.most, 2 * surw.fewest);
  EXPECT_GT(random.chi_square, 10 * 43.8);
  EXPECT_GE(random.most, 4 * std::max(random.fewest, 1u));
}

// Over 200 seeds, how often B's load of x read A's store, which A makes after
// kPrivate stores of its own; `constrained`: the abstract schedule asks for it.
unsigned b_reads_a(bool constrained) {
  unsigned read_a = 0;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    SimPlatform::Atomic<unsigned> mine{0u}, x{0u};
    unsigned seen = 0;
    sim::ReadsFromRun walk;
    sim::SimConfig config;
    config.seed = seed;
    config.strategy = *sim::parse_strategy("reads-from");
    config.reads_from = &walk;
    const unsigned lines[2] = {__LINE__ + 5, __LINE__ + 7};  // x's store and load, below
    if (constrained) walk.constraints.push_back({sim::site_id(__FILE__, lines[1]), sim::site_id(__FILE__, lines[0])});
    const sim::SimResult r = sim::simulate(config, [&]() -> core::Verdict {
      sim::detail::spawn("A", [&] {
        for (unsigned i = 0; i < kPrivate; ++i) mine.store(i, std::memory_order_relaxed);
        x.store(1u, std::memory_order_relaxed);
      });
      sim::detail::spawn("B", [&] { seen = x.load(std::memory_order_relaxed); });
      return core::Verdict{};
    });
    EXPECT_EQ(r.verdict.kind, core::VerdictKind::Pass) << r.verdict.message;
    read_a += seen == 1u ? 1 : 0;
  }
  return read_a;
}

TEST(Strategies, ReadsFromConstraintIsMetWhereTheWalkRarelyMeetsIt) {
  const unsigned walk = b_reads_a(false), steered = b_reads_a(true);
  std::printf("B's load read A's store in %u of 200 seeds unconstrained, %u constrained\n", walk, steered);
  EXPECT_LE(walk, 20u);
  EXPECT_EQ(steered, 200u);
}

TEST(Strategies, ReadsFromFuzzingFindsNoGate5FromAFixedSeed) {
  sim::ReadsFromOptions o;
  o.mutant = "no_gate5";
  o.scenario = "inject";
  o.seed = 3;
  o.max_schedules = 300;
  const sim::ReadsFromResult r = sim::reads_from_fuzz(o);
  ASSERT_TRUE(r.found) << r.schedules << " schedules";
  EXPECT_LE(r.schedules, 100u);
  EXPECT_FALSE(r.constraints.empty());
  // Its reproducer replays to the same failure.
  const sim::SimResult again = sim::find_sim_runner("no_gate5")(r.repro.spec, r.repro.config);
  EXPECT_EQ(core::verdict_name(again.verdict.kind), r.repro.verdict);
  EXPECT_EQ(again.trace_hash, r.repro.trace_hash);
}

}  // namespace
