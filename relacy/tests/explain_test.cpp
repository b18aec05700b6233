// SPDX-License-Identifier: MIT OR Apache-2.0
// A Relacy hang, explained in the simulator's words: for every
// (model, catalog mutant) pair the model table expects to fail as a hang, the
// model's own CI search (deterministic: an exhaustive context-bound search, or
// Relacy's random search, seeded by the execution's number) is run in this
// process, and its explanation must name the gate the sleeper passed, the
// waker and its decision, and the rule of sleep/README.md the loss breaks,
// not only contain some text. Every "step N" it cites must be line [N] of
// Relacy's history, a pool event. Then the explanation's way out: through
// the runner (wsstress-relacy) into ModelResult, and only for hangs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <ostream>
#include <regex>
#include <string>
#include <vector>

#include "wsstress/core/catalog.hpp"
#include "wsstress/relacy/models.hpp"

namespace rel = wsstress::relacy;

namespace {

const bool g_runner_set = setenv("WSSTRESS_RELACY_RUNNER", WSSTRESS_RELACY_RUNNER_PATH, 1) == 0;

struct ExplainCase {
  std::string model, mutant;
  std::vector<std::string> expected;  // each must be in the explanation
};

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

rel::SearchSpec ci_search(const std::string& model) {
  for (const rel::ModelInfo& m : rel::model_infos()) {
    if (m.name == model) return m.ci;
  }
  ADD_FAILURE() << "no model " << model;
  return {};
}

// gtest prints a case by its names.
void PrintTo(const ExplainCase& c, std::ostream* os) { *os << c.model << "/" << c.mutant; }

// Each "step N" of the explanation is line [N] of the history, a pool event;
// returns how many it cites.
int expect_steps_in_history(const std::string& why, const std::string& report) {
  static const std::regex step("step ([0-9]+)");
  int checked = 0;
  for (auto it = std::sregex_iterator(why.begin(), why.end(), step); it != std::sregex_iterator(); ++it, ++checked) {
    const std::string tag = "\n[" + (*it)[1].str() + "] ";
    const std::size_t at = report.find(tag);
    EXPECT_NE(at, std::string::npos) << "no history line " << tag;
    if (at == std::string::npos) continue;
    const std::string line = report.substr(at + 1, report.find('\n', at + 1) - at - 1);
    EXPECT_NE(line.find(": pool event "), std::string::npos) << line;
  }
  return checked;
}

class Explains : public ::testing::TestWithParam<ExplainCase> {};

TEST_P(Explains, TheGateTheWakerAndTheRule) {
  const ExplainCase& c = GetParam();
  const rel::RawResult r = rel::run_entry_here(c.model, c.mutant, ci_search(c.model));
  ASSERT_FALSE(r.passed);
  ASSERT_EQ(r.relacy_result, "DEADLOCK");
  const std::string why = joined(r.explanation);
  for (const std::string& e : c.expected) EXPECT_NE(why.find(e), std::string::npos) << "missing: " << e << "\n" << why;
  // A sleeper's story cites its gates by step: Relacy's history numbers.
  if (why.find("sleeps for good") != std::string::npos) {
    EXPECT_GT(expect_steps_in_history(why, r.output), 0) << why;
    EXPECT_NE(why.find("(steps are the numbers of Relacy's history"), std::string::npos) << why;
  }
}

// The strings each kind of loss must show.
const std::vector<std::string> kGate2 = {"passed gate 4", "found is_blocked false: the sleeper had not blocked yet",
                                         "is_blocked false, no notify", "sleep/README.md §3 and §2 gate 2"};
const std::vector<std::string> kLatchNoWake = {
    "passed gate 5", "set the sleeper's latch (SpinLatch), whose swap read it SLEEPING; woke nobody",
    "tried no wake-up", "sleep/README.md §3: a setter whose swap returns SLEEPING"};
const std::vector<std::string> kTerminateNoWake = {
    "sleeps for good on its terminate latch", "passed gate 5",
    "set the sleeper's terminate latch (CountLatch), whose swap read it SLEEPING; woke nobody", "tried no wake-up",
    "sleep/README.md §6: terminate sets"};
const std::vector<std::string> kBroadcast = {
    "passed gate 5",        "pushed a broadcast job", "is_blocked false, no notify",
    "broadcast queue) and", "gate 5 found no job",    "sleep/README.md §6: inject_broadcast bumps no JEC"};
const std::vector<std::string> kInjectFence = {"passed gate 4",
                                               "passed gate 5",
                                               "injected 1 job(s) from outside the pool; read 0 sleeping",
                                               "gate 5 found the injector empty",
                                               "sleep/README.md §4",
                                               "the publisher's SeqCst fence (after its push, in new_injected_jobs)"};
const std::vector<std::string> kRollover = {"passed gate 4",
                                            "injected 1 job(s) from outside the pool; read 0 sleeping",
                                            "gate 5 found the injector empty",
                                            "thread 2's announce at step",
                                            "turned the JEC sleepy again",
                                            "sleep/README.md §4: gate 4 alone is not enough"};

const std::vector<ExplainCase>& cases() {
  static const std::vector<ExplainCase> all = {
      {"inject", "no_inject_fence_acq_rel", kInjectFence},
      {"latch", "late_is_blocked_lock", kGate2},
      {"cross",
       "cross_is_cold",
       {"thread 1 (worker 0) is blocked outside sleep(), blocked at pool/include/wsstress/pool/latch.hpp",
        "thread 2 (worker 0) is blocked outside sleep(), blocked at", "sleep/README.md §8"}},
      {"cross", "latch_set_no_wake", kLatchNoWake},
      {"broadcast", "gate5_ignores_broadcasts", kBroadcast},
      {"broadcast", "no_gate5", kBroadcast},
      {"broadcast", "no_gate5_narrow_jec", kBroadcast},
      {"terminate", "terminate_no_wake", kTerminateNoWake},
      {"terminate", "late_is_blocked_lock", kGate2},
      {"handshake_latch", "latch_set_no_wake", kLatchNoWake},
      {"handshake_latch", "late_is_blocked_lock", kGate2},
      {"handshake_internal", "latch_set_no_wake", kLatchNoWake},
      {"handshake_inject", "no_inject_fence_acq_rel", kInjectFence},
      {"handshake_inject_rollover", "no_gate5", kRollover},
      {"handshake_inject_rollover", "no_gate5_narrow_jec", kRollover},
      {"handshake_broadcast", "gate5_ignores_broadcasts", kBroadcast},
      {"handshake_broadcast", "no_gate5", kBroadcast},
      {"handshake_terminate", "terminate_no_wake", kTerminateNoWake},
      {"handshake_terminate", "late_is_blocked_lock", kGate2},
      {"scope_count", "late_is_blocked_lock", kGate2},
  };
  return all;
}

INSTANTIATE_TEST_SUITE_P(HangMutants, Explains, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<ExplainCase>& info) {
                           return info.param.model + "_" + info.param.mutant;
                         });

