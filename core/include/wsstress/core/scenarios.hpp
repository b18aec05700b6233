// SPDX-License-Identifier: MIT OR Apache-2.0
// The scenarios of `wsstress run`, written once over <P, M>.
//
// Each turns the run's seed and size knobs into a concrete program, runs it on
// pools of the pool under test, and checks an oracle: results equal a
// sequential evaluation, every job ran exactly once, every exception arrived
// where rayon-core's semantics send it. A hang is not checked here: the
// watchdog (real threads) or the scheduler (simulator) sees that nothing moves.
//
//   join       random recursive join trees, values and leaf counts checked
//   inject     outside threads entering pools that had time to fall asleep
//   cross      nested install chains across pools (A->B->A, diamonds)
//   terminate  pools dropped while spawned work is in flight, callers racing
//   cross_scope  a worker of a short-lived pool waits on a scope or broadcast
//              whose jobs run in another pool, while its own pool is dropped
//   scope      nested scopes, spawn and spawn_fifo, spawns from spawned jobs
//   broadcast  broadcast / spawn_broadcast racing installs and sleep
//   exception  throws at random points; each must reach the right place once
//   program    nested programs (program.hpp) over up to three pools, from the
//              seed or from the run's input bytes (the fuzzers' language),
//              checked against the sequential interpreter
//   rendezvous join(a, b) where a waits for b to start: lost parallelism hangs
//   mixed      each iteration one of the above, at random, by weight
//   ext_*      programs nobody here wrote, with their known bugs, and their
//              fixed twins (`_fixed`): scenarios/external.hpp; never in mixed
#pragma once

#include <exception>
#include <string>
#include <vector>

#include "wsstress/core/scenarios/common.hpp"
#include "wsstress/core/scenarios/external.hpp"
#include "wsstress/core/scenarios/pools.hpp"
#include "wsstress/core/scenarios/programs.hpp"
#include "wsstress/core/scenarios/scopes.hpp"

