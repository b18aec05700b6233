// SPDX-License-Identifier: MIT OR Apache-2.0
// Decoding of the fuzz targets' inputs and their conversion to reproducers.
#include "wsstress/sim/fuzz_input.hpp"

#include <algorithm>

#include "strategy.hpp"
#include "wsstress/core/program.hpp"
#include "wsstress/core/scenarios.hpp"

namespace wsstress::sim {

core::RunSpec program_input_spec(const std::uint8_t* data, std::size_t size, const std::string& mutant) {
  core::RunSpec spec;
  spec.scenario = "program";
  spec.mutant = mutant;
  spec.iterations = 1;
  spec.noise = 1;
  spec.hang_timeout_s = core::default_hang_timeout(core::kProgramFuzzer);
  // An empty input still names a program: the smallest one.
  spec.input = size == 0 ? std::string(1, '\0') : std::string(reinterpret_cast<const char*>(data), size);
  return spec;
}

namespace {
// Byte 0 below kFirstExtra picks among the first list (schedule_fuzzed, in its
// order: a stored corpus keeps its meaning, its byte 0 being 0-7); from
// kFirstExtra up, among the scenarios mixed draws that came later (
// every oracle reachable, rendezvous included). 248 is a multiple of the
// first list's 8, so both lists are drawn evenly.
constexpr unsigned kFirstExtra = 248;

std::size_t first_list_size() {
  static const std::size_t n = core::scenario_names_where(&core::ScenarioInfo::schedule_fuzzed).size();
  return n;
}

const core::ScenarioInfo* info_of(const std::string& name) {
  for (const core::ScenarioInfo& s : core::kScenarios) {
    if (name == s.name) return &s;
  }
  return nullptr;
}
}  // namespace

const std::vector<std::string>& schedule_fuzz_scenarios() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out = core::scenario_names_where(&core::ScenarioInfo::schedule_fuzzed);
    for (const core::ScenarioInfo& s : core::kScenarios) {
      if (!s.schedule_fuzzed && s.mixed_weight > 0) out.emplace_back(s.name);
    }
    return out;
  }();
  return names;
}

std::uint8_t schedule_scenario_byte(const std::string& scenario) {
  const auto& names = schedule_fuzz_scenarios();
  const std::size_t i = static_cast<std::size_t>(std::find(names.begin(), names.end(), scenario) - names.begin());
  return static_cast<std::uint8_t>(i < first_list_size() ? i : kFirstExtra + (i - first_list_size()));
}

ScheduleInput decode_schedule_input(const std::uint8_t* data, std::size_t size, const std::string& mutant,
                                    const std::string& scenario) {
  auto byte = [&](std::size_t i) -> std::uint8_t { return i < size ? data[i] : 0; };
  ScheduleInput in;
  const auto& names = schedule_fuzz_scenarios();
  const std::size_t first = first_list_size();
  const unsigned b0 = byte(0);
  const std::string& drawn = b0 < kFirstExtra || names.size() == first
                                 ? names[b0 % first]
                                 : names[first + (b0 - kFirstExtra) % (names.size() - first)];
  in.spec.scenario = scenario.empty() ? drawn : scenario;
  in.spec.mutant = mutant;
  const std::uint8_t flags = byte(1);
  in.config.memory = (flags & 0x20) ? MemoryModel::CPP : (flags & 1) ? MemoryModel::TSO : MemoryModel::SC;
  // An oracle that holds only under sequential consistency runs there
  // (ScenarioInfo::sc_oracle), as mixed leaves it out of weak memory.
  if (const core::ScenarioInfo* info = info_of(in.spec.scenario); info != nullptr && info->sc_oracle) {
    in.config.memory = MemoryModel::SC;
  }
  in.spec.threads = 1 + (flags >> 1) % 3;
  in.spec.pools = 2 + (flags >> 3) % 2;
  in.spec.iterations = 1 + (flags >> 4) % 2;
  std::uint64_t seed = 0;
  for (std::size_t i = 0; i < 8; ++i) seed |= static_cast<std::uint64_t>(byte(2 + i)) << (8 * i);
  in.config.seed = seed;
  std::size_t at = 10;
  if (in.spec.scenario == "program") {
    const std::size_t len = std::min<std::size_t>(byte(at), 64);
    ++at;
    for (std::size_t i = 0; i < len; ++i) in.spec.input.push_back(static_cast<char>(byte(at + i)));
    if (in.spec.input.empty()) in.spec.input.push_back('\0');
    at += len;
  }
  in.header_size = at;
  in.config.strategy = StrategyKind::Fuzz;
  if (at < size) in.config.fuzz_bytes.assign(data + at, data + size);
  // A scenario at these sizes finishes in well under a million points; a run
  // that does not is a livelock (or a lost wake-up among polling fibers).
  in.config.step_budget = 2'000'000;
  return in;
}

