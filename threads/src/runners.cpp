// SPDX-License-Identifier: MIT OR Apache-2.0
// Name -> runner table (real threads) for the clean pool and every mutant of
// pool/mutants.hpp. A mutant runs as RuntimeMutants (pool/mutant_list.hpp):
// the mutants that share a static part share one instantiation of every
// scenario, compiled here; the simulator's table is sim/runners.cpp, so that
// the ThreadSanitizer runner links this one alone.
#include <map>

#include "wsstress/core/catalog.hpp"
#include "wsstress/pool/mutant_list.hpp"
#include "wsstress/threads/runner.hpp"

namespace wsstress::threads {
namespace {

template <class T>
Verdict run_mutant(const RunSpec& spec, std::uint64_t seed) {
  using M = pool::mutants::RuntimeMutants<pool::mutants::StaticPartOf<T>>;
  M::template select<T>();
  return run_one<M>(spec, seed);
}

}  // namespace

RunFn find_runner(const std::string& mutant) {
#define WSSTRESS_ENTRY(Type, name, ...) {#name, &run_mutant<pool::mutants::Type>},
  static const std::map<std::string, RunFn> runners = {WSSTRESS_POLICIES(WSSTRESS_ENTRY)};
#undef WSSTRESS_ENTRY
  auto it = runners.find(mutant);
  return it == runners.end() ? nullptr : it->second;
}

}  // namespace wsstress::threads
