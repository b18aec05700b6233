// SPDX-License-Identifier: MIT OR Apache-2.0
// Model "cross_scope": a scope latch set from another pool (1.10.1's race). A
// job spawned into pool A opens an in-place scope over pool B and spawns one
// job there, so the scope's latch belongs to A's worker (it names A's
// registry) while B's worker runs the job and sets it; A's handle is dropped
// right after the spawn. Claim: the scope returns with its job run, both
// workers exit, and nothing touches A's registry after the last reference to
// it is gone (the platform's liveness stamps turn such a touch into a failure:
// rayon-core 1.10.1's ScopeLatch::set notifies A's registry without holding
// it, after the set that lets A's worker return and exit). The check of `ran`
// also needs the job's decrement to publish its write (a Relaxed one does not).
#include "../harness.hpp"

namespace wsstress::relacy {
namespace {

template <class M>
struct CrossScopeModel : ModelSuite<CrossScopeModel<M>, 1> {
  static const rl::thread_id_t dynamic_thread_count = 2;
  rl::var<int> ran;       // the job in B
  rl::var<int> returned;  // the scope in A
  RP::Atomic<int> ticks{0};

  void before() {
    ModelSuite<CrossScopeModel<M>, 1>::before();
    ran($) = 0;
    returned($) = 0;
  }

  void thread(unsigned) {
    ModelPool<M>* a = make_pool<M>(1);
    ModelPool<M>* b = make_pool<M>(1);
    a->spawn([this, b] {
      // The scope's body takes a few steps after its spawn, so that B's job
      // may finish first and the body's decrement be the last one (the order
      // in which a Relaxed decrement of the job's would publish nothing).
      b->in_place_scope([this](auto& s) {
        s.spawn([this](auto&) { ran($) = 1; });
        for (int i = 0; i < 4; ++i) ticks.fetch_add(1, std::memory_order_relaxed);
      });
      returned($) = 1;
    });
    // The handle goes at once: when the scope returns, A's worker finds its
    // terminate latch set and exits while B's worker may still be between
    // setting the scope's latch and notifying A's registry.
    auto ra = a->registry_ref();
    delete a;
    ra->wait_until_stopped();
    // The scope's job ran before the scope returned (the latch orders them),
    // and the scope returned before A's worker stopped.
    RL_ASSERT(returned($) == 1);
    RL_ASSERT(ran($) == 1);
    ra = {};
    drop_and_wait(b);
  }
};

template <class M>
RawResult run(const SearchSpec& s) {
  return run_suite<CrossScopeModel<M>>(s);
}

using namespace pool::mutants;  // the mutant policies the entries name

WSSTRESS_REGISTER_MODEL(
    cross_scope_model,
    {.rank = 40,
     .name = "cross_scope",
     .claim = "a job spawned into pool A opens a scope over pool B whose one job runs on B's worker, and A is dropped "
              "at once: the scope returns with its job run, both workers exit, nothing touches A after it is freed",
     .config = "2 pools x 1 worker; 1 outside thread; 1 idle round; 1-bit JEC",
     .ci = {Search::Random, 0, 100000, 600},
     .clean = &run<pool::NoMutants>,
     .mutants = {
         {"count_latch_sub_relaxed", &run<CountLatchSubRelaxed>},
         {"scope_latch_no_keepalive", &run<ScopeLatchNoKeepAlive>, false,
          "not shown: the window is B's worker held between the swap that sets the scope's latch and its notify "
          "while A's worker returns from the scope, finishes its job, exits and the last reference to A goes "
          "(dozens of scheduling points); a random search of 300 000 executions, context-bound searches at bounds 1 "
          "and 2 and a full search each ran 150 s without a failure (bound and full searches do not finish)"},
     }})

}  // namespace

}  // namespace wsstress::relacy
