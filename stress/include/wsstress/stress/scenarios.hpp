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
//   mixed      each iteration one of the above, at random
#pragma once

#include <string>
#include <vector>

#include "wsstress/stress/scenarios/common.hpp"
#include "wsstress/stress/scenarios/pools.hpp"
#include "wsstress/stress/scenarios/programs.hpp"
#include "wsstress/stress/scenarios/scopes.hpp"

namespace wsstress::stress {

// Every scenario, once: X(name, in_mixed, schedule_fuzzed). `name` is also
// the static member of Scenarios<P, M> that runs it, written in one of the
// families it derives from (scenarios/pools.hpp, scopes.hpp, programs.hpp);
// `in_mixed`: mixed may pick it; `schedule_fuzzed`: schedule_fuzzer's first
// byte may pick it (that list keeps its order, so a stored corpus keeps its
// meaning). Adding a scenario is one entry here and its member function in a
// family.
#define WSSTRESS_SCENARIOS(X) \
  X(join, true, true)         \
  X(inject, true, true)       \
  X(cross, true, true)        \
  X(terminate, true, true)    \
  X(scope, true, true)        \
  X(broadcast, true, true)    \
  X(exception, true, true)    \
  X(program, true, true)      \
  X(cross_scope, true, false) \
  X(rendezvous, false, false) \
  X(mixed, false, false)

struct ScenarioInfo {
  const char* name;
  bool in_mixed;
  bool schedule_fuzzed;
};

#define WSSTRESS_SCENARIO_INFO(name, in_mixed, fuzzed) ScenarioInfo{#name, in_mixed, fuzzed},
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

inline const std::vector<std::string>& scenario_names() {
  static const std::vector<std::string> names = scenario_names_where();
  return names;
}

// Every scenario of the registry, from its family, and the two that run the
// others: mixed and the dispatch by name.
template <class P, class M>
struct Scenarios : PoolScenarios<P, M>, ScopeScenarios<P, M>, ProgramScenarios<P, M> {
  using C = Ctx<P, M>;

  // ---- mixed ----

  static void mixed(C& c) {
    RunSpec one = c.spec;
    one.iterations = 1;
    for (std::size_t it = 0; it < c.spec.iterations; ++it) {
      C sub(one, c.rng.next());
      static const std::vector<std::string> pick = scenario_names_where(&ScenarioInfo::in_mixed);
      run(sub, pick[c.rng.below(pick.size())]);
      if (sub.failed()) {
        Verdict v = sub.verdict();
        c.check(false, [&] { return v.message; });
      }
    }
  }

  // Runs the named scenario; false if there is no such scenario.
  static bool run(C& c, const std::string& name) {
#define WSSTRESS_SCENARIO_CASE(scenario, in_mixed, fuzzed) \
  if (name == #scenario) {                                 \
    Scenarios::scenario(c);                                \
    return true;                                           \
  }
    WSSTRESS_SCENARIOS(WSSTRESS_SCENARIO_CASE)
#undef WSSTRESS_SCENARIO_CASE
    return false;
  }
};

}  // namespace wsstress::stress
