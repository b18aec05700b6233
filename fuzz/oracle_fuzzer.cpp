// SPDX-License-Identifier: MIT OR Apache-2.0
// oracle_fuzzer: the differential fuzz target. The input bytes are
// a program, decoded exactly as program_fuzzer decodes them (and skipped when
// program_input_is_too_long), run on rayon-core 1.10.1 and on the port, and
// their canonical logs compared as `wsstress oracle` compares them
// (stress/oracle.hpp). rayon-core runs in one child process kept alive across
// inputs (RayonChild: the runner's --serve mode, restarted after a hang or a
// crash); the port in this process, under a watchdog. A difference, a hang or
// a crash of either side, or a port that disagrees with the sequential
// interpreter, is a crash of this target, reported with the program, both
// logs and the replay line. Its options (target_env.hpp), after
// -ignore_remaining_args=1: --mutant (default none) runs the port with a
// catalog mutant; --hang-timeout (default 10) is either side's limit; and a
// test hook, --test-fault NAME: a wrong port (oracle::wrong_port_test_faults())
// or a wrong or hanging rayon-core (oracle::rayon_test_faults()) that the
// comparison must catch.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "target_env.hpp"
#include "wsstress/oracle/oracle.hpp"
#include "wsstress/sim/fuzz_input.hpp"

namespace {

using namespace wsstress;

core::RunSpec g_options;  // --mutant, --hang-timeout
core::WrongPort g_wrong = core::WrongPort::None;
std::unique_ptr<oracle::RayonChild> g_rayon;

[[noreturn]] void report_and_abort(const std::string& what, const core::Program& prog, const std::string& body) {
  std::fprintf(stderr, "\n== wsstress oracle_fuzzer: %s\n", what.c_str());
  std::fprintf(stderr, "== program (mutant %s):\n%s", g_options.mutant.c_str(), prog.render().c_str());
  std::fprintf(stderr, "%s", body.c_str());
  std::fprintf(stderr, "== replay on both: %s\n", core::oracle_command("<this input>", g_options.mutant).c_str());
  std::fflush(stderr);
  std::abort();
}

std::string indented(const std::string& text) {
  std::string out;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t nl = text.find('\n', at);
    const std::size_t end = nl == std::string::npos ? text.size() : nl + 1;
    out += "   " + text.substr(at, end - at);
    at = end;
  }
  return out;
}

// Takes `--test-fault NAME` out of the target's options (it is no flag of
// the table); returns NAME, or "".
std::string take_test_fault(int* argc, char*** argv) {
  std::string fault;
  if (argc == nullptr || argv == nullptr) return fault;
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    if (std::string((*argv)[i]) == "--test-fault" && i + 1 < *argc) {
      fault = (*argv)[++i];
      continue;
    }
    (*argv)[out++] = (*argv)[i];
  }
  *argc = out;
  return fault;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  const std::string fault = take_test_fault(argc, argv);
  g_wrong = oracle::wrong_port(fault);
  if (!fault.empty() && oracle::rayon_hook(fault).empty() && g_wrong == core::WrongPort::None) {
    std::fprintf(stderr, "oracle_fuzzer: --test-fault: unknown test fault '%s'\n", fault.c_str());
    std::exit(2);
  }
  fuzz::target_options(argc, argv, "oracle_fuzzer", core::kOracleFuzzer, g_options);
  g_rayon = std::make_unique<oracle::RayonChild>(oracle::rayon_runner(), oracle::rayon_hook(fault));
  // A missing runner stops the target here, with one line and exit 3, before
  // libFuzzer watches for exits (an exit during an input is a crash to it).
  if (access(g_rayon->runner().c_str(), X_OK) != 0) {
    std::fprintf(stderr, "oracle_fuzzer: %s\n", g_rayon->run("", 1).detail.c_str());
    std::exit(3);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const core::RunSpec run = sim::program_input_spec(data, size, g_options.mutant);
  if (sim::program_input_is_too_long(run)) return -1;  // not run, not kept in the corpus
  core::ByteSource src(reinterpret_cast<const std::uint8_t*>(run.input.data()), run.input.size());
  const core::Program prog = core::Program::decode(src);
  const double limit = g_options.hang_timeout_s;
  const oracle::SideRun rayon = g_rayon->run(run.input, limit);
  switch (rayon.status) {
    case oracle::SideStatus::Unavailable:
      std::fprintf(stderr, "oracle_fuzzer: %s\n", rayon.detail.c_str());
      std::exit(3);
    case oracle::SideStatus::Hang: report_and_abort("rayon-core hangs", prog, "== " + rayon.detail + "\n");
    case oracle::SideStatus::Crash: report_and_abort("rayon-core's run crashed", prog, "== " + rayon.detail + "\n");
    case oracle::SideStatus::Ok: break;
  }
  const std::string rayon_log = "== rayon-core log:\n" + indented(oracle::log_text(rayon.facts));
  const oracle::PortRun port = oracle::run_port(
      run.input, limit,
      [&](const std::string& dump) {
        report_and_abort("the port hangs", prog, rayon_log + "== port state:\n" + dump + "\n");
      },
      false, g_options.mutant, g_wrong);
  const auto port_facts = oracle::canonical(prog, port.run.facts, true);
  const auto rayon_facts = oracle::canonical(prog, rayon.facts, false);
  const std::vector<oracle::LogDifference> diffs = oracle::compare_logs(port_facts, rayon_facts);
  if (diffs.empty() && port.sequential.empty()) return 0;
  std::string body =
      port.sequential.empty() ? "" : "== the port disagrees with the sequential interpreter: " + port.sequential + "\n";
  body += "== differences (canonical fact: port / rayon-core):\n";
  for (const auto& d : diffs)
    body += "   " + d.fact + ": " + std::to_string(d.port) + " / " + std::to_string(d.rayon) + "\n";
  body += "== port log (canonical):\n" + indented(oracle::log_text(port_facts)) + "== rayon-core log (canonical):\n" +
          indented(oracle::log_text(rayon_facts));
  report_and_abort(diffs.empty() ? "the port disagrees with the sequential interpreter"
                                 : "the port and rayon-core 1.10.1 differ",
                   prog, body);
}
