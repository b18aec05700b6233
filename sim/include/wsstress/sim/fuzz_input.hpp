// SPDX-License-Identifier: MIT OR Apache-2.0
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
//
// reads_from_fuzzer (reads-from fuzzing, sim/reads_from.hpp): schedule_fuzzer's
// header (bytes 0-9, and for the program scenario its program bytes), then an
// abstract schedule: constraints of 9 bytes each, the read site and the write
// site (site_id, 32-bit little-endian) and a byte whose bit 0 negates it; at
// most kMaxInputConstraints, a partial one ignored. Every decision is the
// reads-from strategy's: a walk from the header's seed, steered toward them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "wsstress/sim/engine.hpp"
#include "wsstress/sim/reads_from.hpp"

namespace wsstress::sim {

core::RunSpec program_input_spec(const std::uint8_t* data, std::size_t size, const std::string& mutant);

struct ScheduleInput {
  core::RunSpec spec;
  SimConfig config;
  std::size_t header_size = 10;  // where the decisions begin (past a program's bytes)
};

// The scenarios schedule_fuzzer draws (byte 0) or can pin: the first list
// (ScenarioInfo::schedule_fuzzed), then every other scenario mixed draws.
const std::vector<std::string>& schedule_fuzz_scenarios();
// `scenario` (one of schedule_fuzz_scenarios(), or empty) pins the scenario:
// byte 0 is then read but not used, so the fuzzer spends every input on it.
// A byte 0 that draws `scenario` (one of schedule_fuzz_scenarios()).
std::uint8_t schedule_scenario_byte(const std::string& scenario);
ScheduleInput decode_schedule_input(const std::uint8_t* data, std::size_t size, const std::string& mutant,
                                    const std::string& scenario = "");

// A reads_from_fuzzer input: its schedule (strategy "reads-from", no
// decision bytes), its header bytes (zeros past the input's end, as decoded)
// and its constraints.
inline constexpr std::size_t kMaxInputConstraints = 64;
struct ReadsFromInput {
  ScheduleInput schedule;
  std::vector<std::uint8_t> header;
  std::vector<ReadsFrom> constraints;
};
ReadsFromInput decode_reads_from_input(const std::uint8_t* data, std::size_t size, const std::string& mutant,
                                       const std::string& scenario = "");
std::vector<std::uint8_t> encode_reads_from_input(const std::vector<std::uint8_t>& header,
                                                  const std::vector<ReadsFrom>& constraints);
// Runs it, steered by its constraints; `walk` gets the pairs seen (and names
// sites through its name_site). The input's config is left unchanged.
SimResult run_reads_from_input(const ReadsFromInput& in, ReadsFromRun& walk);
// RFF's mutation of an input's bytes (reads_from_fuzzer's custom mutator):
// `pairs`' mutation of its flags and constraints (ReadsFromPairs::mutate),
// then a fresh walk seed; byte 0 and a program's bytes are kept.
// `scenario`: the pinned one, as decode_reads_from_input takes it.
std::vector<std::uint8_t> mutate_reads_from_input(const std::uint8_t* data, std::size_t size,
                                                  const std::string& scenario, ReadsFromPairs& pairs, SplitMix64& rng,
                                                  unsigned max_constraints);

// The executions of a program's nodes (leaves, throws and the nodes above
// them) in its sequential run, all callers: the measure of its work that the
// fuzz targets cap. Broadcasts nested in broadcasts multiply a program's work
// by the threads at each level (a leaf under six runs 729 times), and both
// fuzzers drifted to such inputs for their many repeated event pairs.
std::uint64_t program_executions(const std::string& program_bytes);

// Whether schedule_fuzzer skips the input (libFuzzer's -1, "not for the
// corpus") rather than run it: a program of more than kMaxProgramExecutions.
// Their runs took ~77 000 scheduling points against ~2 000 for the other
// scenarios. Larger programs remain program_fuzzer's and
// `wsstress sim --scenario program`'s.
inline constexpr std::uint64_t kMaxProgramExecutions = 64;
bool schedule_input_is_too_long(const ScheduleInput& in);

// Whether program_fuzzer skips the input: a program of more than
// kMaxRealThreadProgramExecutions. On real threads a leaf costs microseconds,
// not scheduling points, so the cap is higher; above it the corpus's runs took
// ten times the time of the rest. `wsstress run --input`
// still runs any program.
inline constexpr std::uint64_t kMaxRealThreadProgramExecutions = 256;
bool program_input_is_too_long(const core::RunSpec& spec);

// The reproducer of a schedule input's run (exact: it records every decision).
Repro schedule_repro(const ScheduleInput& in, const SimResult& r);

// A program input, replayed in the simulator: tries seeds 0..max_seeds-1
// under SC and TSO with the portfolio strategy (each seed its member), and
// returns the first failing run's reproducer, or else the first run's (seed
// 0, SC); `found` says whether one failed.
Repro program_repro(const std::uint8_t* data, std::size_t size, const std::string& mutant, unsigned max_seeds,
                    bool& found);

}  // namespace wsstress::sim
