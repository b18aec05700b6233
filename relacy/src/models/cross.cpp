// SPDX-License-Identifier: MIT OR Apache-2.0
// Model "cross": the cross-pool wake. An outside thread installs into pool A,
// whose job installs into pool B, whose job installs back into A; each pool
// has one worker. A's worker waits on a cross SpinLatch while it keeps
// working (it must run B's call back into A), and B's worker sets that latch
// through A's registry. Then both pools are dropped. Claim: the chain
// returns, and nothing touches A's registry after the last reference to it
// is gone (the platform's liveness stamps turn such a touch into a failure).
#include "../harness.hpp"

namespace wsstress::relacy {
namespace {

template <class M>
struct CrossModel : ModelSuite<CrossModel<M>, 1> {
  static const rl::thread_id_t dynamic_thread_count = 2;

  void thread(unsigned) {
    ModelPool<M>* a = make_pool<M>(1);
    ModelPool<M>* b = make_pool<M>(1);
    const int r = a->install([&] { return b->install([&] { return a->install([] { return 7; }); }); });
    RL_ASSERT(r == 7);
    // A goes first and its last reference is dropped while B's worker may
    // still be between setting A's latch and notifying A's registry.
    auto ra = a->registry_ref();
    auto rb = b->registry_ref();
    delete b;
    delete a;
    ra->wait_until_stopped();
    ra = {};
    rb->wait_until_stopped();
  }
};

template <class M>
RawResult run(const SearchSpec& s) {
  return run_suite<CrossModel<M>>(s);
}

using namespace pool::mutants;  // the mutant policies the entries name

WSSTRESS_REGISTER_MODEL(
    cross_model,
    {.rank = 30,
     .name = "cross",
     .claim = "pool A calls into pool B, which calls back into A (one worker each), then both are dropped, A first: "
              "the chain returns, both pools' workers exit, nothing touches A after it is freed",
     .config = "2 pools x 1 worker; 1 outside thread; 1 idle round; 1-bit JEC",
     .ci = {Search::Random, 0, 100000, 600},
     .clean = &run<pool::NoMutants>,
     .mutants = {
         {"cross_is_cold", &run<CrossIsCold>},
         {"latch_set_no_wake", &run<LatchSetNoWake>},
         {"cross_latch_no_keepalive", &run<CrossLatchNoKeepAlive>, false,
          "not shown: the window is B's worker preempted between set() and its notify for the whole of A's return, drop, worker exit and free (dozens of scheduling points); uniform random scheduling almost never holds one thread back that long, and a context-bound search of this model does not finish"},
     }})

}  // namespace

}  // namespace wsstress::relacy
