// How the fuzz targets (fuzz/) read their input bytes, shared with the
// `wsstress fuzz` and `wsstress replay` commands so that a crash file found by
// libFuzzer, ClusterFuzzLite or OSS-Fuzz converts to a reproducer here.
//
// program_fuzzer: the whole input is a program (stress/program.hpp), run on
// real threads by the `program` scenario.
//
// schedule_fuzzer: a small header, then the decisions of the simulator:
//   byte 0      the scenario (join inject cross terminate scope broadcast
//               exception program), modulo 8
//   byte 1      bit 5: the C++ memory model, else bit 0: x86-TSO, else SC;
//               (b >> 1) % 3: workers - 1;
//               (b >> 3) % 2: pools - 2; (b >> 4) % 2: iterations - 1
//   bytes 2-9   the seed (little-endian): program shapes, and decisions once
//               the input's bytes run out
//   program     only for the program scenario: a length byte L (at most 64),
//               then L bytes of program
//   the rest    the decisions (StrategyKind::Fuzz, strategies/fuzz.cpp): a
//               mode byte M, then for M even one byte per decision, for M
//               odd (M >> 1) % 8 PCT change points (16-bit step numbers,
//               little-endian)
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "wsstress/sim/engine.hpp"

namespace wsstress::sim {

stress::RunSpec program_input_spec(const std::uint8_t* data, std::size_t size, const std::string& mutant);

struct ScheduleInput {
  stress::RunSpec spec;
  SimConfig config;
};

// The scenarios schedule_fuzzer draws (byte 0) or can pin: the first list
// (ScenarioInfo::schedule_fuzzed), then every other scenario mixed draws.
const std::vector<std::string>& schedule_fuzz_scenarios();
// `scenario` (one of schedule_fuzz_scenarios(), or empty) pins the scenario:
// byte 0 is then read but not used, so the fuzzer spends every input on it.
ScheduleInput decode_schedule_input(const std::uint8_t* data, std::size_t size, const std::string& mutant,
                                    const std::string& scenario = "");

// The executions of a program's nodes (leaves, throws and the nodes above
// them) in its sequential run, all callers: the measure of its work that the
// fuzz targets cap. Broadcasts nested in broadcasts multiply a program's work
// by the threads at each level (a leaf under six runs 729 times), and both
// fuzzers drifted to such inputs for their many repeated event pairs.
std::uint64_t program_executions(const std::string& program_bytes);

// Whether schedule_fuzzer skips the input (libFuzzer's -1, "not for the
// corpus") rather than run it: a program of more than kMaxProgramExecutions.
// Their runs took ~77 000 scheduling points against ~2 000 for the other
// scenarios (issue #19 point 2). Larger programs remain program_fuzzer's and
// `wsstress sim --scenario program`'s.
inline constexpr std::uint64_t kMaxProgramExecutions = 64;
bool schedule_input_is_too_long(const ScheduleInput& in);

// Whether program_fuzzer skips the input: a program of more than
// kMaxRealThreadProgramExecutions. On real threads a leaf costs microseconds,
// not scheduling points, so the cap is higher; above it the corpus's runs took
// ten times the time of the rest (issue #19 point 2). `wsstress run --input`
// still runs any program.
inline constexpr std::uint64_t kMaxRealThreadProgramExecutions = 256;
bool program_input_is_too_long(const stress::RunSpec& spec);

// The reproducer of a schedule input's run (exact: it records every decision).
Repro schedule_repro(const ScheduleInput& in, const SimResult& r);

// A program input, replayed in the simulator: tries seeds 0..max_seeds-1
// under SC and TSO with the portfolio strategy (each seed its member), and
// returns the first failing run's reproducer, or else the first run's (seed
// 0, SC); `found` says whether one failed.
Repro program_repro(const std::uint8_t* data, std::size_t size, const std::string& mutant, unsigned max_seeds,
                    bool& found);

}  // namespace wsstress::sim
