// The shared command-line pieces. See options.hpp.
#include "options.hpp"
#include "wsstress/shown.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <map>
#include <string_view>
#include <utility>

#include "exit_codes.hpp"
#include "output.hpp"
#include "wsstress/stress/catalog.hpp"
#include "wsstress/stress/scenarios.hpp"

namespace wsstress::cli {

namespace {
bool parse_u64(std::string_view t, std::uint64_t& out) {
  if (t.empty()) return false;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  return ec == std::errc() && end == t.data() + t.size();
}

bool digit(char c) { return c >= '0' && c <= '9'; }

// A decimal number as the CLI takes it (issue #39 item 5): [-]D[.D][e[+-]D] or
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
}  // namespace

int usage_error(const std::string& what) {
  std::fprintf(stderr, "wsstress: error: %s (see --help)\n", bounded_line(what).c_str());
  return kUsage;
}

std::vector<std::string> mutant_names() {
  std::vector<std::string> names;
  for (const auto& m : stress::mutant_catalog()) names.push_back(m.name);
  return names;
}

namespace {
std::map<const CLI::Option*, Completion>& completion_table() {
  static std::map<const CLI::Option*, Completion> table;
  return table;
}
}  // namespace

CLI::Option* completes(CLI::Option* opt, std::function<std::vector<std::string>()> words) {
  completion_table()[opt] = Completion{false, std::move(words)};
  return opt;
}

CLI::Option* completes(CLI::Option* opt, const std::vector<std::string>& words) {
  return completes(opt, std::function<std::vector<std::string>()>([words] { return words; }));
}

CLI::Option* one_of(CLI::Option* opt, const std::vector<std::string>& words) {
  return completes(opt, words)->check(CLI::IsMember(words));
}

CLI::Option* completes_files(CLI::Option* opt) {
  completion_table()[opt] = Completion{true, {}};
  return opt;
}

const Completion* completion_of(const CLI::Option* opt) {
  const auto it = completion_table().find(opt);
  return it == completion_table().end() ? nullptr : &it->second;
}

CLI::Validator finite_range(double lo, double hi) {
  char what[96];
  std::snprintf(what, sizeof what, "NUMBER in [%g - %g]", lo, hi);
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
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
      },
      what);
}

CLI::Validator whole_range(std::uint64_t lo, std::uint64_t hi) {
  const std::string range = "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        std::uint64_t v = 0;
        if (!parse_u64(text, v)) return shown(text) + " is not " + range;
        if (v < lo || v > hi) return shown(text) + " is out of range: expected " + range;
        return {};
      },
      "INT in [" + std::to_string(lo) + " - " + std::to_string(hi) + "]");
}

CLI::Option* add_threads(CLI::App* cmd, std::size_t& threads, std::size_t lo, const char* what) {
  return cmd->add_option("-j,--threads", threads, what)->check(whole_range(lo, kMaxThreads));
}

CLI::Option* add_max_seconds(CLI::App* cmd, double& seconds, const std::string& what, double lo, double hi) {
  return cmd->add_option("--max-seconds", seconds, what)->check(finite_range(lo, hi));
}

CLI::Option* add_hang_timeout(CLI::App* cmd, double& seconds, double hi) {
  return cmd->add_option("--hang-timeout", seconds, "seconds without progress that make a hang")
      ->check(finite_range(0.1, hi));
}

CLI::Option* add_json(CLI::App* cmd, std::string& path, const std::string& what) {
  return cmd->add_option("-o,--json", path, what + "; '-' is stdout")->check(output_path());
}

CLI::Option* add_quiet(CLI::App* cmd, bool& quiet, const std::string& what) {
  return cmd->add_flag("-q,--quiet", quiet, what);
}

// The mutant list is long: the help shows MUTANT and points to the catalog.
CLI::Option* add_mutant(CLI::App* cmd, std::string& mutant) {
  return completes(cmd->add_option("--mutant", mutant, "put a historical bug back (the names: `wsstress mutants list`)"),
                   mutant_names())
      ->check(CLI::Validator(
          [names = mutant_names()](std::string& v) -> std::string {
            if (std::find(names.begin(), names.end(), v) != names.end()) return {};
            return "unknown mutant " + shown(v) + " (the names: wsstress mutants list)";
          },
          "MUTANT"));
}

CLI::Option* add_scenario(CLI::App* cmd, std::string& scenario) {
  return one_of(cmd->add_option("--scenario", scenario, "what to run"), stress::scenario_names());
}

