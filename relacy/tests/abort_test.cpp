// SPDX-License-Identifier: MIT OR Apache-2.0
// The pool's abort inside a Relacy model: rayon aborts the
// process when a job throws and the pool has no panic handler; under Relacy
// that abort goes through RelacyPlatform::abort_pool and is the model's
// failure, with Relacy's history of the execution, instead of the search
// process dying of SIGABRT (which the command could only call "the search
// crashed", exit 3). The control: the same program with a panic handler
// passes, and the handler sees the exception once per execution.
#include <gtest/gtest.h>
#include <signal.h>

#include <stdexcept>
#include <string>

#include "harness.hpp"
#include "wsstress/core/failure_kind.hpp"

namespace wsstress::relacy {
namespace {

template <bool WithHandler>
struct ThrowingSpawn : ModelSuite<ThrowingSpawn<WithHandler>, 1> {
  static const rl::thread_id_t dynamic_thread_count = 1;
  static inline int handled = 0;

  void thread(unsigned) {
    pool::BasicThreadPoolBuilder<RP, ModelKnobs<pool::NoMutants>> b;
    b.num_threads(1);
    if constexpr (WithHandler) b.panic_handler([](std::exception_ptr) { ++handled; });
    auto* p = new ModelPool<pool::NoMutants>(std::move(b));
    p->spawn([] { throw std::runtime_error("boom"); });
    drop_and_wait<pool::NoMutants>(p);
  }
};

SearchSpec few() {
  SearchSpec s;
  s.kind = Search::Random;
  s.iterations = 20;
  return s;
}

TEST(PoolAbort, IsTheModelsFailureWithHistory) {
  const RawResult r = run_suite<ThrowingSpawn<false>>(few());
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.relacy_result, "USER ASSERT FAILED");
  EXPECT_NE(r.output.find("wsstress pool: a job threw and the pool has no panic handler: boom; aborting"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("execution history"), std::string::npos) << r.output;
}

TEST(PoolAbort, APanicHandlerTakesTheExceptionInstead) {
  ThrowingSpawn<true>::handled = 0;
  const RawResult r = run_suite<ThrowingSpawn<true>>(few());
  EXPECT_TRUE(r.passed) << r.relacy_result << "\n" << r.output;
  EXPECT_EQ(ThrowingSpawn<true>::handled, 20);
}

// A crash in a simulated thread is the model's failure
// too, with the history, and its result says crash. A spawned job's exception
// meeting a noexcept frame (the catalog's spawn_no_catch_unwind) ends in
// std::terminate inside a worker; a SIGSEGV in a simulated thread (raised, so
// the test has no undefined behaviour) ends the execution the same way.
struct TerminatingSpawn : ModelSuite<TerminatingSpawn, 1> {
  static const rl::thread_id_t dynamic_thread_count = 1;

  void thread(unsigned) {
    pool::BasicThreadPoolBuilder<RP, ModelKnobs<pool::mutants::SpawnNoCatchUnwind>> b;
    b.num_threads(1);
    auto* p = new ModelPool<pool::mutants::SpawnNoCatchUnwind>(std::move(b));
    p->spawn([] { throw std::runtime_error("boom"); });
    drop_and_wait<pool::mutants::SpawnNoCatchUnwind>(p);
  }
};

struct Segfault : ModelSuite<Segfault, 2> {
  rl::atomic<int> turn;
  void before() {
    ModelSuite<Segfault, 2>::before();
    turn($) = 0;
  }
  void thread(unsigned i) {
    if (i == 0) {
      turn($).store(1, rl::mo_release);
    } else if (turn($).load(rl::mo_acquire) == 1) {
      raise(SIGSEGV);
    }
  }
};

TEST(PoolCrash, TerminateInAWorkerIsTheModelsCrashWithHistory) {
  const RawResult r = run_suite<TerminatingSpawn>(few());
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.relacy_result, "crash: std::terminate in a simulated thread: boom");
  EXPECT_NE(r.output.find("execution history"), std::string::npos) << r.output;
  EXPECT_EQ(core::classify_failure(r.relacy_result, ""), core::FailureKind::Crash);
}

TEST(PoolCrash, ASignalInASimulatedThreadIsTheModelsCrashWithHistory) {
  const RawResult r = run_suite<Segfault>(few());
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.relacy_result, "crash: killed by SIGSEGV (signal 11) in a simulated thread");
  EXPECT_NE(r.output.find("execution history"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace wsstress::relacy
