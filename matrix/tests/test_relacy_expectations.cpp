// SPDX-License-Identifier: MIT OR Apache-2.0
// The Relacy column's expectations (engines/relacy_expectations.hpp) against
// the Relacy models' own table (relacy/, below engines/): a mutant the column
// expects to be caught is caught by some model, one it expects to pass is
// targeted only by models that expect it to pass, one it cannot see is
// targeted by no model, and the clean pool passes every model.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "wsstress/core/catalog.hpp"
#include "wsstress/matrix/relacy_expectations.hpp"
#include "wsstress/relacy/models.hpp"

namespace rel = wsstress::relacy;
using wsstress::matrix::Expect;
using wsstress::matrix::relacy_expect;

TEST(RelacyTable, TheColumnsExpectationsAgreeWithTheModels) {
  std::map<std::string, bool> caught_by_some_model;
  for (const rel::ModelInfo& m : rel::model_infos()) {
    for (const rel::Target& t : m.targets) {
      const auto* info = wsstress::core::find_mutant(t.mutant);
      ASSERT_NE(info, nullptr) << m.name << " targets unknown mutant " << t.mutant;
      EXPECT_NE(relacy_expect(info->id), Expect::Cannot) << t.mutant << " is modelled but the column says it is not";
      caught_by_some_model[t.mutant] = caught_by_some_model[t.mutant] || t.expect_fail;
    }
  }
  for (const auto& info : wsstress::core::mutant_catalog()) {
    if (info.name == "none") {
      EXPECT_EQ(relacy_expect(info.id), Expect::Pass) << "the clean pool must pass every model";
      continue;
    }
    const auto it = caught_by_some_model.find(info.name);
    if (relacy_expect(info.id) == Expect::Cannot) {
      EXPECT_EQ(it, caught_by_some_model.end()) << info.name;
    } else {
      ASSERT_NE(it, caught_by_some_model.end()) << info.name;
      EXPECT_EQ(it->second, relacy_expect(info.id) == Expect::Catch) << info.name;
    }
  }
}
