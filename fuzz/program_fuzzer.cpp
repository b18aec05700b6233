// SPDX-License-Identifier: MIT OR Apache-2.0
// program_fuzzer: the input bytes are a program (stress/program.hpp) over up
// to three pools - joins inside scopes inside cross-pool installs that throw -
// run on real threads by the `program` scenario of the real-thread engine,
// whose oracle compares the result, every leaf's run count and the exceptions
// that arrived with the sequential interpreter. A resident campaign's watchdog
// turns a hang into a crash carrying the same state dump as `wsstress run`.
// A program whose work is too large for this target (program_input_is_too_long)
// is skipped. Its options (target_env.hpp), after -ignore_remaining_args=1:
// --mutant (default none) puts a historical bug back; --hang-timeout (default
// 10) sets the watchdog's seconds.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "target_env.hpp"
#include "wsstress/sim/fuzz_input.hpp"
#include "wsstress/threads/campaign.hpp"

namespace {

// --mutant and --hang-timeout (the rest of the spec comes from each input).
wsstress::core::RunSpec g_options;

std::uint64_t fnv1a(const std::uint8_t* d, std::size_t n) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i < n; ++i) h = (h ^ d[i]) * 0x100000001b3ull;
  return h;
}

[[noreturn]] void report_and_abort(const wsstress::threads::CampaignReport& report, const std::string& program_text) {
  const auto& f = report.failures.back();
  std::fprintf(stderr, "\n== wsstress program_fuzzer: %s: %s\n", wsstress::core::verdict_name(f.verdict.kind),
               f.verdict.message.c_str());
  std::fprintf(stderr, "== program (mutant %s):\n%s", g_options.mutant.c_str(), program_text.c_str());
  if (!f.verdict.dump.empty()) std::fprintf(stderr, "== state dump:\n%s\n", f.verdict.dump.c_str());
  std::fprintf(
      stderr, "== replay on real threads: %s\n== convert: %s\n",
      wsstress::core::program_run_command("<this input>", g_options.mutant).c_str(),
      wsstress::core::fuzz_command({.target = "program", .convert = "<this input>", .mutant = g_options.mutant})
          .c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  wsstress::fuzz::target_options(argc, argv, "program_fuzzer", wsstress::core::kProgramFuzzer, g_options);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace wsstress;
  static std::string program_text;
  // Built at the first input, after the engine installed its crash handlers,
  // so that the campaign's handlers chain to them; it stays up for the process (a
  // watchdog thread per input cost more than most programs' runs).
  static threads::ResidentCampaign campaign("wsstress", [] {
    threads::CampaignHooks hooks;
    hooks.fatal = [](const threads::CampaignReport& r) { report_and_abort(r, program_text); };
    return hooks;
  }());
  core::RunSpec run = sim::program_input_spec(data, size, g_options.mutant);
  if (sim::program_input_is_too_long(run)) return -1;  // not run, not kept in the corpus
  run.hang_timeout_s = g_options.hang_timeout_s;
  {
    core::ByteSource src(reinterpret_cast<const std::uint8_t*>(run.input.data()), run.input.size());
    program_text = core::Program::decode(src).render();
  }
  const threads::CampaignReport report = campaign.run(run, fnv1a(data, size));
  if (!report.failures.empty()) report_and_abort(report, program_text);
  return 0;
}
