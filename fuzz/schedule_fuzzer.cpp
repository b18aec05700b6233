// schedule_fuzzer: the input bytes drive the deterministic simulator - the
// scenario, its sizes and seed, the program (for the program scenario), and
// then every scheduling and store-buffer decision, one byte each - so
// libFuzzer's coverage of the pool's own code (instantiated on SimPlatform)
// steers toward new interleavings of the sleep handshake. The oracle is the
// simulator's: a lost wake-up, a livelock, a broken pool invariant or a failed
// scenario check ends the run with the reproducer, which replays exactly.
// WSSTRESS_FUZZ_MUTANT (default none) puts a historical bug back.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "target_env.hpp"
#include "wsstress/sim/fuzz_input.hpp"

namespace {
std::string g_mutant = "none";
wsstress::sim::SimRunFn g_run = nullptr;
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_mutant = wsstress::fuzz::mutant_from_env("schedule_fuzzer");
  g_run = wsstress::sim::find_sim_runner(g_mutant);  // every catalog mutant has one
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace wsstress;
  const sim::ScheduleInput in = sim::decode_schedule_input(data, size, g_mutant);
  const sim::SimResult r = g_run(in.spec, in.config);
  if (r.verdict.kind == stress::VerdictKind::Pass) return 0;
  std::fprintf(stderr, "\n== wsstress schedule_fuzzer: %s: %s (scenario %s, mutant %s, %s, %llu steps)\n",
               stress::to_string(r.verdict.kind), r.verdict.message.c_str(), in.spec.scenario.c_str(),
               g_mutant.c_str(), sim::to_string(in.config.memory), static_cast<unsigned long long>(r.steps));
  if (!r.verdict.dump.empty()) std::fprintf(stderr, "== state dump:\n%s\n", r.verdict.dump.c_str());
  std::fprintf(stderr, "== convert to a reproducer: wsstress fuzz --target schedule --convert <this input>%s\n",
               g_mutant == "none" ? "" : (" --mutant " + g_mutant).c_str());
  std::fflush(stderr);
  std::abort();
}