namespace wsstress::core {

// Every scenario, once: X(name, mixed_weight, schedule_fuzzed, sc_oracle).
// `name` is also the static member of Scenarios<P, M> that runs it, written in
// one of the families it derives from (scenarios/pools.hpp, scopes.hpp,
// programs.hpp). `mixed_weight`: how often mixed draws it (0: never); the
// weights give each family about the same share of scheduling points, from
// each scenario's simulated points per iteration (weight about 1100 / cost,
// rounded; sim_bench measures the cost). `schedule_fuzzed`: schedule_fuzzer's first byte
// picks it with values 0-247 (that list keeps its order, so a stored corpus
// keeps its meaning); the other scenarios mixed draws follow, picked by
// 248-255 (sim/fuzz_input.cpp).
// `sc_oracle`: the oracle asserts what rayon-core promises only when memory is
// sequentially consistent (rendezvous: sleep/README.md, "no fence is needed
// for work posted to internal queues, since it is ok to overlook work in that
// case"), so mixed leaves it out where the engine reorders memory
// (Env::reorders_memory). Adding a scenario is one entry here and its member
// function in a family. The external programs come last, from their own list
// (scenarios/external_programs.hpp), outside mixed and the schedule fuzzer:
// their buggy halves fail by design, and the lists' order keeps stored
// corpora and mixed seeds meaning what they meant.
#define WSSTRESS_SCENARIOS(X)     \
  X(join, 1, true, false)         \
  X(inject, 1, true, false)       \
  X(cross, 1, true, false)        \
  X(terminate, 1, true, false)    \
  X(scope, 1, true, false)        \
  X(broadcast, 2, true, false)    \
  X(exception, 2, true, false)    \
  X(program, 1, true, false)      \
  X(cross_scope, 1, false, false) \
  X(rendezvous, 2, false, true)   \
  X(mixed, 0, false, false)       \
  WSSTRESS_EXTERNAL_PROGRAMS(WSSTRESS_EXTERNAL_SCENARIO, X)

// An external program's row as a scenario: never drawn by mixed or fuzzed.
#define WSSTRESS_EXTERNAL_SCENARIO(X, name, source, fails, kind, memory) X(name, 0, false, false)

struct ScenarioInfo {
  const char* name;
  unsigned mixed_weight;
  bool schedule_fuzzed;
  bool sc_oracle;
};

#define WSSTRESS_SCENARIO_INFO(name, weight, fuzzed, sc_oracle) ScenarioInfo{#name, weight, fuzzed, sc_oracle},
inline constexpr ScenarioInfo kScenarios[] = {WSSTRESS_SCENARIOS(WSSTRESS_SCENARIO_INFO)};
#undef WSSTRESS_SCENARIO_INFO

// The names of the scenarios with `flag` set (every scenario without one), in
// the list's order.
inline std::vector<std::string> scenario_names_where(bool ScenarioInfo::*flag = nullptr) {
  std::vector<std::string> out;
  for (const ScenarioInfo& s : kScenarios) {
    if (flag == nullptr || s.*flag) out.emplace_back(s.name);
  }
  return out;
}

// The weight mixed gives s on an engine that reorders memory (weak) or not.
inline unsigned mixed_draws(const ScenarioInfo& s, bool weak) { return weak && s.sc_oracle ? 0 : s.mixed_weight; }

// The scenario at position `at` (below the weights' total) of mixed's
// weighted list.
inline const char* mixed_pick(std::uint64_t at, bool weak) {
  for (const ScenarioInfo& s : kScenarios) {
    if (at < mixed_draws(s, weak)) return s.name;
    at -= mixed_draws(s, weak);
  }
  return "join";  // unreachable for an `at` below the total
}

inline const std::vector<std::string>& scenario_names() {
  static const std::vector<std::string> names = scenario_names_where();
  return names;
}

// The pool's own scenarios: every one but the external programs.
inline std::vector<std::string> pool_scenario_names() {
  std::vector<std::string> out;
  for (const std::string& s : scenario_names()) {
    if (find_external(s) == nullptr) out.push_back(s);
  }
  return out;
}

// Every scenario of the registry, from its family, and the two that run the
// others: mixed and the dispatch by name.
template <class P, class M>
struct Scenarios : PoolScenarios<P, M>, ScopeScenarios<P, M>, ProgramScenarios<P, M>, ExternalScenarios<P, M> {
  using C = Ctx<P, M>;
  using E = Env<P>;

  // ---- mixed ----

  static void mixed(C& c) {
    RunSpec one = c.spec;
    one.iterations = 1;
    const bool weak = E::reorders_memory();
    unsigned total = 0;
    for (const ScenarioInfo& s : kScenarios) total += mixed_draws(s, weak);
    for (std::size_t it = 0; it < c.spec.iterations; ++it) {
      C sub(one, c.rng.next());
      run(sub, mixed_pick(c.rng.below(total), weak));
      if (sub.failed()) {
        Verdict v = sub.verdict();
        c.check(false, [&] { return v.message; });
      }
    }
  }
  // Runs the named scenario; false if there is no such scenario.
  static bool run(C& c, const std::string& name) {
#define WSSTRESS_SCENARIO_CASE(scenario, weight, fuzzed, sc) \
  if (name == #scenario) {                                   \
    Scenarios::scenario(c);                                  \
    return true;                                             \
  }
    WSSTRESS_SCENARIOS(WSSTRESS_SCENARIO_CASE)
#undef WSSTRESS_SCENARIO_CASE
    return false;
  }
};

// Runs the spec's scenario in `c` and turns how it ended into a verdict: the
// one mapping of a scenario's exceptions, for every engine.
template <class P, class M>
Verdict run_scenario(Ctx<P, M>& c) {
  try {
    if (!Scenarios<P, M>::run(c, c.spec.scenario)) {
      return Verdict{VerdictKind::Internal, "unknown scenario '" + c.spec.scenario + "'", {}};
    }
  } catch (const Thrown& t) {
    return Verdict{VerdictKind::Bug,
                   "an exception thrown by a job (id " + std::to_string(t.id) + ") escaped to the top of the scenario",
                   {}};
  } catch (const std::exception& e) {
    return Verdict{VerdictKind::Bug, std::string("unexpected exception from the pool: ") + e.what(), {}};
  }
  return c.verdict();
}

}  // namespace wsstress::core
