// SPDX-License-Identifier: MIT OR Apache-2.0
// The fuzz engines (matrix/src/engines/fuzz.cpp: the matrix's fuzz-program and
// fuzz-schedule columns) and what `wsstress fuzz` (cli/fuzz_cmd.cpp) shares
// with them: running a fuzz target (fuzz/: libFuzzer under the fuzz preset,
// the standalone random driver under g++) as a child process - its command
// line, its start in a process group of its own, following its output to the
// end - and turning a finding's input into a reproducer. The targets are
// programs of their own, below engines/ as the Relacy and TSan runners are.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "wsstress/core/flag_taker.hpp"
#include "wsstress/core/result.hpp"

namespace wsstress::matrix {

struct FuzzOptions {
  std::string target = "schedule";  // program | oracle | schedule | reads_from
  double time_s = 60;
  // program_fuzzer's and oracle_fuzzer's watchdog
  double hang_timeout_s = core::default_hang_timeout(core::kFuzzCommand);
  unsigned jobs = 1;
  std::string mutant = "none";
  std::string scenario;    // schedule, reads_from: pin the scenario (empty: each input's byte 0 picks)
  std::string convert;     // a crash file to turn into a reproducer instead of fuzzing
  std::string repro_path;  // --convert: where (default: FILE.repro)
  std::string fuzz_bin;    // the fuzz targets' folder (default: ../fuzz from this wsstress)
  std::string out_dir = "wsstress-fuzz";
  std::string json_path;
  std::uint64_t runs = 0, seed = 0;
  // --reads-from: reads-from fuzzing in this process (sim/reads_from.hpp)
  // instead of the fuzz target; abstract schedules of at most max_constraints.
  bool reads_from = false;
  unsigned max_constraints = 4;
  bool quiet = false;
  std::string self;
};

// What the fuzzer's output said, and how it ended.
struct FuzzRun {
  std::deque<std::string> tail;            // its last lines, for errors
  std::vector<std::string> verdict_lines;  // the target's own report of a finding
  std::string partial, crash, engine = "libFuzzer (coverage-guided)";
  std::uint64_t execs = 0, cov = 0, exec_per_s = 0, finding_execs = 0;
  bool killed = false;
  bool standalone = false;    // the g++ build's driver: one process, no coverage measured
  int stopped_by_signal = 0;  // we were asked to stop and passed it on to the fuzzer's process group
  int status = 0;
  double secs = 0;

  void read_line(const std::string& line);  // one line of the fuzzer's output
};

// Whether a target's inputs are programs (program_fuzzer, oracle_fuzzer: a
// finding converts as a program), and the name of the seed corpus and
// dictionary it reads (oracle_fuzzer: program_fuzzer's, the same language).
bool takes_programs(const std::string& target);
std::string corpus_name(const std::string& target);

bool is_dir(const std::string& p);
bool is_exec(const std::string& p);
// The fuzz targets' folder when --fuzz-bin is not given: ../fuzz from this wsstress.
std::string default_fuzz_bin(const std::string& self);
// libFuzzer's command line: the working corpus, then the seed corpus, the
// budget, where findings go, the dictionary; then -ignore_remaining_args=1 and
// the target's own options (--mutant, --hang-timeout, --scenario).
std::vector<std::string> fuzzer_args(const FuzzOptions& o, const std::string& bin, const std::string& corpus);
// Starts the target in a process group of its own, its stderr into `fd`; -1 if it cannot.
pid_t start_fuzzer(const std::vector<std::string>& args, int& fd);
// Follows the fuzzer until it ends (or the backstop stops it), with a
// progress line on a terminal; a stop signal is passed on to its group.
FuzzRun watch_fuzzer(const FuzzOptions& o, pid_t pid, int fd);

// A finding's input replayed in the simulator, and the reproducer it makes.
struct Converted {
  bool failing = false;  // the reproducer fails when replayed
  bool crashed = false;  // the replay crashed the process: no reproducer, the crash file is one
  std::string verdict, message, program_text;
  std::string repro;  // the reproducer file's text
};
// The crash file `crash` of o.target (with o.mutant, o.scenario): a
// schedule input replays exactly; a program found on real threads is looked
// for in the simulator (then its replay is exact too). The replay runs in a
// child process, so a pool that crashes is a `crash` finding, not our crash.
Result<Converted> convert_crash(const FuzzOptions& o, const std::string& crash);

}  // namespace wsstress::matrix
