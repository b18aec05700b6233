// SPDX-License-Identifier: MIT OR Apache-2.0
// The flags that shape a run, defined once. Each row of
// run_flags() names a flag, its kind and range, its help, the RunSpec field it
// sets (whose initializer is its default; the hang timeout's defaults differ
// by taker and are the row's own) and who takes it. Everything else
// reads the table: `wsstress`'s CLI11 options (cli/options.cpp, and through
// them the man page and the completions), the one parser of the companions
// (parse_run_flags: wsstress-tsan, the fuzz targets, which read their options
// after libFuzzer's `-ignore_remaining_args=1`), and every command line the
// tool spells for a run (run_arguments, replay_command). The number checks
// (check_flag_value) are the CLI's validators' too, so the messages agree.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "wsstress/core/flag_taker.hpp"
#include "wsstress/core/result.hpp"
#include "wsstress/core/scenario.hpp"
#include "wsstress/core/sweep.hpp"

namespace wsstress::core {

enum class FlagKind {
  Word,     // one of words() (or any text when words is null)
  Whole,    // digits only, in [lo, hi]
  Decimal,  // a finite decimal number in [lo, hi]
  File,     // a file name
};

// A default that differs by taker: `value` for the takers in `takers`.
struct TakerDefault {
  unsigned takers = 0;  // FlagTaker bits
  double value = 0;
};

// The RunSpec field a row sets; monostate: the taker binds it itself (the
// seeds, the budget, the program file).
using FlagField =
    std::variant<std::monostate, std::string RunSpec::*, std::size_t RunSpec::*, int RunSpec::*, double RunSpec::*>;

struct RunFlag {
  std::string_view names;  // CLI11's spelling: "-j,--threads"; the last one is the long name
  FlagKind kind = FlagKind::Word;
  double lo = 0, hi = 0;  // Whole and Decimal
  std::string_view help;
  FlagField field{};
  unsigned takers = 0;  // FlagTaker bits
  // Word: the values it takes (its check, and the completion's words).
  std::vector<std::string> (*words)() = nullptr;
  // A check of its own (the mutant's message names `wsstress mutants list`):
  // "" when `text` is fine, else why not.
  std::string (*check)(const std::string& text) = nullptr;
  // How a command line spells it from a spec; "" leaves it out (--mutant
  // none). Null: the field's value ("%g" for decimals), left out when empty.
  std::string (*spell)(const RunSpec& spec) = nullptr;
  // A wider range for some takers (a day-long hang timeout on `run`).
  unsigned wide_takers = 0;
  double wide_hi = 0;
  // Defaults by taker, for a row whose default differs by command (the hang
  // timeout: default_hang_timeout); empty: the bound variable's own.
  std::vector<TakerDefault> defaults{};

  std::string_view long_name() const;  // "--threads"
  double hi_for(unsigned taker) const { return (wide_takers & taker) != 0 ? wide_hi : hi; }
  bool taken_by(unsigned taker) const { return (takers & taker) != 0; }
};

// Every flag, in the order command lines spell them.
const std::vector<RunFlag>& run_flags();
// The row of a long name ("--hang-timeout"); the program ends on a name the
// table lacks (a typo in the code, not a user's mistake).
const RunFlag& run_flag(std::string_view long_name);

// "" when `text` is a value `f` takes for `taker`, else why not (without the
// flag's name): "'nan' is not a number from 0.1 to 3600".
std::string check_flag_value(const RunFlag& f, unsigned taker, const std::string& text);
// The number checks alone, for options outside the table.
std::string check_whole(const std::string& text, std::uint64_t lo, std::uint64_t hi);
std::string check_decimal(const std::string& text, double lo, double hi);

// The value of `f` in `spec` as a command line spells it ("" when it is left out).
std::string spell_flag(const RunFlag& f, const RunSpec& spec);
// The flags `taker` takes, spelled from `spec` ("--threads", "2", ...), in the
// table's order; `seed` fills the --seed row (absent: left out).
std::vector<std::string> run_arguments(const RunSpec& spec, unsigned taker,
                                       std::optional<std::uint64_t> seed = std::nullopt);

// `wsstress fuzz`'s command line, spelled here once for the matrix's replay
// of a fuzz row (matrix/src/engines/fuzz.cpp) and the fuzz targets' hint to convert
// a finding (fuzz/); --mutant as the table spells it (none left out). In
// this order, each left out when empty or 0.
struct FuzzCommand {
  std::string target{};           // --target program | schedule | oracle | reads_from
  std::string convert{};          // --convert FILE
  std::string mutant = "none";    // --mutant
  std::string scenario{};         // --scenario (schedule: the pinned one)
  std::uint64_t fuzzer_seed = 0;  // --fuzzer-seed
  double max_seconds = 0;         // --max-seconds
};
std::string fuzz_command(const FuzzCommand& c);
// The real-thread run of a program file, many times over (a program
// finding's other replay; `wsstress fuzz` and program_fuzzer print it):
// `wsstress run --scenario program --input FILE [--mutant M] --repeat 1000`.
std::string program_run_command(const std::string& input, const std::string& mutant);
// A program file run on the port and on rayon-core and compared (an oracle
// finding's replay; `wsstress oracle` and oracle_fuzzer print it):
// `wsstress oracle --input FILE [--mutant M]`.
std::string oracle_command(const std::string& input, const std::string& mutant);
// The replay of a simulator reproducer: `wsstress replay FILE [--trace]`
// (the reports of `sim`, `fuzz` and `report merge`).
std::string repro_replay_command(const std::string& path, bool trace = false);

// An external program (--scenario ext_*) runs no pool code, so a pool mutant
// would change nothing: --mutant with one is a usage error (wsstress run and
// sim, wsstress-tsan).
Result<void> check_external_mutant(const RunSpec& spec);

// The companions' parser: `args` ("--name VALUE" or "--name=VALUE") for the
// rows `taker` takes. Sets the RunSpec fields; returns the text of every flag
// given (by long name), for the rows the taker binds itself. An error names
// the flag: "--noise: '9' is out of range: expected a whole number from 0 to 3".
Result<std::map<std::string, std::string, std::less<>>> parse_run_flags(const std::vector<std::string>& args,
                                                                        unsigned taker, RunSpec& spec);

// "A..B" (inclusive) or "N"; "I/N" with 0 <= I < N.
Result<SeedRange> parse_seed_range(const std::string& text);
Result<Shard> parse_shard(const std::string& text);

}  // namespace wsstress::core
