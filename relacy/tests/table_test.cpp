// SPDX-License-Identifier: MIT OR Apache-2.0
// The Relacy model table against the mutant catalog: every targeted mutant
// exists, a pass has its reason, every model has its clean entry, and the
// table keeps its order; the client's view through the runner
// (wsstress-relacy) is the same table. (The matrix's Relacy column checks its
// own expectations against this table: engines/tests.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "wsstress/core/catalog.hpp"
#include "wsstress/relacy/models.hpp"

namespace rel = wsstress::relacy;

// The client runs the runner this build made (the test is not beside it).
const bool g_runner_set = setenv("WSSTRESS_RELACY_RUNNER", WSSTRESS_RELACY_RUNNER_PATH, 1) == 0;

TEST(RelacyTable, TargetsAreCatalogMutantsAndPassesHaveTheirReasons) {
  for (const rel::ModelInfo& m : rel::model_infos()) {
    EXPECT_FALSE(m.claim.empty()) << m.name;
    for (const rel::Target& t : m.targets) {
      EXPECT_NE(wsstress::core::find_mutant(t.mutant), nullptr) << m.name << " targets unknown mutant " << t.mutant;
      if (!t.expect_fail) {
        EXPECT_FALSE(t.note.empty()) << m.name << "/" << t.mutant << ": a pass needs its reason";
      }
    }
  }
}

// The models register themselves in no set order; the table keeps the order
// of their ranks, which `wsstress relacy --list`, `--mutant all` and the
// README follow.
TEST(RelacyTable, TheTableKeepsItsOrder) {
  std::vector<std::string> names;
  for (const rel::ModelInfo& m : rel::model_infos()) names.push_back(m.name);
  const std::vector<std::string> expected = {"inject",
                                             "latch",
                                             "cross",
                                             "cross_scope",
                                             "broadcast",
                                             "terminate",
                                             "deque",
                                             "handshake_latch",
                                             "handshake_internal",
                                             "handshake_inject",
                                             "handshake_inject_rollover",
                                             "handshake_broadcast",
                                             "handshake_terminate",
                                             "lock_latch",
                                             "count_lock_latch",
                                             "arc_job",
                                             "scope_count"};
  EXPECT_EQ(names, expected);
  ASSERT_FALSE(rel::model_table().empty());
  EXPECT_STREQ(rel::model_table().front().model, "inject");
  EXPECT_STREQ(rel::model_table().front().mutant, "none");
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
  const rel::RawResult r{
      false, "DATA RACE", 42, "a trace\nwith 2 lines and a 7 ", {"why: step 7", "", "a line\nwith a newline and a 3 "}};
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

TEST(RelacyRun, ARunRequestSurvivesItsArguments) {
  const rel::RunRequest r{"handshake_inject", "no_gate5", {rel::Search::Bound, 3, 12345, 60}};
  const std::vector<std::string> args = r.to_args();
  EXPECT_EQ(args, (std::vector<std::string>{"run", "handshake_inject", "no_gate5", "bound", "3", "12345"}));
  const auto back = rel::RunRequest::from_args(args);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->model, r.model);
  EXPECT_EQ(back->mutant, r.mutant);
  EXPECT_EQ(back->search.kind, r.search.kind);
  EXPECT_EQ(back->search.context_bound, r.search.context_bound);
  EXPECT_EQ(back->search.iterations, r.search.iterations);
  EXPECT_FALSE(rel::RunRequest::from_args({"run", "deque", "none", "sideways", "1", "2"}));
  EXPECT_FALSE(rel::RunRequest::from_args({"run", "deque", "none", "bound", "x", "2"}));
  EXPECT_FALSE(rel::RunRequest::from_args({"run", "deque"}));
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
