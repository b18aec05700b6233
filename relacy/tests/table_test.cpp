// The Relacy model table against the mutant catalog: every targeted mutant
// exists, the catalog's relacy expectation agrees with what the models expect,
// and every mutant the catalog says Relacy catches is caught by some model.
#include <gtest/gtest.h>

#include <map>

#include "wsstress/relacy/models.hpp"
#include "wsstress/stress/catalog.hpp"

namespace rel = wsstress::relacy;
using wsstress::stress::Expect;

TEST(RelacyTable, TargetsAreCatalogMutantsWithAgreeingExpectations) {
  std::map<std::string, bool> caught_by_some_model;
  for (const rel::ModelInfo& m : rel::models()) {
    EXPECT_FALSE(m.claim.empty()) << m.name;
    for (const rel::Target& t : m.targets) {
      const auto* info = wsstress::stress::find_mutant(t.mutant);
      ASSERT_NE(info, nullptr) << m.name << " targets unknown mutant " << t.mutant;
      EXPECT_NE(info->relacy_expect, Expect::Cannot) << t.mutant << " is modelled but the catalog says it is not";
      if (!t.expect_fail) {
        EXPECT_FALSE(t.note.empty()) << m.name << "/" << t.mutant << ": a pass needs its reason";
      }
      caught_by_some_model[t.mutant] = caught_by_some_model[t.mutant] || t.expect_fail;
    }
  }
  for (const auto& info : wsstress::stress::mutant_catalog()) {
    if (info.name == "none") {
      EXPECT_EQ(info.relacy_expect, Expect::Pass) << "the clean pool must pass every model";
      continue;
    }
    const auto it = caught_by_some_model.find(info.name);
    if (info.relacy_expect == Expect::Cannot) {
      EXPECT_EQ(it, caught_by_some_model.end()) << info.name;
    } else {
      ASSERT_NE(it, caught_by_some_model.end()) << info.name;
      EXPECT_EQ(it->second, info.relacy_expect == Expect::Catch) << info.name;
    }
  }
}

TEST(RelacyTable, EveryModelHasACleanEntry) {
  for (const rel::ModelInfo& m : rel::models()) {
    bool clean = false;
    for (const rel::ModelEntry& e : rel::model_table()) clean |= (m.name == e.model && std::string(e.mutant) == "none");
    EXPECT_TRUE(clean) << m.name;
  }
}

TEST(RelacyRun, BadNamesAreErrorsNotCrashes) {
  const auto unknown = rel::run_model("nope", "none", {});
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().find("unknown model"), std::string::npos);
  const auto untargeted = rel::run_model("deque", "no_gate5", {});
  ASSERT_FALSE(untargeted);
  EXPECT_NE(untargeted.error().find("does not target"), std::string::npos);
}

TEST(RelacyRun, TheDequeModelPassesCleanAndCatchesItsMutant) {
  rel::SearchSpec s{rel::Search::Random, 0, 2000, 60};
  const auto clean = rel::run_model("deque", "none", s);
  ASSERT_TRUE(clean) << clean.error();
  EXPECT_EQ(clean->outcome, rel::Outcome::Pass) << clean->relacy_result;
  EXPECT_EQ(clean->executions, 2000u);
  const auto bad = rel::run_model("deque", "deque_pop_no_fence", s);
  ASSERT_TRUE(bad) << bad.error();
  EXPECT_EQ(bad->outcome, rel::Outcome::Fail);
  EXPECT_EQ(bad->relacy_result, "DATA RACE");
  EXPECT_NE(bad->trace.find("deque.hpp"), std::string::npos) << "the trace names the pool's source";
}
