// SPDX-License-Identifier: MIT OR Apache-2.0
// The engines' layer: the registry (every engine of this library registered
// once, in rank order), what each engine expects of the catalog's harmless
// mutants, the tables' compile-time check, the matrix's reading of a child
// that ASan ended, and the tsan column's reading of a TSan report.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <utility>

#include "wsstress/matrix/relacy_expectations.hpp"
#include "wsstress/matrix/run_matrix.hpp"
#include "wsstress/matrix/tsan.hpp"

namespace {

using namespace wsstress::matrix;
using wsstress::core::FailureKind;
using wsstress::core::mutant_catalog;
using wsstress::matrix::kFuzzFindingMarker;

// The tables' check refuses a table that misses a mutant or has two out of order.
struct TestRow {
  MutantId mutant;
};
constexpr TestRow kShort[] = {{MutantId::none}};
static_assert(!one_row_per_mutant(kShort));
template <std::size_t... I>
consteval bool swapped_first_two_is_refused(std::index_sequence<I...>) {
  constexpr TestRow rows[] = {{static_cast<MutantId>(I == 0 ? 1 : I == 1 ? 0 : I)}...};
  return !one_row_per_mutant(rows);
}
static_assert(swapped_first_two_is_refused(std::make_index_sequence<wsstress::core::kMutantCount>{}));

TEST(Registry, HoldsThisLibrarysEnginesOnceEachInRankOrder) {
  const auto& all = all_engines();
  ASSERT_FALSE(all.empty());
  std::set<std::string> names;
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_TRUE(names.insert(std::string(all[i]->name())).second) << all[i]->name();
    if (i > 0) {
      EXPECT_LT(all[i - 1]->rank(), all[i]->rank()) << all[i]->name();
    }
    EXPECT_EQ(find_engine(all[i]->name()), all[i]);
  }
  // The real-thread engine first: `mutants check`'s default column.
  EXPECT_EQ(all.front()->name(), "threads");
  EXPECT_EQ(find_engine("no-such-engine"), nullptr);
  // Every engine lives in this library: the Relacy and fuzz
  // columns too, not beside their subcommands in cli/.
  for (const char* name :
       {"threads", "sim-sc", "sim-tso", "sim-cpp", "tsan", "relacy", "fuzz-program", "fuzz-schedule"}) {
    EXPECT_NE(find_engine(name), nullptr) << name;
  }
}

// The clean pool and the negative controls must pass every engine that runs
// them; the real-thread engine expects a pass of those and only those, and
// says for every mutant what real threads can do with it.
TEST(Expectations, HarmlessMutantsPassEveryEngine) {
  for (const MutantInfo& m : mutant_catalog()) {
    for (const Engine* e : all_engines()) {
      // A row the engine does not run (Relacy: no model targets the mutant) expects nothing.
      if (m.harmless() && !e->skip(m)) {
        EXPECT_EQ(e->expect(m), Expect::Pass) << e->name() << " " << m.name;
      }
      if (!e->note_heading().empty()) {
        EXPECT_FALSE(e->note(m).empty()) << e->name() << " " << m.name;
      }
    }
    EXPECT_EQ(find_engine("threads")->expect(m) == Expect::Pass, m.harmless()) << m.name;
    const Expect relacy = relacy_expect(m.id);
    if (m.harmless()) {
      EXPECT_TRUE(relacy == Expect::Pass || relacy == Expect::Cannot) << m.name;
    }
  }
}

// An engine whose child writes the fuzz engines' marker and exits 1, with or
// without an ASan report before it, as a fuzz target's conversion may.
class ChildEngine final : public Engine {
 public:
  explicit ChildEngine(bool asan_report) : asan_report_(asan_report) {}
  std::string_view name() const override { return "test-child"; }
  int rank() const override { return 1000; }
  Expect expect(const MutantInfo&) const override { return Expect::Maybe; }
  EngineResult run(const MatrixSpec&, const MutantInfo&, const std::string&, const Deliver&) const override {
    std::fprintf(stderr, "%s1234 executions in 5.500 s\n", kFuzzFindingMarker);
    std::fprintf(stderr, "=================================================================\n");
    if (asan_report_) std::fprintf(stderr, "==7==ERROR: AddressSanitizer: stack-buffer-underflow on address 0x7f\n");
    std::fflush(stderr);
    std::_Exit(1);
  }

