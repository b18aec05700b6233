// SPDX-License-Identifier: MIT OR Apache-2.0
// Name -> runner table (the simulator) for the clean pool and every mutant of
// pool/mutants.hpp, each run as RuntimeMutants (pool/mutant_list.hpp) as in
// ../runners.cpp: one instantiation of every scenario per static part.
#include <map>

#include "wsstress/core/catalog.hpp"
#include "wsstress/pool/mutant_list.hpp"
#include "wsstress/sim/engine.hpp"

namespace wsstress::sim {
namespace {

template <class T>
SimResult sim_run_mutant(const core::RunSpec& spec, const SimConfig& config) {
  using M = pool::mutants::RuntimeMutants<pool::mutants::StaticPartOf<T>>;
  M::template select<T>();
  return sim_run_one<M>(spec, config);
}

}  // namespace

SimRunFn find_sim_runner(const std::string& mutant) {
#define WSSTRESS_ENTRY(Type, name, ...) {#name, &sim_run_mutant<pool::mutants::Type>},
  static const std::map<std::string, SimRunFn> runners = {WSSTRESS_POLICIES(WSSTRESS_ENTRY)};
#undef WSSTRESS_ENTRY
  auto it = runners.find(mutant);
  return it == runners.end() ? nullptr : it->second;
}

}  // namespace wsstress::sim
