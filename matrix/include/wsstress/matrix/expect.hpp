// SPDX-License-Identifier: MIT OR Apache-2.0
// What an engine expects of a mutant, and the tables that say it. Each judged
// engine keeps its own table beside its code (real_threads.cpp, simulator.cpp,
// tsan.cpp, relacy_expectations.hpp): one row per mutant of pool/mutants.hpp,
// keyed by its MutantId and in the list's order, so that the compiler refuses
// a table that names a mutant the list lacks (the enumerator does not exist),
// misses one, or has them out of order (one_row_per_mutant below, in a
// static_assert). The pool's entries say what a bug is; these say what a tool
// does with it, as measured in the README's matrix.
#pragma once

#include <cstddef>

#include "wsstress/core/catalog.hpp"

namespace wsstress::matrix {

using core::MutantId;
using core::MutantInfo;

enum class Expect {
  Catch,   // must be caught within the budget
  Maybe,   // reachable but rare, or only seen in some builds (e.g. under ASan)
  Cannot,  // not reachable by this engine (its note or the README says why)
  Pass,    // the clean pool and negative controls: must never fail
};

// Whether `rows` (each with a `mutant` member) has exactly one row per mutant,
// in the list's order: for a static_assert beside the table.
template <class Row, std::size_t N>
consteval bool one_row_per_mutant(const Row (&rows)[N]) {
  if (N != core::kMutantCount) return false;
  for (std::size_t i = 0; i < N; ++i) {
    if (static_cast<std::size_t>(rows[i].mutant) != i) return false;
  }
  return true;
}

// The row of a table that passed one_row_per_mutant.
template <class Row, std::size_t N>
constexpr const Row& row_of(const Row (&rows)[N], MutantId id) {
  return rows[static_cast<std::size_t>(id)];
}

// A column that measures (a strategy or a fuzzer no expectation was set
// with): the clean pool and the negative controls must pass; anything else
// may go either way.
inline Expect measured(const MutantInfo& m) { return m.harmless() ? Expect::Pass : Expect::Maybe; }

}  // namespace wsstress::matrix
