// The mutant catalog: rayon-core's real historical concurrency bugs (and a few
// of their near relatives), each a policy that flips one switch of
// pool/mutants.hpp, with its name, its upstream history, the failure it
// causes, the scenario that exposes it fastest and what every engine is
// expected to do with it. The records are written once, in WSSTRESS_MUTANTS
// (pool/mutants.hpp); `none` is the clean pool.
#pragma once

#include <string>
#include <vector>

#include "wsstress/pool/mutant_list.hpp"
#include "wsstress/stress/failure_kind.hpp"

namespace wsstress::stress {

// The policy types (pool/mutant_list.hpp, from the same list), under the name the tools use.
namespace mutants = pool::mutants;

// What the real-thread engine is expected to do with a mutant.
enum class Expect {
  Catch,   // must be caught within the budget
  Maybe,   // reachable but rare, or only seen in some builds (e.g. under ASan)
  Cannot,  // not reachable on this hardware (say why in `stress`)
  Pass,    // the clean pool and negative controls: must never fail
};

struct MutantInfo {
  std::string name;
  std::string history;   // upstream commit / PR
  std::string failure;   // what goes wrong
  std::string scenario;  // the scenario that exposes it fastest
  std::string stress;    // what the real-thread engine can do with it
  Expect stress_expect = Expect::Catch;
  bool negative_control = false;  // expected harmless
  Expect sim_sc_expect = Expect::Maybe;   // the simulator's PCT sweep, SC and TSO
  Expect sim_tso_expect = Expect::Maybe;
  // The simulator's C++ memory model (`--memory cpp`, issue #37); the clean
  // pool and negative controls must pass it whatever this says.
  Expect sim_cpp_expect = Expect::Maybe;
  // The Relacy models' verdict on it (relacy/'s model table has the per-model
  // detail and the reasons): Cannot when no model targets it.
  Expect relacy_expect = Expect::Cannot;
  // The scenarios on real threads under ThreadSanitizer (`--engine tsan`):
  // Maybe unless measured; the clean pool and negative controls must pass.
  Expect tsan_expect = Expect::Maybe;
  // The failures it may show when caught: a catch of
  // another kind is "not as expected" in `mutants check` and `relacy --mutant all`.
  FailureKinds kinds = 0;
};

const std::vector<MutantInfo>& mutant_catalog();
const MutantInfo* find_mutant(const std::string& name);

}  // namespace wsstress::stress