// Every caught mutant the catalog knows only as a hang, in every model the
// table expects to catch it, has its case above: a new one needs its story.
TEST(Explains, EveryHangTheTableExpectsHasACase) {
  for (const rel::ModelEntry& e : rel::model_table()) {
    const auto* info = wsstress::core::find_mutant(e.mutant);
    if (!e.expect_fail || info == nullptr || info->kinds != static_cast<unsigned>(wsstress::core::FailureKind::Hang)) {
      continue;
    }
    bool cased = false;
    for (const ExplainCase& c : cases()) cased |= c.model == e.model && c.mutant == e.mutant;
    EXPECT_TRUE(cased) << e.model << "/" << e.mutant << " has no case";
  }
}

// The explanation reaches the client through the runner (wsstress-relacy, a
// child process), the same as the search made in this process.
TEST(Explains, ThroughTheRunnerAsInThisProcess) {
  ASSERT_TRUE(g_runner_set);
  const rel::SearchSpec s = ci_search("handshake_terminate");
  const auto child = rel::run_model("handshake_terminate", "terminate_no_wake", s);
  ASSERT_TRUE(child) << child.error();
  ASSERT_EQ(child->outcome, rel::Outcome::Fail);
  const rel::RawResult here = rel::run_entry_here("handshake_terminate", "terminate_no_wake", s);
  EXPECT_FALSE(child->explanation.empty());
  EXPECT_EQ(child->explanation, here.explanation);
  EXPECT_NE(joined(child->explanation).find("lost at step"), std::string::npos) << joined(child->explanation);
}

// Only a hang is explained: a data race, a pass.
TEST(Explains, OnlyAHangIsExplained) {
  const rel::RawResult race = rel::run_entry_here("deque", "deque_pop_no_fence", ci_search("deque"));
  ASSERT_FALSE(race.passed);
  EXPECT_EQ(race.relacy_result, "DATA RACE");
  EXPECT_TRUE(race.explanation.empty()) << joined(race.explanation);
  const rel::RawResult clean = rel::run_entry_here("handshake_terminate", "none", {rel::Search::Bound, 1, 0, 60});
  EXPECT_TRUE(clean.passed) << clean.relacy_result;
  EXPECT_TRUE(clean.explanation.empty());
}

}  // namespace
