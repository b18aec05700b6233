// SPDX-License-Identifier: MIT OR Apache-2.0
// Who takes a flag of the run's table (run_flags.hpp), and the one default
// that differs by taker: the hang timeout's, kept in the table's
// --hang-timeout row. Here, below RunSpec (scenario.hpp), so that its
// hang_timeout_s takes its default from that row too.
#pragma once

namespace wsstress::core {

// Who takes a flag: a subcommand of `wsstress` or a companion program.
enum FlagTaker : unsigned {
  kRunCommand = 1u << 0,      // wsstress run, and its replay lines
  kSimCommand = 1u << 1,      // wsstress sim
  kMatrixCommand = 1u << 2,   // wsstress mutants check: the matrix's base run
  kFuzzCommand = 1u << 3,     // wsstress fuzz
  kTsanRunner = 1u << 4,      // wsstress-tsan run
  kProgramFuzzer = 1u << 5,   // fuzz/program_fuzzer
  kScheduleFuzzer = 1u << 6,  // fuzz/schedule_fuzzer
  kSmokeCommand = 1u << 7,    // wsstress smoke
  kOracleFuzzer = 1u << 8,    // fuzz/oracle_fuzzer
  kOracleCommand = 1u << 9,   // wsstress oracle
};

// --hang-timeout's default for `taker` (one FlagTaker bit), from the row's
// per-taker defaults (run_flags.cpp); the program ends on a taker the row
// gives none (a mistake in the code).
double default_hang_timeout(unsigned taker);

}  // namespace wsstress::core
