// SPDX-License-Identifier: MIT OR Apache-2.0
// One run: a scenario, for one seed, over the pool instantiated with
// NoisyPlatform and mutant policy M. A mutant runs as RuntimeMutants: the
// mutants sharing a static part share one instantiation (runners.cpp, its
// table generated from pool/mutants.hpp); RunFn points at one entry.
#pragma once

#include <cstdint>
#include <exception>
#include <string>

#include "wsstress/core/scenario.hpp"
#include "wsstress/core/scenarios.hpp"
#include "wsstress/threads/noise.hpp"

namespace wsstress::threads {

// The real-thread engine speaks core's vocabulary: specs, verdicts, seeds, dumps.
using namespace core;

using RunFn = Verdict (*)(const RunSpec& spec, std::uint64_t seed);

// The runner of a catalog mutant ("none" for the clean pool), or null.
RunFn find_runner(const std::string& mutant);

template <class M>
Verdict run_one(const RunSpec& spec, std::uint64_t seed) {
  Noise::configure(spec.noise, seed);
  Ctx<NoisyPlatform, M> c(spec, seed);
  return run_scenario(c);
}

}  // namespace wsstress::threads
