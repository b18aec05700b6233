// SPDX-License-Identifier: MIT OR Apache-2.0
// The portfolio (as Coyote's; its weights from the scoreboard): no strategy finds every bug first, so a sweep gives each
// seed one member, chosen by the seed alone, and a seed still fixes its run.
// The members and their weights are one table, kDefaultMembers; a spec
// "portfolio:pos=6,sleep-first=3,pct=1" names other weights wherever a
// strategy name goes (sim --strategy, scoreboard --strategies), so a weighting
// is scored without a strategy of its own. Seed s runs slot s % (sum of the
// weights) of a smooth weighted round robin, which spreads each member's slots
// over the cycle. A reproducer records the member, not "portfolio".
#include <charconv>
#include <string>

#include "../strategy.hpp"
#include "wsstress/core/shown.hpp"

namespace wsstress::sim {
namespace {

struct Member {
  StrategyKind strategy;
  unsigned pct_depth = 0;  // PCT: its depth (0: the configuration's --pct-depth)
  unsigned weight = 1;
};

// `sim`'s default, from the budget-1000 scoreboard (README, "wsstress
// scoreboard"): of the weightings measured, the smallest worst ratio to the
// best single strategy's median (6.2) with no row missed. POS for the latch
// and push races, surw-sleep for gate 2, sleep-first for the gate-5 family,
// PCT at three depths for the scope latch's use after free, which only PCT finds.
constexpr Member kDefaultMembers[] = {
    {StrategyKind{"pos"}, 0, 5}, {StrategyKind{"surw-sleep"}, 0, 5}, {StrategyKind::SleepFirst, 0, 4},
    {StrategyKind::PCT, 2, 2},   {StrategyKind::PCT, 3, 2},          {StrategyKind::PCT, 5, 2},
};

constexpr std::string_view kPrefix = "portfolio:";
constexpr unsigned kMaxWeight = 1000;  // the cycle stays short enough to walk per seed

// A strategy a spec may name: one --strategy offers that samples one schedule
// per seed (DFS searches one seed's tree; the portfolio is no member of itself).
bool can_be_member(const StrategyEntry& e) {
  return !e.help.empty() && e.make != nullptr && !(e.kind == StrategyKind::DFS);
}

std::string member_names() {
  std::string out;
  for (const StrategyEntry* e : all_strategies()) {
    if (can_be_member(*e)) out += (out.empty() ? "" : ", ") + std::string(e->kind.name());
  }
  return out + ", pct@D";
}

bool parse_whole(std::string_view text, unsigned lo, unsigned hi, unsigned& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && end == text.data() + text.size() && out >= lo && out <= hi;
}

// One "NAME=WEIGHT" item; "" on success, else why not.
std::string parse_member(std::string_view item, Member& m) {
  const auto eq = item.find('=');
  if (eq == std::string_view::npos) return shown(item) + " is not MEMBER=WEIGHT";
  std::string_view name = item.substr(0, eq);
  if (!parse_whole(item.substr(eq + 1), 0, kMaxWeight, m.weight)) {
    return "the weight of " + shown(name) + ", " + shown(item.substr(eq + 1)) + ", is not a number from 0 to " +
           std::to_string(kMaxWeight);
  }
  m.pct_depth = 0;
  if (name.starts_with("pct@")) {
    if (!parse_whole(name.substr(4), 1, 64, m.pct_depth)) return shown(name) + ": PCT's depth is a number from 1 to 64";
    name = "pct";
  }
  for (const StrategyEntry* e : all_strategies()) {
    if (name == e->kind.name() && can_be_member(*e)) {
      m.strategy = e->kind;
      return {};
    }
  }
  return "unknown member " + shown(name) + " (members: " + member_names() + ")";
}

// The members of `spec` ("portfolio" or "portfolio:..."); "" on success.
std::string parse_members(std::string_view spec, std::vector<Member>& out) {
  out.clear();
  if (spec == StrategyKind::Portfolio.name()) {
    out.assign(std::begin(kDefaultMembers), std::end(kDefaultMembers));
    return {};
  }
  if (!spec.starts_with(kPrefix)) return "not a portfolio";
  std::string_view rest = spec.substr(kPrefix.size());
  unsigned total = 0;
  for (;;) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    if (item.empty()) return "an empty member";
    Member m{StrategyKind::Random};
    if (std::string why = parse_member(item, m); !why.empty()) return why;
    for (const Member& o : out) {
      if (o.strategy == m.strategy && o.pct_depth == m.pct_depth) return shown(item) + ": a member given twice";
    }
    out.push_back(m);
    total += m.weight;
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return total == 0 ? "the weights add up to 0" : "";
}

// The member of slot `slot` (< the weights' sum) of the smooth weighted round
// robin (nginx's): each step every member gains its weight, the richest (the
// first of equals) is picked and pays the sum. Equal weights give the table's
// order; a member of weight w gets w slots, spread over the cycle.
const Member& member_of_slot(const std::vector<Member>& members, unsigned total, std::uint64_t slot) {
  std::vector<long> credit(members.size(), 0);
  std::size_t pick = 0;
  for (std::uint64_t s = 0; s <= slot; ++s) {
    pick = 0;
    for (std::size_t i = 0; i < members.size(); ++i) {
      credit[i] += members[i].weight;
      if (credit[i] > credit[pick]) pick = i;
    }
    credit[pick] -= total;
  }
  return members[pick];
}

SimConfig member_for_seed(const SimConfig& config) {
  std::vector<Member> members;
  parse_members(config.strategy.name(), members);  // parse_strategy let only valid specs in
  unsigned total = 0;
  for (const Member& m : members) total += m.weight;
  const Member& m = member_of_slot(members, total, config.seed % total);
  SimConfig member = config;
  member.strategy = m.strategy;
  if (m.pct_depth != 0) member.pct_depth = m.pct_depth;
  return member;
}

// --strategy's line for the portfolio, from the table.
std::string_view default_help() {
  static const std::string text = [] {
    std::string s = "each seed one of";
    unsigned total = 0;
    for (const Member& m : kDefaultMembers) total += m.weight;
    for (const Member& m : kDefaultMembers) {
      s += std::string(&m == kDefaultMembers ? " " : ", ") + m.strategy.name();
      if (m.pct_depth != 0) s += "@" + std::to_string(m.pct_depth);
      s += " " + std::to_string(m.weight) + "/" + std::to_string(total);
    }
    return s + ", by the seed; portfolio:MEMBER=WEIGHT,... (e.g. portfolio:pos=6,sleep-first=3,pct@2=1) weighs others";
  }();
  return text;
}

// A spec's check (StrategyEntry::spec_error).
std::string spec_error(std::string_view word) {
  std::vector<Member> members;
  const std::string why = parse_members(word, members);
  return why.empty() ? why : "bad portfolio " + shown(word) + ": " + why;
}

}  // namespace

// No `make`: the scheduler runs the member (resolve_strategy).
WSSTRESS_REGISTER_STRATEGY(portfolio_strategy, {.kind = StrategyKind::Portfolio,
                                                .rank = 10,
                                                .help = default_help(),
                                                .resolve = member_for_seed,
                                                .spec_error = spec_error})

}  // namespace wsstress::sim
