// SPDX-License-Identifier: MIT OR Apache-2.0
// The shared command-line pieces. See options.hpp.
#include "options.hpp"
#include "wsstress/core/shown.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "exit_codes.hpp"
#include "output.hpp"
#include "wsstress/core/catalog.hpp"
#include "wsstress/core/scenarios.hpp"

namespace wsstress::cli {

int usage_error(const std::string& what) {
  std::fprintf(stderr, "wsstress: error: %s (see --help)\n", bounded_line(what).c_str());
  return kUsage;
}

std::vector<std::string> mutant_names() {
  std::vector<std::string> names;
  for (const auto& m : core::mutant_catalog()) names.push_back(m.name);
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
  return CLI::Validator([lo, hi](std::string& text) { return core::check_decimal(text, lo, hi); }, what);
}

CLI::Validator whole_range(std::uint64_t lo, std::uint64_t hi) {
  return CLI::Validator([lo, hi](std::string& text) { return core::check_whole(text, lo, hi); },
                        "INT in [" + std::to_string(lo) + " - " + std::to_string(hi) + "]");
}

CLI::Option* add_threads(CLI::App* cmd, std::size_t& threads, std::size_t lo, const char* what) {
  return cmd->add_option("-j,--threads", threads, what)->check(whole_range(lo, kMaxThreads));
}

CLI::Option* add_max_seconds(CLI::App* cmd, double& seconds, const std::string& what, double lo, double hi) {
  return cmd->add_option("--max-seconds", seconds, what)->check(finite_range(lo, hi));
}

CLI::Option* add_json(CLI::App* cmd, std::string& path, const std::string& what) {
  return cmd->add_option("-o,--json", path, what + "; '-' is stdout")->check(output_path());
}

CLI::Option* add_quiet(CLI::App* cmd, bool& quiet, const std::string& what) {
  return cmd->add_flag("-q,--quiet", quiet, what);
}

CLI::Option* with_table_check(CLI::Option* opt, const core::RunFlag& f, unsigned taker) {
  using K = core::FlagKind;
  switch (f.kind) {
    case K::Whole:
      return opt->check(whole_range(static_cast<std::uint64_t>(f.lo), static_cast<std::uint64_t>(f.hi_for(taker))));
    case K::Decimal: return opt->check(finite_range(f.lo, f.hi_for(taker)));
    case K::File: return completes_files(opt);
    case K::Word: break;
  }
  if (f.words == nullptr) return opt;
  if (f.check == nullptr) return one_of(opt, f.words());
  // The mutant list is long: the help shows MUTANT and points to the catalog.
  std::string type(f.long_name().substr(2));
  for (char& c : type) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return completes(opt, f.words())->check(CLI::Validator([check = f.check](std::string& v) { return check(v); }, type));
}

FlagOptions add_run_flags(CLI::App* cmd, core::RunSpec& spec, unsigned taker, const OwnFlagBinder& own,
                          const std::vector<std::string_view>& skip) {
  FlagOptions out;
  for (const core::RunFlag& f : core::run_flags()) {
    if (!f.taken_by(taker) || std::find(skip.begin(), skip.end(), f.long_name()) != skip.end()) continue;
    CLI::Option* opt = std::visit(
        [&](auto field) -> CLI::Option* {
          if constexpr (std::is_same_v<decltype(field), std::monostate>) {
            return own ? own(f) : nullptr;
          } else {
            return with_table_check(cmd->add_option(std::string(f.names), spec.*field, std::string(f.help)), f, taker);
          }
        },
        f.field);
    if (opt != nullptr) out.emplace(std::string(f.long_name()), opt);
  }
  return out;
}

void add_sim_flags(CLI::App* cmd, sim::SimCampaignSpec& spec) {
  for (const sim::SimFlag& f : sim::sim_flags()) {
    CLI::Option* opt = cmd->add_option_function<std::string>(
        std::string(f.flag.names), [&spec, set = f.set](const std::string& v) { set(spec, v); },
        std::string(f.flag.help));
    opt->default_str(f.get(spec))->type_name(f.flag.kind == core::FlagKind::Whole ? "UINT" : "TEXT");
    with_table_check(opt, f.flag, core::kSimCommand);
  }
}

void SeedOptions::add_to(CLI::App* cmd) {
  const core::RunFlag &one = core::run_flag("--seed"), &range = core::run_flag("--seeds");
  seed_opt = cmd->add_option(std::string(one.names), seed, std::string(one.help));
  seeds_opt = cmd->add_option(std::string(range.names), seeds, std::string(range.help))->excludes(seed_opt);
  shard_opt = cmd->add_option("--shard", shard, "run shard I of N of the seed range (0 <= I < N)");
}

CLI::Option* SeedOptions::bind(CLI::App* cmd, const core::RunFlag& f) {
  if (f.long_name() == "--seed") {
    add_to(cmd);
    return seed_opt;
  }
  return f.long_name() == "--seeds" ? seeds_opt : nullptr;
}

Result<void> SeedOptions::resolve(core::SeedRange& range, core::Shard& shard_out) const {
  // Given but empty (an unset shell variable) is refused, not taken as absent
  // (`--seeds ''` ran seed 0 alone, `--shard ''` the whole range).
  for (const auto& [opt, text] : {std::pair{seed_opt, &seed}, {seeds_opt, &seeds}, {shard_opt, &shard}}) {
    if (opt != nullptr && opt->count() > 0 && text->empty()) return fail(opt->get_name() + ": an empty value");
  }
  if (!seeds.empty()) {
    const Result<core::SeedRange> r = parse_seed_range(seeds);
    if (!r) return fail("--seeds: " + r.error());
    range = *r;
  } else if (!seed.empty()) {
    const Result<core::SeedRange> r = parse_seed_range(seed);
    if (!r) return fail("--seed: " + r.error());
    if (r->from != r->to) return fail("--seed: " + shown(seed) + " is one seed, not a range");
    range = *r;
  }
  if (!shard.empty()) {
    const Result<core::Shard> s = parse_shard(shard);
    if (!s) return fail("--shard: " + s.error());
    shard_out = *s;
  }
  // 2^64 seeds in one shard cannot be counted (a sweep would plan none).
  if (range.to - range.from == UINT64_MAX && shard_out.count == 1) {
    return fail("--seeds: " + shown(seeds) +
                " is 2^64 seeds, more than one sweep can count; end it at "
                "18446744073709551614 or split it with --shard");
  }
  return {};
}

void SeedOptions::describe_default_sweep() {
  seed_opt->description("one seed");
  seeds_opt->description("an inclusive seed range A..B, or one seed N (default: seeds from 0 until the first "
                         "failure, for --max-seconds)");
}

bool SeedOptions::default_sweep(core::SeedRange& range, double& max_seconds, const CLI::Option* max_seconds_opt) const {
  if (seed_opt->count() + seeds_opt->count() > 0) return false;
  range = kDefaultSweep;
  if (max_seconds_opt == nullptr || max_seconds_opt->count() == 0) max_seconds = kDefaultSweepSeconds;
  return true;
}

Result<void> read_input(const std::string& path, std::string& scenario, bool scenario_given, std::string& input) {
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
