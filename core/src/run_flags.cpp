// SPDX-License-Identifier: MIT OR Apache-2.0
// The table of the run's flags, its checks, its spelling and the companions'
// parser. See run_flags.hpp. A new shared flag is one row here and its field
// in RunSpec (scenario.hpp); the CLI, the companions, the replay lines, the
// completion and the man page follow from the row.
#include "wsstress/core/run_flags.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "wsstress/core/catalog.hpp"
#include "wsstress/core/scenarios.hpp"
#include "wsstress/core/shown.hpp"

namespace wsstress::core {

namespace {

constexpr unsigned kShape = kRunCommand | kSimCommand | kMatrixCommand | kTsanRunner;

std::vector<std::string> mutant_words() {
  std::vector<std::string> names;
  for (const auto& m : mutant_catalog()) names.push_back(m.name);
  return names;
}

std::string check_mutant(const std::string& v) {
  if (find_mutant(v) != nullptr) return {};
  return "unknown mutant " + shown(v) + " (the names: wsstress mutants list)";
}

std::vector<std::string> scenario_words() { return scenario_names(); }

std::string spell_mutant(const RunSpec& s) { return s.mutant == "none" ? "" : s.mutant; }
std::string spell_input(const RunSpec& s) {
  if (s.input.empty()) return {};
  return s.input_path.empty() ? std::string("<program file>") : s.input_path;
}

std::vector<RunFlag> make_table() {
  using K = FlagKind;
  return {
      {.names = "--scenario",
       .help = "what to run",
       .field = &RunSpec::scenario,
       .takers = kRunCommand | kSimCommand | kTsanRunner | kScheduleFuzzer,
       .words = scenario_words},
      {.names = "--seed", .help = "one seed (default 0)", .takers = kRunCommand | kSimCommand | kTsanRunner},
      {.names = "-s,--seeds",
       .help = "an inclusive seed range A..B, or one seed N",
       .takers = kRunCommand | kSimCommand | kTsanRunner},
      {.names = "-j,--threads",
       .kind = K::Whole,
       .lo = 1,
       .hi = 64,
       .help = "worker threads per pool",
       .field = &RunSpec::threads,
       .takers = kShape},
      {.names = "--pools",
       .kind = K::Whole,
       .lo = 1,
       .hi = 8,
       .help = "pools a scenario may use",
       .field = &RunSpec::pools,
       .takers = kShape},
      {.names = "--iterations",
       .kind = K::Whole,
       .lo = 1,
       .hi = 100000,
       .help = "programs per seed",
       .field = &RunSpec::iterations,
       .takers = kShape,
       .wide_takers = kRunCommand | kTsanRunner,
       .wide_hi = 1000000},
      {.names = "--noise",
       .kind = K::Whole,
       .lo = 0,
       .hi = 3,
       .help = "yields and short sleeps at race windows: 0 off .. 3 heavy",
       .field = &RunSpec::noise,
       .takers = kRunCommand | kMatrixCommand | kTsanRunner},
      {.names = "--hang-timeout",
       .kind = K::Decimal,
       .lo = 0.1,
       .hi = 3600,
       .help = "seconds without progress that make a hang",
       .field = &RunSpec::hang_timeout_s,
       .takers = kRunCommand | kMatrixCommand | kFuzzCommand | kTsanRunner | kProgramFuzzer | kSmokeCommand |
                 kOracleFuzzer | kOracleCommand,
       .wide_takers = kRunCommand | kTsanRunner | kSmokeCommand | kOracleCommand,
       .wide_hi = 86400,
       // Its defaults, the one table of them: a matrix row's 2 s
       // also feeds the row's backstop; smoke's 60 s is for a whole step.
       .defaults = {{kMatrixCommand, 2},
                    {kSmokeCommand, 60},
                    {kRunCommand | kFuzzCommand | kTsanRunner | kProgramFuzzer | kOracleFuzzer | kOracleCommand, 10}}},
      {.names = "--mutant",
       .help = "put a historical bug back (the names: `wsstress mutants list`)",
       .field = &RunSpec::mutant,
       .takers =
           kRunCommand | kSimCommand | kFuzzCommand | kTsanRunner | kProgramFuzzer | kScheduleFuzzer | kOracleFuzzer,
       .words = mutant_words,
       .check = check_mutant,
       .spell = spell_mutant},
      {.names = "--input",
       .kind = K::File,
       .help = "a program file (a program_fuzzer input) for --scenario program",
       .takers = kRunCommand,
       .spell = spell_input},
      {.names = "--max-seconds",
       .kind = K::Decimal,
       .lo = 0,
       .hi = 1e9,
       .help = "time budget (0: none)",
       .takers = kTsanRunner},
  };
}

bool parse_u64(std::string_view t, std::uint64_t& out) {
  if (t.empty()) return false;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  return ec == std::errc() && end == t.data() + t.size();
}

bool digit(char c) { return c >= '0' && c <= '9'; }

// A decimal number as the CLI takes it: [-]D[.D][e[+-]D] or
// [-].D[e[+-]D], decimal digits only: no blanks, no hex (0x10), no '+', no nan/inf.
bool decimal_syntax(std::string_view t) {
  std::size_t i = 0, digits = 0;
  if (i < t.size() && t[i] == '-') ++i;
  for (; i < t.size() && digit(t[i]); ++i) ++digits;
  if (i < t.size() && t[i] == '.') {
    for (++i; i < t.size() && digit(t[i]); ++i) ++digits;
  }
  if (digits == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    const std::size_t exp_start = i;
    while (i < t.size() && digit(t[i])) ++i;
    if (i == exp_start) return false;
  }
  return i == t.size();
}

std::string decimal_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::string_view RunFlag::long_name() const {
  const auto comma = names.rfind(',');
  return comma == std::string_view::npos ? names : names.substr(comma + 1);
}

const std::vector<RunFlag>& run_flags() {
  static const std::vector<RunFlag> table = make_table();
  return table;
}

const RunFlag& run_flag(std::string_view long_name) {
  for (const RunFlag& f : run_flags()) {
    if (f.long_name() == long_name) return f;
  }
  std::fprintf(stderr, "wsstress: internal error: no flag %.*s in the table\n", static_cast<int>(long_name.size()),
               long_name.data());
  std::abort();
}

double default_hang_timeout(unsigned taker) {
  static const RunFlag& row = run_flag("--hang-timeout");
  for (const TakerDefault& d : row.defaults) {
    if ((d.takers & taker) != 0) return d.value;
  }
  std::fprintf(stderr, "wsstress: internal error: no --hang-timeout default for taker %#x\n", taker);
  std::abort();
}

std::string check_whole(const std::string& text, std::uint64_t lo, std::uint64_t hi) {
  const std::string range = "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
  std::uint64_t v = 0;
  if (!parse_u64(text, v)) return shown(text) + " is not " + range;
  if (v < lo || v > hi) return shown(text) + " is out of range: expected " + range;
  return {};
}

std::string check_decimal(const std::string& text, double lo, double hi) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  char range[96];
  std::snprintf(range, sizeof range, "a number from %g to %g", lo, hi);
  if (!decimal_syntax(text) || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v)) {
    return shown(text) + " is not " + range;
  }
  if (v < lo || v > hi) return shown(text) + " is out of range: expected " + range;
  return {};
}

