// The runner of mutant `no_sleep_fence` (stress/include/wsstress/stress/catalog.hpp):
// all scenarios over NoisyPlatform with this mutant policy, in a translation
// unit of its own so the mutants compile in parallel.
#include "wsstress/stress/catalog.hpp"
#include "wsstress/stress/runner.hpp"

namespace wsstress::stress {
template Verdict run_one<mutants::NoSleepFence>(const RunSpec&, std::uint64_t);
}  // namespace wsstress::stress
