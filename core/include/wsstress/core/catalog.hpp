// SPDX-License-Identifier: MIT OR Apache-2.0
// The mutant catalog: rayon-core's real historical concurrency bugs (and a few
// of their near relatives), each a policy that flips one switch of
// pool/mutants.hpp, with its name, its upstream history, the failure it
// causes, the scenario that exposes it fastest and the failures a catch may
// show. The records are written once, in WSSTRESS_MUTANTS (pool/mutants.hpp);
// `none` is the clean pool. What each engine expects of a mutant is not here:
// it lives with the engine (engines/), keyed by MutantId.
#pragma once

#include <cstddef>
#include <iterator>
#include <string>
#include <vector>

#include "wsstress/core/failure_kind.hpp"
#include "wsstress/pool/mutant_list.hpp"

namespace wsstress::core {

// The policy types (pool/mutant_list.hpp, from the same list), under the name the tools use.
namespace mutants = pool::mutants;

// A mutant's place in the list (the clean pool first): one enumerator per
// entry, spelled as its name, so that a table keyed by it fails to compile on
// a name the list does not have, and a table indexed by it can be checked
// against kMutantCount.
enum class MutantId : std::size_t {
#define WSSTRESS_MUTANT_ID(Type, name, ...) name,
  WSSTRESS_POLICIES(WSSTRESS_MUTANT_ID)
#undef WSSTRESS_MUTANT_ID
};
inline constexpr std::size_t kMutantCount = std::size(mutants::kPolicyNames);

struct MutantInfo {
  std::string name;
  MutantId id = MutantId::none;
  std::string history;            // upstream commit / PR
  std::string failure;            // what goes wrong
  std::string scenario;           // the scenario that exposes it fastest
  bool negative_control = false;  // expected harmless
  // The failures it may show when caught: a catch of
  // another kind is "not as expected" in `mutants check` and `relacy --mutant all`.
  FailureKinds kinds = 0;
  // The clean pool or a negative control: every engine must pass it.
  bool harmless() const { return id == MutantId::none || negative_control; }
};

const std::vector<MutantInfo>& mutant_catalog();
const MutantInfo* find_mutant(const std::string& name);

}  // namespace wsstress::core
