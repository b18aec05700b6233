// The Relacy model table against the mutant catalog: every targeted mutant
// exists, the Relacy column's expectation (engines/relacy_expectations.hpp)
// agrees with what the models expect,
// and every mutant the catalog says Relacy catches is caught by some model;
// the client's view through the runner (wsstress-relacy) is the same table.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

#include "wsstress/engines/relacy_expectations.hpp"
#include "wsstress/relacy/models.hpp"
#include "wsstress/stress/catalog.hpp"

namespace rel = wsstress::relacy;
using wsstress::engines::Expect;
using wsstress::engines::relacy_expect;

// The client runs the runner this build made (the test is not beside it).
const bool g_runner_set = setenv("WSSTRESS_RELACY_RUNNER", WSSTRESS_RELACY_RUNNER_PATH, 1) == 0;

TEST(RelacyTable, TargetsAreCatalogMutantsWithAgreeingExpectations) {
  std::map<std::string, bool> caught_by_some_model;
  for (const rel::ModelInfo& m : rel::model_infos()) {
    EXPECT_FALSE(m.claim.empty()) << m.name;
    for (const rel::Target& t : m.targets) {
      const auto* info = wsstress::stress::find_mutant(t.mutant);
      ASSERT_NE(info, nullptr) << m.name << " targets unknown mutant " << t.mutant;
      EXPECT_NE(relacy_expect(info->id), Expect::Cannot) << t.mutant << " is modelled but the catalog says it is not";
      if (!t.expect_fail) {
        EXPECT_FALSE(t.note.empty()) << m.name << "/" << t.mutant << ": a pass needs its reason";
      }
      caught_by_some_model[t.mutant] = caught_by_some_model[t.mutant] || t.expect_fail;
    }
  }
  for (const auto& info : wsstress::stress::mutant_catalog()) {
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

TEST(RelacyTable, EveryModelHasACleanEntry) {
  for (const rel::ModelInfo& m : rel::model_infos()) {
    bool clean = false;
    for (const rel::ModelEntry& e : rel::model_table()) clean |= (m.name == e.model && std::string(e.mutant) == "none");
    EXPECT_TRUE(clean) << m.name;
  }
}

TEST(RelacyTable, TheRunnersListIsTheTable) {
  ASSERT_TRUE(g_runner_set);
  ASSERT_EQ(rel::runner_error(), "");
  const auto& here = rel::model_infos();
  const auto& listed = rel::models();
  ASSERT_EQ(listed.size(), here.size());
  for (std::size_t i = 0; i < here.size(); ++i) {
    EXPECT_EQ(listed[i].name, here[i].name);
    EXPECT_EQ(listed[i].claim, here[i].claim);
    EXPECT_EQ(listed[i].config, here[i].config);
    EXPECT_EQ(listed[i].ci.kind, here[i].ci.kind);
    EXPECT_EQ(listed[i].ci.context_bound, here[i].ci.context_bound);
    EXPECT_EQ(listed[i].ci.iterations, here[i].ci.iterations);
    ASSERT_EQ(listed[i].targets.size(), here[i].targets.size()) << here[i].name;
    for (std::size_t t = 0; t < here[i].targets.size(); ++t) {
      EXPECT_EQ(listed[i].targets[t].mutant, here[i].targets[t].mutant);
      EXPECT_EQ(listed[i].targets[t].expect_fail, here[i].targets[t].expect_fail);
      EXPECT_EQ(listed[i].targets[t].note, here[i].targets[t].note);
    }
  }
}

TEST(RelacyRun, ARawResultSurvivesItsEncoding) {
  const rel::RawResult r{false, "DATA RACE", 42, "a trace\nwith 2 lines and a 7 ",
                         {"why: step 7", "", "a line\nwith a newline and a 3 "}};
  rel::RawResult back;
  ASSERT_TRUE(rel::decode(rel::encode(r), back));
  EXPECT_EQ(back.passed, r.passed);
  EXPECT_EQ(back.relacy_result, r.relacy_result);
  EXPECT_EQ(back.executions, r.executions);
  EXPECT_EQ(back.output, r.output);
  EXPECT_EQ(back.explanation, r.explanation);
  EXPECT_FALSE(rel::decode("1 2", back));
  EXPECT_FALSE(rel::decode("0 1 1 x 1 y 2 3 abc", back)) << "an explanation cut short";
  EXPECT_FALSE(rel::decode_models("{"));
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
