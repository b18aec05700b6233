// SPDX-License-Identifier: MIT OR Apache-2.0
// Model "broadcast": an outside broadcast into a pool whose workers are on
// their way to sleep. inject_broadcast pushes one job onto each worker's own
// broadcast queue; a sleepy worker must see it at gate 5 (its final check
// looks at the injector and at its broadcast queue) or be woken for it.
// Claim: broadcast returns one result per worker, in index order.
#include "../harness.hpp"

namespace wsstress::relacy {
namespace {

template <class M>
struct BroadcastModel : ModelSuite<BroadcastModel<M>, 1> {
  static const rl::thread_id_t dynamic_thread_count = 2;

  void thread(unsigned) {
    ModelPool<M>* pool = make_pool<M>(2);
    auto r = pool->broadcast([](pool::BroadcastContext<RP, ModelKnobs<M>> c) { return c.index(); });
    RL_ASSERT(r.size() == 2);
    if (r.size() == 2) RL_ASSERT(r[0] == 0 && r[1] == 1);
    drop_and_wait(pool);
  }
};

template <class M>
RawResult run(const SearchSpec& s) {
  return run_suite<BroadcastModel<M>>(s);
}

using namespace pool::mutants;  // the mutant policies the entries name

WSSTRESS_REGISTER_MODEL(
    broadcast_model,
    {.rank = 50,
     .name = "broadcast",
     .claim = "an outside broadcast into a two-worker pool whose workers are going to sleep: one result per worker, in "
              "index order, and both exit after the drop",
     .config = "2 workers; 1 outside thread; 1 idle round; 1-bit JEC",
     .ci = {Search::Random, 0, 100000, 600},
     .clean = &run<pool::NoMutants>,
     .mutants = {
         {"gate5_ignores_broadcasts", &run<Gate5IgnoresBroadcasts>},
         {"no_gate5", &run<NoGate5>},
         {"no_gate5_narrow_jec", &run<NoGate5NarrowJec>},
         {"no_sleep_fence", &run<NoSleepFence>, false,
          "equivalent: gate 5 reads the broadcast queue through Stealer::is_empty, which issues its own SeqCst fence, and inject_broadcast's wake-ups take the sleeper's is_blocked lock; the inject fence is not on this path at all (inject_broadcast does not call new_injected_jobs)"},
     }})

}  // namespace

}  // namespace wsstress::relacy
