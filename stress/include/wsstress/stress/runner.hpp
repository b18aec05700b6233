// One run: a scenario, for one seed, over the pool instantiated with
// NoisyPlatform and mutant policy M. A mutant runs as RuntimeMutants: the
// mutants sharing a static part share one instantiation (runners.cpp, its
// table generated from pool/mutants.hpp); RunFn points at one entry.
#pragma once

#include <cstdint>
#include <exception>
#include <string>

#include "wsstress/stress/noise.hpp"
#include "wsstress/stress/scenario.hpp"
#include "wsstress/stress/scenarios.hpp"

namespace wsstress::stress {

using RunFn = Verdict (*)(const RunSpec& spec, std::uint64_t seed);

// The runner of a catalog mutant ("none" for the clean pool), or null.
RunFn find_runner(const std::string& mutant);

// Runs the spec's scenario in `c` and turns how it ended into a verdict: the
// one mapping of a scenario's exceptions, for every engine.
template <class P, class M>
Verdict run_scenario(Ctx<P, M>& c) {
  try {
    if (!Scenarios<P, M>::run(c, c.spec.scenario)) {
      return Verdict{VerdictKind::Internal, "unknown scenario '" + c.spec.scenario + "'", {}};
    }
  } catch (const Thrown& t) {
    return Verdict{VerdictKind::Bug, "an exception thrown by a job (id " + std::to_string(t.id) +
                                         ") escaped to the top of the scenario", {}};
  } catch (const std::exception& e) {
    return Verdict{VerdictKind::Bug, std::string("unexpected exception from the pool: ") + e.what(), {}};
  }
  return c.verdict();
}

template <class M>
Verdict run_one(const RunSpec& spec, std::uint64_t seed) {
  Noise::configure(spec.noise, seed);
  Ctx<NoisyPlatform, M> c(spec, seed);
  return run_scenario(c);
}

}  // namespace wsstress::stress
