// SPDX-License-Identifier: MIT OR Apache-2.0
// The rayon-core oracle: one program (program.hpp) run on the port
// and on real rayon-core 1.10.1, and their canonical logs (program_log.hpp)
// compared. rayon-core runs in a child process, the runner built from
// stress/rayon-oracle with cargo (wsstress-rayon-oracle beside wsstress), fed
// the program's bytes on stdin and killed when it passes the time limit; the
// port runs in this process on the production platform (StdPlatform, no
// mutant) under a watchdog. Both sides' logs are brought to one spelling -
// the documented deviations (kDeviations) and the program's classes of
// interchangeable exceptions - before they are compared.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "wsstress/core/program.hpp"
#include "wsstress/core/program_log.hpp"
#include "wsstress/core/result.hpp"

namespace wsstress::oracle {

// The oracle speaks core's vocabulary: programs, their logs, verdicts.
using namespace core;

// A documented difference between the port and rayon-core that is not a bug:
// a port fact containing `port` reads as the rayon-core fact with `rayon` in
// its place. Each has a test (oracle/tests/test_oracle.cpp).
struct Deviation {
  const char* name;
  const char* port;
  const char* rayon;
  const char* why;
};
const std::vector<Deviation>& deviations();

// A time limit as the findings say it: "2 s", "0.5 s".
std::string seconds_text(double s);

// "FACT xN" lines, sorted; and back (an error names the bad line).
std::string log_text(const ProgramLog::Facts& facts);
Result<ProgramLog::Facts> parse_log(const std::string& text);

// A side's facts in the comparison's spelling: the deviations applied (port
// side), and each escaping exception's id replaced by its class in `prog`
// ("#3|#7": a scope may rethrow either), counts of merged facts added.
ProgramLog::Facts canonical(const Program& prog, const ProgramLog::Facts& facts, bool port_side);

// Facts whose counts differ between the canonical logs (0: absent).
struct LogDifference {
  std::string fact;
  std::uint64_t port = 0, rayon = 0;
};
std::vector<LogDifference> compare_logs(const ProgramLog::Facts& port, const ProgramLog::Facts& rayon);

// How one side's run ended.
enum class SideStatus { Ok, Hang, Crash, Unavailable };
struct SideRun {
  SideStatus status = SideStatus::Ok;
  ProgramLog::Facts facts;
  std::string detail;  // a crash's or an unusable runner's message; a hang's dump
  double seconds = 0;
};

// The rayon-core runner: the environment's WSSTRESS_RAYON_ORACLE, else
// wsstress-rayon-oracle beside this program (companion.hpp), else where a
// fuzz target in the build tree or the installed layout finds it.
std::string rayon_runner();

// Runs `bytes` on rayon-core in a child process of `runner`, killed after
// `timeout_s` (a hang). `hook`: one of the runner's test hooks ("--hang",
// "--fifo-as-lifo", "--broadcast-skips-one"; oracle/rayon-oracle/src/main.rs),
// or none.
SideRun run_rayon(const std::string& runner, const std::string& bytes, double timeout_s, const std::string& hook = "");

// rayon-core's runner kept alive across programs (`--serve`, its
// length-prefixed protocol: oracle/rayon-oracle/src/main.rs), so that a
// program costs its run and not a process start: the differential fuzz
// target's and `wsstress oracle`'s way. The child starts at the first
// program; a hang kills it and a crash ends it, and the next program starts
// a new one. `hook` as run_rayon's.
class RayonChild {
 public:
  explicit RayonChild(std::string runner, std::string hook = "") : runner_(std::move(runner)), hook_(std::move(hook)) {}
  RayonChild(const RayonChild&) = delete;
  RayonChild& operator=(const RayonChild&) = delete;
  ~RayonChild() { stop(); }
  SideRun run(const std::string& bytes, double timeout_s);
  // Children started so far (1 + the hangs and crashes it restarted after).
  std::uint64_t starts() const { return starts_; }
  const std::string& runner() const { return runner_; }

 private:
  std::string start();  // "" or why not
  int stop();           // kills the child, if any, and reaps it: its wait status
  std::string runner_, hook_;
  int pid_ = -1, in_ = -1, out_ = -1, err_ = -1;
  std::uint64_t starts_ = 0;
};

// The runner's hook a `--test-fault` name asks for ("rayon-hang": "--hang",
// "rayon-fifo-as-lifo", "rayon-broadcast-skips-one"), "" for any other; and
// the names.
std::string rayon_hook(const std::string& test_fault);
const std::vector<std::string>& rayon_test_faults();
// The wrong port a `--test-fault` name asks for ("port-broadcast-skips-one",
// "port-fifo-as-lifo": program_log.hpp's WrongPort), None for any other; and
// the names.
WrongPort wrong_port(const std::string& test_fault);
const std::vector<std::string>& wrong_port_test_faults();

// Runs `bytes` on the port in this process: the production pool
// (StdPlatform, NoMutants), or with `mutant` (a catalog name) that mutant's
// pool on the same platform. A hang (no end within `timeout_s`) cannot be
// recovered from - the pool's threads are stuck - so it goes to `on_hang`
// with the state dump, which must not return; so does a mutant that crashes
// the process, which ends it. Test hooks: `hang` blocks before running;
// `wrong` runs a wrong port of the program (WrongPort). A disagreement with
// the sequential interpreter is returned in `sequential` (empty: none).
struct PortRun {
  SideRun run;
  std::string sequential;
};
PortRun run_port(const std::string& bytes, double timeout_s,
                 const std::function<void(const std::string& dump)>& on_hang, bool hang = false,
                 const std::string& mutant = "none", WrongPort wrong = WrongPort::None);
// Whether run_port knows `mutant` ("none" included).
bool port_has_mutant(const std::string& mutant);

// The bytes of the program seed `seed` generates: Program::decode over
// SplitMix64(seed), its choices recorded, so the file decodes to it again.
std::string seed_program_bytes(std::uint64_t seed);

}  // namespace wsstress::oracle