namespace {
constexpr std::size_t kConstraintBytes = 9;

std::uint32_t le32(const std::uint8_t* p) {
  return p[0] | (static_cast<std::uint32_t>(p[1]) << 8) | (static_cast<std::uint32_t>(p[2]) << 16) |
         (static_cast<std::uint32_t>(p[3]) << 24);
}

void put_le32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
}  // namespace

ReadsFromInput decode_reads_from_input(const std::uint8_t* data, std::size_t size, const std::string& mutant,
                                       const std::string& scenario) {
  ReadsFromInput in;
  in.schedule = decode_schedule_input(data, size, mutant, scenario);
  in.schedule.config.fuzz_bytes.clear();
  in.schedule.config.strategy = kReadsFromStrategy;
  const std::size_t at = in.schedule.header_size;
  for (std::size_t i = 0; i < at; ++i) in.header.push_back(i < size ? data[i] : 0);
  for (std::size_t i = at; i + kConstraintBytes <= size && in.constraints.size() < kMaxInputConstraints;
       i += kConstraintBytes) {
    in.constraints.push_back({le32(data + i), le32(data + i + 4), (data[i + 8] & 1) != 0});
  }
  return in;
}

std::vector<std::uint8_t> encode_reads_from_input(const std::vector<std::uint8_t>& header,
                                                  const std::vector<ReadsFrom>& constraints) {
  std::vector<std::uint8_t> out = header;
  for (const ReadsFrom& c : constraints) {
    put_le32(out, c.read);
    put_le32(out, c.write);
    out.push_back(c.negated ? 1 : 0);
  }
  return out;
}

SimResult run_reads_from_input(const ReadsFromInput& in, ReadsFromRun& walk) {
  walk.constraints = in.constraints;
  SimConfig config = in.schedule.config;
  config.reads_from = &walk;
  return find_sim_runner(in.schedule.spec.mutant)(in.schedule.spec, config);
}

std::vector<std::uint8_t> mutate_reads_from_input(const std::uint8_t* data, std::size_t size,
                                                  const std::string& scenario, ReadsFromPairs& pairs, SplitMix64& rng,
                                                  unsigned max_constraints) {
  ReadsFromInput in = decode_reads_from_input(data, size, "none", scenario);
  AbstractSchedule s{in.header[1], std::move(in.constraints)};
  pairs.mutate(s, rng, max_constraints);
  in.header[1] = s.flags;
  const std::uint64_t seed = rng.next();
  for (int i = 0; i < 8; ++i) in.header[2 + i] = static_cast<std::uint8_t>(seed >> (8 * i));
  return encode_reads_from_input(in.header, s.constraints);
}

std::uint64_t program_executions(const std::string& program_bytes) {
  core::ByteSource src(reinterpret_cast<const std::uint8_t*>(program_bytes.data()), program_bytes.size());
  const core::Program::Expected e = core::Program::decode(src).expected();
  std::uint64_t executions = 0;
  for (const std::uint64_t r : e.runs) executions += r;
  return executions;
}

bool schedule_input_is_too_long(const ScheduleInput& in) {
  return in.spec.scenario == "program" && program_executions(in.spec.input) > kMaxProgramExecutions;
}

bool program_input_is_too_long(const core::RunSpec& spec) {
  return program_executions(spec.input) > kMaxRealThreadProgramExecutions;
}

Repro schedule_repro(const ScheduleInput& in, const SimResult& r) {
  Repro rep;
  rep.spec = in.spec;
  rep.config = in.config;
  rep.config.fuzz_bytes.clear();
  rep.config.forced = r.schedule;
  rep.verdict = core::verdict_name(r.verdict.kind);
  rep.message = r.verdict.message;
  rep.trace_hash = r.trace_hash;
  return rep;
}

Repro program_repro(const std::uint8_t* data, std::size_t size, const std::string& mutant, unsigned max_seeds,
                    bool& found) {
  found = false;
  Repro rep;
  rep.spec = program_input_spec(data, size, mutant);
  rep.spec.noise = 0;
  SimRunFn run = find_sim_runner(mutant);
  if (run == nullptr) return rep;
  // The portfolio picks each seed's member (portfolio.cpp's table), so the
  // seeds cover every member under both memory models.
  for (unsigned seed = 0; seed < max_seeds && !found; ++seed) {
    for (MemoryModel mem : kMemoryModels) {
      SimConfig cfg;
      cfg.seed = seed;
      cfg.memory = mem;
      cfg.strategy = StrategyKind::Portfolio;
      SimResult r = run(rep.spec, cfg);
      const bool failed = r.verdict.kind != core::VerdictKind::Pass;
      // The first run (seed 0, SC) is kept if no run fails.
      if (!failed && !rep.config.forced.empty()) continue;
      rep.config = resolve_strategy(cfg);  // the portfolio's member that ran
      rep.config.forced = r.schedule;
      rep.verdict = core::verdict_name(r.verdict.kind);
      rep.message = r.verdict.message;
      rep.trace_hash = r.trace_hash;
      if (failed) {
        found = true;
        return rep;
      }
    }
  }
  return rep;
}

}  // namespace wsstress::sim
