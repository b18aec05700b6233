// SPDX-License-Identifier: MIT OR Apache-2.0
// Model "terminate": a pool dropped while its worker, its job done, is on
// its way to sleep.
// terminate() sets the worker's terminate latch and must wake it if it is
// already asleep, or the worker's sleep() gates must see the latch. Claim:
// the worker exits (Relacy reports a deadlock if it sleeps forever).
#include "../harness.hpp"

namespace wsstress::relacy {
namespace {

template <class M>
struct TerminateModel : ModelSuite<TerminateModel<M>, 1> {
  static const rl::thread_id_t dynamic_thread_count = 1;

  void thread(unsigned) {
    ModelPool<M>* pool = make_pool<M>(1);
    // One job first, so that the worker is in its idle rounds (or asleep)
    // when terminate() runs, rather than still starting.
    RL_ASSERT(pool->install([] { return 1; }) == 1);
    // Give the worker room to get into its sleep gates: a few reads of the
    // counters (each one a scheduling point) before the drop. 32, not 8,
    // since crossbeam's Injector gave the idle round more operations.
    for (int i = 0; i < 32 && pool->registry().sleep().counters_snapshot().sleeping_threads() == 0; ++i) {
    }
    drop_and_wait(pool);
  }
};

template <class M>
RawResult run(const SearchSpec& s) {
  return run_suite<TerminateModel<M>>(s);
}

using namespace pool::mutants;  // the mutant policies the entries name

WSSTRESS_REGISTER_MODEL(
    terminate_model,
    {.rank = 60,
     .name = "terminate",
     .claim = "a pool dropped right after a job, while its worker heads for sleep: the worker wakes and exits",
     .config = "1 worker; 1 outside thread; 1 idle round; 1-bit JEC",
     .ci = {Search::Random, 0, 100000, 600},
     .clean = &run<pool::NoMutants>,
     .mutants = {
         {"terminate_no_wake", &run<TerminateNoWake>},
         {"late_is_blocked_lock", &run<LateIsBlockedLock>},
     }})

}  // namespace

}  // namespace wsstress::relacy