void add_run_shape(CLI::App* cmd, std::size_t& threads, std::size_t& pools, std::size_t& iterations,
                   std::size_t max_iterations) {
  add_threads(cmd, threads);
  cmd->add_option("--pools", pools, "pools a scenario may use")->check(whole_range(1, 8));
  cmd->add_option("--iterations", iterations, "programs per seed")->check(whole_range(1, max_iterations));
}

Result<stress::SeedRange> parse_seed_range(const std::string& text) {
  const auto dots = text.find("..");
  std::uint64_t a = 0, b = 0;
  if (dots == std::string::npos) {
    if (!parse_u64(text, a)) {
      return fail(shown(text) + " is not a seed (a number 0..18446744073709551615)");
    }
    return stress::SeedRange{a, a};
  }
  if (!parse_u64(std::string_view(text).substr(0, dots), a) || !parse_u64(std::string_view(text).substr(dots + 2), b)) {
    return fail(shown(text) + " is not a seed range (expected A..B with whole numbers)");
  }
  if (a > b) {
    return fail("seed range " + shown(text) + " is empty (its start is after its end)");
  }
  return stress::SeedRange{a, b};
}

Result<stress::Shard> parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  std::uint64_t i = 0, n = 0;
  if (slash == std::string::npos || !parse_u64(std::string_view(text).substr(0, slash), i) ||
      !parse_u64(std::string_view(text).substr(slash + 1), n)) {
    return fail(shown(text) + " is not a shard (expected I/N, e.g. 0/8)");
  }
  if (n == 0 || i >= n) {
    return fail("shard " + shown(text) + " is out of range (need 0 <= I < N)");
  }
  return stress::Shard{i, n};
}

void SeedOptions::add_to(CLI::App* cmd) {
  seed_opt = cmd->add_option("--seed", seed, "one seed (default 0)");
  seeds_opt = cmd->add_option("-s,--seeds", seeds, "an inclusive seed range A..B, or one seed N")->excludes(seed_opt);
  shard_opt = cmd->add_option("--shard", shard, "run shard I of N of the seed range (0 <= I < N)");
}

Result<void> SeedOptions::resolve(stress::SeedRange& range, stress::Shard& shard_out) const {
  // Given but empty (an unset shell variable) is refused, not taken as absent
  // (issue #39 item 5: `--seeds ''` ran seed 0 alone, `--shard ''` the whole range).
  for (const auto& [opt, text] : {std::pair{seed_opt, &seed}, {seeds_opt, &seeds}, {shard_opt, &shard}}) {
    if (opt != nullptr && opt->count() > 0 && text->empty()) return fail(opt->get_name() + ": an empty value");
  }
  if (!seeds.empty()) {
    const Result<stress::SeedRange> r = parse_seed_range(seeds);
    if (!r) return fail("--seeds: " + r.error());
    range = *r;
  } else if (!seed.empty()) {
    const Result<stress::SeedRange> r = parse_seed_range(seed);
    if (!r) return fail("--seed: " + r.error());
    if (r->from != r->to) return fail("--seed: " + shown(seed) + " is one seed, not a range");
    range = *r;
  }
  if (!shard.empty()) {
    const Result<stress::Shard> s = parse_shard(shard);
    if (!s) return fail("--shard: " + s.error());
    shard_out = *s;
  }
  // 2^64 seeds in one shard cannot be counted (a sweep would plan none).
  if (range.to - range.from == UINT64_MAX && shard_out.count == 1) {
    return fail("--seeds: " + shown(seeds) + " is 2^64 seeds, more than one sweep can count; end it at "
                "18446744073709551614 or split it with --shard");
  }
  return {};
}

Result<void> read_input(const std::string& path, std::string& scenario, bool scenario_given,
                        std::string& input) {
  if (scenario_given && scenario != "program") {
    return fail("--input: a program file is for --scenario program, not " + shown(scenario));
  }
  scenario = "program";
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {  // a pipe or /dev/stdin is fine
    return fail("--input: " + shown(path) + " is a directory, not a program file");
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    return fail("--input: cannot read " + shown(path) + ": " + std::strerror(errno));
  }
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    input.append(buf, n);
    if (input.size() > 65536) break;
  }
  std::fclose(f);
  if (input.empty()) {
    return fail("--input: " + shown(path) + " is empty");
  }
  if (input.size() > 65536) {
    return fail("--input: " + shown(path) + " is over 64 KiB; a program file is a few hundred bytes");
  }
  return {};
}

}  // namespace wsstress::cli
