// SPDX-License-Identifier: MIT OR Apache-2.0
// The one classifier of failures (see failure_kind.hpp). The message is read
// before the verdict word: a `bug` or a `crash` that says "use after free" is
// a use after free, whichever engine reported it.
#include "wsstress/core/failure_kind.hpp"

#include <array>
#include <utility>

namespace wsstress::core {
namespace {

constexpr std::array<std::pair<FailureKind, const char*>, 6> kNames = {{{FailureKind::Hang, "hang"},
                                                                        {FailureKind::DataRace, "data_race"},
                                                                        {FailureKind::UseAfterFree, "use_after_free"},
                                                                        {FailureKind::Assertion, "assertion"},
                                                                        {FailureKind::WrongResult, "wrong_result"},
                                                                        {FailureKind::Crash, "crash"}}};

bool has(std::string_view text, std::string_view what) { return text.find(what) != std::string_view::npos; }

}  // namespace

FailureKind classify_failure(std::string_view outcome, std::string_view message) {
  const std::string_view both[] = {message, outcome};
  for (std::string_view t : both) {
    if (has(t, "use after free") || has(t, "use-after-free") || has(t, "FREED MEMORY") || has(t, "DOUBLE FREE")) {
      return FailureKind::UseAfterFree;
    }
    if (has(t, "DATA RACE") || has(t, "data race")) return FailureKind::DataRace;
    if (has(t, "invariant violated") || has(t, "wsstress pool: ") || has(t, "USER ASSERT")) {
      return FailureKind::Assertion;
    }
  }
  if (outcome.rfind("hang", 0) == 0 || has(outcome, "DEADLOCK") || has(outcome, "LIVELOCK")) return FailureKind::Hang;
  if (outcome.rfind("crash", 0) == 0 || outcome.empty()) return FailureKind::Crash;
  // An exception escaping a thread: real threads abort in std::terminate.
  if (has(message, "std::terminate")) return FailureKind::Crash;
  if (outcome.rfind("bug", 0) == 0) return FailureKind::WrongResult;
  return FailureKind::Crash;  // any other Relacy result (an unhandled exception, a leak)
}

const char* failure_kind_name(FailureKind k) noexcept {
  for (const auto& [kind, name] : kNames) {
    if (kind == k) return name;
  }
  return "none";
}

std::string to_string_set(FailureKinds set) {
  std::string out;
  for (const auto& [kind, name] : kNames) {
    if (!contains(set, kind)) continue;
    if (!out.empty()) out += '|';
    out += name;
  }
  return out.empty() ? "none" : out;
}

FailureKinds parse_failure_kinds(std::string_view text) {
  FailureKinds set = 0;
  while (!text.empty()) {
    const auto bar = text.find('|');
    const std::string_view one = text.substr(0, bar);
    FailureKinds found = 0;
    for (const auto& [kind, name] : kNames) {
      if (one == name) found = static_cast<unsigned>(kind);
    }
    if (found == 0) return 0;
    set |= found;
    text = bar == std::string_view::npos ? std::string_view{} : text.substr(bar + 1);
  }
  return set;
}

}  // namespace wsstress::core