 private:
  bool asan_report_;
};

// A child that ASan ends (exit 1 and a report, not a signal) crashed the pool
// under test: a catch with the report's line, not an engine error with its
// banner, and with the fuzz engine's executions to the finding. A child that
// exits 1 without a report stays an engine error.
TEST(Matrix, AnAsanExitIsACrashWithTheReportsLine) {
  const auto matrix_with = [](bool asan_report) {
    MatrixSpec spec;
    spec.engine = "test-child";
    spec.budget_s = 5;
    spec.only = {"deque_pop_no_fence"};
    return run_matrix(spec, ChildEngine(asan_report), nullptr);
  };
  const MatrixReport crashed = matrix_with(true);
  ASSERT_EQ(crashed.rows.size(), 1u);
  EXPECT_TRUE(crashed.rows[0].caught);
  EXPECT_EQ(crashed.rows[0].outcome, "crash (exit 1)");
  EXPECT_EQ(crashed.rows[0].message, "ERROR: AddressSanitizer: stack-buffer-underflow on address 0x7f");
  EXPECT_EQ(crashed.rows[0].kind, FailureKind::Crash);
  EXPECT_EQ(crashed.rows[0].runs, 1234u);  // the fuzz engine's marker: when its finding was made
  EXPECT_DOUBLE_EQ(crashed.rows[0].seconds, 5.5);
  const MatrixReport failed = matrix_with(false);
  ASSERT_EQ(failed.rows.size(), 1u);
  EXPECT_FALSE(failed.rows[0].caught);
  EXPECT_EQ(failed.rows[0].outcome, "error (exit 1)");
}

TEST(TsanEngine, AReportBecomesOneLineWithBothStacks) {
  const std::string report = R"(==================
WARNING: ThreadSanitizer: data race (pid=20671)
  Read of size 1 at 0x7f6ee8b3b2d0 by thread T2:
    #0 std::variant<std::monostate, unsigned long, std::__exception_ptr::exception_ptr>::index() const /usr/include/c++/12/variant:1600 (wsstress-tsan+0xa353f)
    #1 wsstress::pool::JobResult<wsstress::core::NoisyPlatform, unsigned long>::into_return_value() /work/main/pool/include/wsstress/pool/job.hpp:112 (wsstress-tsan+0xa353f)
    #2 std::pair<int, int> wsstress::pool::detail::join_impl<A, B>(A&&, B&&) /work/main/pool/include/wsstress/pool/join.hpp:96 (wsstress-tsan+0x51cd22)

  Previous write of size 1 at 0x7f6ee8b3b2d0 by thread T3:
    #0 pthread_mutex_lock ../../../../src/libsanitizer/sanitizer_common/sanitizer_common_interceptors.inc:4324 (libtsan.so.2+0x4f6c1)
    #1 wsstress::pool::RegistryRef<wsstress::core::NoisyPlatform, M>::operator bool() const /work/main/pool/include/wsstress/pool/registry.hpp:84 (wsstress-tsan+0x51d1d3)

  Thread T2 'wsstress-worker' (tid=20674, running) created by main thread at:
    #0 pthread_create ../../../../src/libsanitizer/tsan/tsan_interceptors_posix.cpp:1001 (libtsan.so.2+0x5ad75)

SUMMARY: ThreadSanitizer: data race /usr/include/c++/12/variant:1600 in std::variant<...>::index() const
==================
)";
  EXPECT_EQ(summarize_tsan_report(report),
            "ThreadSanitizer: data race: Read of size 1 by thread T2 in JobResult::into_return_value at job.hpp:112; "
            "Previous write of size 1 by thread T3 in RegistryRef::operator bool at registry.hpp:84");
  EXPECT_EQ(summarize_tsan_report("no report here\n"), "ThreadSanitizer: a report without a WARNING line");
}

}  // namespace
