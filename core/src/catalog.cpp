// SPDX-License-Identifier: MIT OR Apache-2.0
// The catalog: one MutantInfo per entry of WSSTRESS_POLICIES (pool/mutants.hpp),
// in list order, the clean pool first. The records are written there, beside
// the switches they describe; this file only expands them, with the words the
// records use (Hang, Crash, ...) in scope.
#include "wsstress/core/catalog.hpp"

namespace wsstress::core {
namespace {

// The failure kinds as sets, so that a record can say `.kinds = Hang` or
// `.kinds = UseAfterFree | Crash`.
namespace kind_sets {
constexpr FailureKinds of(FailureKind k) { return static_cast<FailureKinds>(k); }
constexpr FailureKinds Hang = of(FailureKind::Hang);
constexpr FailureKinds DataRace = of(FailureKind::DataRace);
constexpr FailureKinds UseAfterFree = of(FailureKind::UseAfterFree);
constexpr FailureKinds Assertion = of(FailureKind::Assertion);
constexpr FailureKinds WrongResult = of(FailureKind::WrongResult);
constexpr FailureKinds Crash = of(FailureKind::Crash);
}  // namespace kind_sets

}  // namespace

const std::vector<MutantInfo>& mutant_catalog() {
  using namespace kind_sets;
#define WSSTRESS_CATALOG_RECORD(Type, mutant, members, ...) \
  MutantInfo{.name = #mutant, .id = MutantId::mutant, __VA_ARGS__},
  static const std::vector<MutantInfo> catalog = {WSSTRESS_POLICIES(WSSTRESS_CATALOG_RECORD)};
#undef WSSTRESS_CATALOG_RECORD
  return catalog;
}

const MutantInfo* find_mutant(const std::string& name) {
  for (const MutantInfo& m : mutant_catalog()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

}  // namespace wsstress::core