std::string check_flag_value(const RunFlag& f, unsigned taker, const std::string& text) {
  if (f.check != nullptr) return f.check(text);
  switch (f.kind) {
    case FlagKind::Whole:
      return check_whole(text, static_cast<std::uint64_t>(f.lo), static_cast<std::uint64_t>(f.hi_for(taker)));
    case FlagKind::Decimal: return check_decimal(text, f.lo, f.hi_for(taker));
    case FlagKind::File: return text.empty() ? "an empty file name" : "";
    case FlagKind::Word: break;
  }
  if (f.words == nullptr) return {};
  const std::vector<std::string> words = f.words();
  if (std::find(words.begin(), words.end(), text) != words.end()) return {};
  std::string list;
  for (const std::string& w : words) list += (list.empty() ? "" : ", ") + w;
  return shown(text) + " is not one of " + list;
}

std::string spell_flag(const RunFlag& f, const RunSpec& spec) {
  if (f.spell != nullptr) return f.spell(spec);
  return std::visit(
      [&spec](auto field) -> std::string {
        using T = decltype(field);
        if constexpr (std::is_same_v<T, std::monostate>) {
          return {};
        } else {
          const auto& v = spec.*field;
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, std::string>) return v;
          else if constexpr (std::is_same_v<V, double>) return decimal_text(v);
          else return std::to_string(v);
        }
      },
      f.field);
}

std::vector<std::string> run_arguments(const RunSpec& spec, unsigned taker, std::optional<std::uint64_t> seed) {
  std::vector<std::string> out;
  for (const RunFlag& f : run_flags()) {
    if (!f.taken_by(taker)) continue;
    const std::string v = f.long_name() == "--seed" ? (seed ? std::to_string(*seed) : "") : spell_flag(f, spec);
    if (v.empty()) continue;
    out.emplace_back(f.long_name());
    out.push_back(v);
  }
  return out;
}

