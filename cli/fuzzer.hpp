// Running a fuzz target (fuzz/: libFuzzer under the fuzz preset, the
// standalone random driver under g++) as a child process: its command line,
// its start in a process group of its own, and following its output to the
// end. `wsstress fuzz` and the matrix's fuzz columns (fuzz_cmd.cpp) run it so.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace wsstress::cli {

struct FuzzOptions {
  std::string target = "schedule";  // program | schedule
  double time_s = 60;
  double hang_timeout_s = 10;        // program_fuzzer's watchdog
  unsigned jobs = 1;
  std::string mutant = "none";
  std::string scenario;              // schedule: pin the scenario (empty: each input's byte 0 picks)
  std::string convert;               // a crash file to turn into a reproducer instead of fuzzing
  std::string repro_path;            // --convert: where (default: FILE.repro)
  std::string fuzz_bin;              // the fuzz targets' folder (default: ../fuzz from this wsstress)
  std::string out_dir = "wsstress-fuzz";
  std::string json_path;
  std::uint64_t runs = 0, seed = 0;
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
  bool standalone = false;  // the g++ build's driver: one process, no coverage measured
  int stopped_by_signal = 0;  // we were asked to stop and passed it on to the fuzzer's process group
  int status = 0;
  double secs = 0;

  void read_line(const std::string& line);  // one line of the fuzzer's output

};

bool is_dir(const std::string& p);
bool is_exec(const std::string& p);
// The fuzz targets' folder when --fuzz-bin is not given: ../fuzz from this wsstress.
std::string default_fuzz_bin(const std::string& self);
// The flag table's taker (stress/run_flags.hpp) of a target: "program" or "schedule".
unsigned target_taker(const std::string& target);
// libFuzzer's command line: the working corpus, then the seed corpus, the
// budget, where findings go, the dictionary; then -ignore_remaining_args=1 and
// the target's own options (--mutant, --hang-timeout, --scenario).
std::vector<std::string> fuzzer_args(const FuzzOptions& o, const std::string& bin, const std::string& corpus);
// Starts the target in a process group of its own, its stderr into `fd`; -1 if it cannot.
pid_t start_fuzzer(const FuzzOptions& o, const std::vector<std::string>& args, int& fd);
// Follows the fuzzer until it ends (or the backstop stops it), with a
// progress line on a terminal; a stop signal is passed on to its group.
FuzzRun watch_fuzzer(const FuzzOptions& o, pid_t pid, int fd);

}  // namespace wsstress::cli
