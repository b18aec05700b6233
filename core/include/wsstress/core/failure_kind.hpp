// SPDX-License-Identifier: MIT OR Apache-2.0
// What a failure is, whatever engine saw it: the catalog and the Relacy model
// table say which kinds a mutant may show, and one
// classifier turns each engine's verdict (stress/sim `hang`/`bug`/`crash` with
// its message, Relacy's DEADLOCK / DATA RACE / USER ASSERT FAILED ...) into a
// kind, so "caught" means "caught doing what it should".
#pragma once

#include <string>
#include <string_view>

namespace wsstress::core {

enum class FailureKind : unsigned {
  None = 0,
  Hang = 1u << 0,          // a lost wake-up or livelock: stress watchdog, simulator, Relacy DEADLOCK/LIVELOCK
  DataRace = 1u << 1,      // Relacy DATA RACE, ThreadSanitizer
  UseAfterFree = 1u << 2,  // the simulator's liveness stamps, AddressSanitizer, Relacy's freed-memory checks
  Assertion = 1u << 3,     // a pool invariant or a model's RL_ASSERT (Relacy USER ASSERT FAILED), the pool's abort
  WrongResult = 1u << 4,   // a scenario's oracle: a job lost, run twice or returning the wrong value
  Crash = 1u << 5,         // a signal with no message that says more
};

// A set of kinds (bit-or of FailureKind).
using FailureKinds = unsigned;
constexpr FailureKinds operator|(FailureKind a, FailureKind b) {
  return static_cast<unsigned>(a) | static_cast<unsigned>(b);
}
constexpr FailureKinds operator|(FailureKinds a, FailureKind b) { return a | static_cast<unsigned>(b); }
constexpr bool contains(FailureKinds set, FailureKind k) { return (set & static_cast<unsigned>(k)) != 0; }

// `outcome` is the engine's verdict word ("hang", "bug", "crash (signal 6)",
// "hang (killed)", or Relacy's result such as "DEADLOCK"); `message` its one line.
FailureKind classify_failure(std::string_view outcome, std::string_view message);

// "hang", "data_race", "use_after_free", "assertion", "wrong_result", "crash"
const char* failure_kind_name(FailureKind k) noexcept;
std::string to_string_set(FailureKinds set);  // "hang|crash"
// Parses one name or a '|'-separated set; 0 when a name is unknown.
FailureKinds parse_failure_kinds(std::string_view text);

}  // namespace wsstress::core
