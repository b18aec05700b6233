// The runner of mutant `scope_latch_no_keepalive` (stress/include/wsstress/stress/catalog.hpp):
// all scenarios over NoisyPlatform (real threads) and over SimPlatform (the
// simulator) with this mutant policy, in a translation unit of its own so the
// mutants compile in parallel.
#include "wsstress/stress/catalog.hpp"
#include "wsstress/sim/engine.hpp"
#include "wsstress/stress/runner.hpp"

namespace wsstress::stress {
template Verdict run_one<mutants::ScopeLatchNoKeepAlive>(const RunSpec&, std::uint64_t);
}  // namespace wsstress::stress

namespace wsstress::sim {
template SimResult sim_run_one<stress::mutants::ScopeLatchNoKeepAlive>(const stress::RunSpec&, const SimConfig&);
}  // namespace wsstress::sim