namespace {
// " --name value" for a flag of the table, "" when the spec leaves it out.
std::string spelled(std::string_view long_name, const RunSpec& spec) {
  const std::string v = spell_flag(run_flag(long_name), spec);
  return v.empty() ? v : " " + std::string(long_name) + " " + v;
}
}  // namespace

std::string fuzz_command(const FuzzCommand& c) {
  std::string cmd = "wsstress fuzz --target " + c.target;
  if (!c.convert.empty()) cmd += " --convert " + c.convert;
  RunSpec spec;
  spec.mutant = c.mutant;
  spec.scenario = c.scenario;
  cmd += spelled("--mutant", spec) + spelled("--scenario", spec);
  if (c.fuzzer_seed != 0) cmd += " --fuzzer-seed " + std::to_string(c.fuzzer_seed);
  if (c.max_seconds != 0) cmd += " --max-seconds " + decimal_text(c.max_seconds);
  return cmd;
}

std::string program_run_command(const std::string& input, const std::string& mutant) {
  RunSpec spec;
  spec.mutant = mutant;
  return "wsstress run --scenario program --input " + input + spelled("--mutant", spec) + " --repeat 1000";
}

std::string oracle_command(const std::string& input, const std::string& mutant) {
  RunSpec spec;
  spec.mutant = mutant;
  return "wsstress oracle --input " + input + spelled("--mutant", spec);
}

std::string repro_replay_command(const std::string& path, bool trace) {
  return "wsstress replay " + path + (trace ? " --trace" : "");
}

Result<std::map<std::string, std::string, std::less<>>> parse_run_flags(const std::vector<std::string>& args,
                                                                        unsigned taker, RunSpec& spec) {
  std::map<std::string, std::string, std::less<>> given;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const auto eq = a.find('=');
    const std::string name = a.substr(0, eq);
    const RunFlag* f = nullptr;
    for (const RunFlag& r : run_flags()) {
      if (r.taken_by(taker) && r.long_name() == name) f = &r;
    }
    if (f == nullptr) return fail("unknown option " + shown(a));
    std::string value;
    if (eq != std::string::npos) {
      value = a.substr(eq + 1);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return fail(name + ": a value is missing");
    }
    if (const std::string why = check_flag_value(*f, taker, value); !why.empty()) return fail(name + ": " + why);
    std::visit(
        [&](auto field) {
          if constexpr (!std::is_same_v<decltype(field), std::monostate>) {
            auto& target = spec.*field;
            using V = std::decay_t<decltype(target)>;
            if constexpr (std::is_same_v<V, std::string>) target = value;
            else if constexpr (std::is_same_v<V, double>) target = std::strtod(value.c_str(), nullptr);
            else target = static_cast<V>(std::strtoull(value.c_str(), nullptr, 10));
          }
        },
        f->field);
    given[name] = value;
  }
  return given;
}

Result<void> check_external_mutant(const RunSpec& spec) {
  if (find_external(spec.scenario) == nullptr || spec.mutant == "none") return {};
  return fail("--mutant: " + shown(spec.scenario) + " is an external program and runs no pool code, so the mutant " +
              shown(spec.mutant) + " would change nothing; drop --mutant");
}

Result<SeedRange> parse_seed_range(const std::string& text) {
  const auto dots = text.find("..");
  std::uint64_t a = 0, b = 0;
  if (dots == std::string::npos) {
    if (!parse_u64(text, a)) {
      return fail(shown(text) + " is not a seed (a number 0..18446744073709551615)");
    }
    return SeedRange{a, a};
  }
  if (!parse_u64(std::string_view(text).substr(0, dots), a) || !parse_u64(std::string_view(text).substr(dots + 2), b)) {
    return fail(shown(text) + " is not a seed range (expected A..B with whole numbers)");
  }
  if (a > b) {
    return fail("seed range " + shown(text) + " is empty (its start is after its end)");
  }
  return SeedRange{a, b};
}

Result<Shard> parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  std::uint64_t i = 0, n = 0;
  if (slash == std::string::npos || !parse_u64(std::string_view(text).substr(0, slash), i) ||
      !parse_u64(std::string_view(text).substr(slash + 1), n)) {
    return fail(shown(text) + " is not a shard (expected I/N, e.g. 0/8)");
  }
  if (n == 0 || i >= n) {
    return fail("shard " + shown(text) + " is out of range (need 0 <= I < N)");
  }
  return Shard{i, n};
}

}  // namespace wsstress::core
