// SPDX-License-Identifier: MIT OR Apache-2.0
// Model "inject": the injected-job handshake. Two outside threads each
// install a job into a pool whose workers go through the idle rounds,
// announce themselves sleepy and pass the five gates of sleep(); with a
// one-bit JEC the two injections roll the counter back to the value a sleepy
// worker read. Claim: both installs return (the jobs ran) and every worker
// exits after the pool is dropped: nobody sleeps through a job.
#include "../harness.hpp"

namespace wsstress::relacy {
namespace {

template <class M, unsigned Workers>
struct InjectModel : ModelSuite<InjectModel<M, Workers>, 2> {
  static const rl::thread_id_t dynamic_thread_count = Workers;

  ModelPool<M>* pool = nullptr;  // published through `ready`
  Signal ready;
  Signal second_done;

  // Thread 0 installs twice in a row, so its second injection races the
  // worker's idle rounds after the first job; thread 1 injects concurrently,
  // so a waker can read the sleeping count while the worker is between its
  // gates.
  void thread(unsigned index) {
    if (index == 0) {
      pool = make_pool<M>(Workers);
      ready.set();
      RL_ASSERT(pool->install([] { return 1; }) == 1);
      RL_ASSERT(pool->install([] { return 2; }) == 2);
      second_done.wait();
      drop_and_wait(pool);  // terminate: the workers must wake and exit
    } else {
      ready.wait();
      RL_ASSERT(pool->install([] { return 3; }) == 3);
      second_done.set();
    }
  }
};

template <class M>
RawResult run(const SearchSpec& s) {
  return run_suite<InjectModel<M, 1>>(s);
}

using namespace pool::mutants;  // the mutant policies the entries name

WSSTRESS_REGISTER_MODEL(
    inject_model,
    {.rank = 10,
     .name = "inject",
     .claim =
         "outside installs race the worker's idle rounds and sleep gates: every install returns and the worker exits "
         "after the pool is dropped",
     .config = "1 worker; 2 outside threads (one installs twice in a row); 1 idle round; 1-bit JEC",
     .ci = {Search::Random, 0, 100000, 600},
     .clean = &run<pool::NoMutants>,
     .mutants =
         {
             {"no_inject_fence", &run<NoInjectFence>, false,
              "equivalent under the C++ model with crossbeam's Injector: the publisher's push (a SeqCst CAS) and its read of the counters, and the sleeper's counter CAS and is_empty (two SeqCst loads), are all SeqCst, and SeqCst operations are never reordered, so the fence adds no ordering for injected jobs; no_inject_fence_acq_rel shows the fence is needed once the Injector's orders are weakened"},
             {"no_sleep_fence", &run<NoSleepFence>, false,
              "equivalent under the C++ model with crossbeam's Injector: the publisher's push (a SeqCst CAS) and its read of the counters, and the sleeper's counter CAS and is_empty (two SeqCst loads), are all SeqCst, and SeqCst operations are never reordered, so the fence adds no ordering for injected jobs; even with the Injector weakened the fence stays redundant, because gate 5's broadcast-queue check (Stealer::is_empty) runs its own SeqCst fence (no_sleep_fence_acq_rel)"},
             {"injector_acq_rel", &run<InjectorAcqRel>, false,
              "negative control: the two SeqCst fences order the weakened Injector's accesses"},
             {"no_inject_fence_acq_rel", &run<NoInjectFenceAcqRel>},
             {"no_sleep_fence_acq_rel", &run<NoSleepFenceAcqRel>, false,
              "equivalent under the C++ model: gate 5 reads the worker's broadcast queue first, and its is_empty (crossbeam's Stealer::is_empty) runs a SeqCst fence between the sleeper's counter CAS and its Acquire read of the Injector (handshake_inject shows it exhaustively)"},
             {"no_gate5", &run<NoGate5>, false,
              "not shown: with one worker the counter rolls back only through the sleeper's own announce, and the sleeper then misses the job only if its Acquire read of the injector is stale after that SeqCst announce; neither 200 000 random executions of an earlier shape of this model (two outside threads, one install each) nor the 100 000 of this one produced it; handshake_inject_rollover catches it at bound 1, and the broadcast models through the broadcast half of gate 5"},
             {"no_gate5_narrow_jec", &run<NoGate5NarrowJec>, false, "not shown: with one worker the counter rolls back only through the sleeper's own announce, and the sleeper then misses the job only if its Acquire read of the injector is stale after that SeqCst announce; neither 200 000 random executions of an earlier shape of this model (two outside threads, one install each) nor the 100 000 of this one produced it; handshake_inject_rollover catches it at bound 1, and the broadcast models through the broadcast half of gate 5"},
         }})

}  // namespace

}  // namespace wsstress::relacy
