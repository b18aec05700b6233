// SPDX-License-Identifier: MIT OR Apache-2.0
// Model "latch": a latch set racing its owner's way to sleep. An outside
// install runs join(a, b) on a two-worker pool; when the other worker steals
// b, the joining worker waits on b's SpinLatch (CoreLatch underneath): it
// turns sleepy, falls asleep and sleeps, while the thief runs b and sets the
// latch, which must wake it. Claim: the join returns both results.
#include "../harness.hpp"
#include "wsstress/pool/join.hpp"

namespace wsstress::relacy {
namespace {

template <class M>
struct LatchModel : ModelSuite<LatchModel<M>, 1> {
  static const rl::thread_id_t dynamic_thread_count = 2;

  RP::Atomic<int> ticks{0};

  void thread(unsigned) {
    ModelPool<M>* pool = make_pool<M>(2);
    // b takes a few steps (each a scheduling point), so that when the other
    // worker steals it the joining worker has time to get into its gates.
    auto slow_b = [this] {
      for (int i = 0; i < 6; ++i) ticks.fetch_add(1, std::memory_order_relaxed);
      return 2;
    };
    const int r = pool->install([&] {
      auto [a, b] = pool::join<RP, ModelKnobs<M>>([] { return 1; }, slow_b);
      return a * 10 + b;
    });
    RL_ASSERT(r == 12);
    drop_and_wait(pool);
  }
};

template <class M>
RawResult run(const SearchSpec& s) {
  return run_suite<LatchModel<M>>(s);
}

using namespace pool::mutants;  // the mutant policies the entries name

WSSTRESS_REGISTER_MODEL(
    latch_model,
    {.rank = 20,
     .name = "latch",
     .claim = "join(a, b) inside an install on two workers, b slow enough for the joining worker to reach its sleep "
              "gates while the other steals it: the join returns both results",
     .config = "2 workers; 1 outside thread; 1 idle round; 1-bit JEC",
     .ci = {Search::Random, 0, 100000, 600},
     .clean = &run<pool::NoMutants>,
     .mutants = {
         {"late_is_blocked_lock", &run<LateIsBlockedLock>},
         {"no_sleep_fence", &run<NoSleepFence>, false,
          "equivalent under the C++ model: gate 5 reads the injector's length with a SeqCst load right after the SeqCst CAS that registers the sleeper, and two SeqCst operations are never reordered, so the fence adds no ordering here (it would if that read were Acquire, as the upstream proof sketch assumes)"},
         {"latch_probe_relaxed", &run<LatchProbeRelaxed>},
         {"core_latch_set_seqcst", &run<CoreLatchSetSeqCst>, false,
          "negative control: SeqCst is stronger than the AcqRel it replaces, so nothing can break"},
     }})

}  // namespace

}  // namespace wsstress::relacy
