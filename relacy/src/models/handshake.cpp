// SPDX-License-Identifier: MIT OR Apache-2.0
// The handshake models: one per kind of lost wake-up the seeds name, each run
// on the HandshakeRig (the pool's own sleep module and queues below the
// registry), small enough for Relacy's context-bound search to finish, so a
// pass is "no failure within bound k" rather than "none in N random runs".
// Knobs (ModelKnobs): one idle round before sleepy, a one-bit JEC, Injector
// blocks of three slots. Every claim includes "and no data race, no
// deadlock": Relacy reports a worker asleep forever as a deadlock.
//   handshake_latch     (a) a latch set by another worker (join's B stolen)
//   handshake_internal  (b) a worker's own push: a sleeper may miss it (one
//                           helper fewer), but the job runs exactly once
//   handshake_inject    (c) a job injected from outside into one worker
//   handshake_inject_rollover (c') the same, while a second worker's sleepy
//                           announce can roll the one-bit JEC back
//   handshake_broadcast (d) a broadcast job, which bumps no JEC
//   handshake_terminate (e) the terminate latch
#include "../handshake_rig.hpp"

namespace wsstress::relacy {
namespace {

// (a) Worker 0 waits for a latch that worker 1 sets after writing the result
// it guards: worker 0 returns and reads the result.
template <class M>
struct LatchModel : ModelSuite<LatchModel<M>, 2> {
  HandshakeRig<M, 2> rig;
  typename HandshakeRig<M, 2>::LatchT latch0;
  rl::var<int> result;

  void thread(unsigned index) {
    if (index == 0) {
      rig.wait(0, latch0);
      RL_ASSERT(result($) == 1);
    } else {
      result($) = 1;
      rig.set_latch(latch0, 0);
    }
  }
};

using namespace pool::mutants;  // the mutant policies the entries name

WSSTRESS_REGISTER_MODEL(
    handshake_latch_model,
    {.rank = 80,
     .name = "handshake_latch",
     .claim =
         "below the registry: worker 0 idles on its latch until worker 1, having written the result, sets it: worker "
         "0 returns and reads the result",
     .config = "Sleep + queues of 2 workers; 1 idle round; 1-bit JEC",
     .ci = {Search::Bound, 3, 0, 600},
     .clean = &run_model<LatchModel, NoMutants>,
     .mutants = {
         {"latch_set_no_wake", &run_model<LatchModel, LatchSetNoWake>},
         {"late_is_blocked_lock", &run_model<LatchModel, LateIsBlockedLock>},
         {"core_latch_set_seqcst", &run_model<LatchModel, CoreLatchSetSeqCst>, false,
          "negative control: the latch's swap and the owner's CASes are RMWs of one word"},
         {"no_sleep_fence", &run_model<LatchModel, NoSleepFence>, false,
          "equivalent: a latch needs no fence, its set and the owner's gates are RMWs of one word"},
     }})

// (b) Worker 1 pushes a job on its own deque and waits for it (the job sets
// worker 1's latch), then releases worker 0; worker 0 idles and may steal
// the job or sleep through the push. The job runs exactly once.
template <class M>
struct InternalModel : ModelSuite<InternalModel<M>, 2> {
  using Rig = HandshakeRig<M, 2>;
  Rig rig;
  typename Rig::LatchT latch0, latch1;
  typename Rig::LatchJob job;
  InternalModel() { job.bind(rig, latch1, 1); }

  void thread(unsigned index) {
    if (index == 0) {
      rig.wait(0, latch0);
    } else {
      rig.push_internal(1, job.ref());
      rig.wait(1, latch1);
      RL_ASSERT(job.runs($) == 1);
      rig.set_latch(latch0, 0);
    }
  }
};

WSSTRESS_REGISTER_MODEL(
    handshake_internal_model,
    {.rank = 90,
     .name = "handshake_internal",
     .claim =
         "below the registry: worker 1 pushes a job on its own deque and waits for it while worker 0 idles (it may "
         "steal the job or sleep through the push): the job runs exactly once and both return",
     .config = "Sleep + queues of 2 workers; 1 idle round; 1-bit JEC",
     .ci = {Search::Bound, 1, 0, 600},
     .clean = &run_model<InternalModel, NoMutants>,
     .mutants = {
         {"latch_set_no_wake", &run_model<InternalModel, LatchSetNoWake>},
         {"no_sleep_fence", &run_model<InternalModel, NoSleepFence>, false,
          "equivalent: an internal push needs no fence by design, and the latch's set is an RMW of the word the "
          "owner's gates CAS"},
     }})

// (c) An outside thread injects a job that sets worker 0's latch: worker 0,
// idling on its way to sleep, runs the job and returns. The store-buffering
// pair of the seeds' proof: the injector's push and the JEC read against the
// sleeper's JEC CAS and its injector check. The JEC starts active, as after an
// earlier publication nobody has slept through since (the usual state of a
// busy pool): from the initial sleepy JEC the publisher's CAS would always
// hand the sleeper its push, and the pair would never be tested.
template <class M>
struct InjectModel : ModelSuite<InjectModel<M>, 2> {
  using Rig = HandshakeRig<M, 1>;
  Rig rig;
  typename Rig::LatchT latch0;
  typename Rig::LatchJob job;
  InjectModel() {
    job.bind(rig, latch0, 0);
    rig.make_jec_active();
  }

  void thread(unsigned index) {
    if (index == 0) {
      rig.wait(0, latch0);
      RL_ASSERT(job.runs($) == 1);
    } else {
      rig.inject(job.ref());
    }
  }
};

WSSTRESS_REGISTER_MODEL(
    handshake_inject_model,
    {.rank = 100,
     .name = "handshake_inject",
     .claim =
         "below the registry: an outside thread injects a job for the one worker, which idles on its way to sleep: "
         "the worker runs the job and returns",
     .config = "Sleep + queues of 1 worker; 1 idle round; 1-bit JEC, started active; Injector lap 4",
     .ci = {Search::Bound, 2, 0, 600},
     .clean = &run_model<InjectModel, NoMutants>,
     .mutants = {
         {"no_inject_fence", &run_model<InjectModel, NoInjectFence>, false, "equivalent (fence table)"},
         {"no_sleep_fence", &run_model<InjectModel, NoSleepFence>, false, "equivalent (fence table)"},
         {"injector_acq_rel", &run_model<InjectModel, InjectorAcqRel>, false, "negative control"},
         {"no_inject_fence_acq_rel", &run_model<InjectModel, NoInjectFenceAcqRel>},
         {"no_sleep_fence_acq_rel", &run_model<InjectModel, NoSleepFenceAcqRel>, false,
          "equivalent: gate 5's broadcast-queue check (crossbeam's Stealer::is_empty) runs a SeqCst fence between "
          "the counters CAS and the Injector read"},
         {"no_gate5", &run_model<InjectModel, NoGate5>, false,
          "equivalent here: one injection moves the JEC once, so it cannot roll back (handshake_inject_rollover)"},
     }})

// (c') The same injection while worker 1 turns sleepy once and finds work, so
// its announce can return the one-bit JEC to the value worker 0 remembered
// (the rollover gate 5 exists for). Worker 0 runs the job and returns.
template <class M>
struct InjectRolloverModel : ModelSuite<InjectRolloverModel<M>, 3> {
  using Rig = HandshakeRig<M, 2>;
  Rig rig;
  typename Rig::LatchT latch0, latch1;
  typename Rig::LatchJob job;
  InjectRolloverModel() { job.bind(rig, latch0, 0); }

  void thread(unsigned index) {
    if (index == 0) {
      rig.wait(0, latch0);
      RL_ASSERT(job.runs($) == 1);
    } else if (index == 1) {
      rig.inject(job.ref());
    } else {
      rig.turn_sleepy_then_busy(1, latch1);
    }
  }
};

WSSTRESS_REGISTER_MODEL(
    handshake_inject_rollover_model,
    {.rank = 110,
     .name = "handshake_inject_rollover",
     .claim =
         "below the registry: an outside thread injects a job for worker 0 while worker 1's sleepy announce can roll "
         "the JEC back: worker 0 runs the job and returns",
     .config = "Sleep + queues of 2 workers; 1 idle round; 1-bit JEC; Injector lap 4",
     .ci = {Search::Bound, 1, 0, 600},
     .clean = &run_model<InjectRolloverModel, NoMutants>,
     .mutants = {
         {"no_gate5", &run_model<InjectRolloverModel, NoGate5>},
         {"no_gate5_narrow_jec", &run_model<InjectRolloverModel, NoGate5NarrowJec>},
     }})

// (d) An outside thread broadcasts into one worker on its way to sleep: the
// worker runs its broadcast job (which sets its latch) and returns.
template <class M>
struct BroadcastModel : ModelSuite<BroadcastModel<M>, 2> {
  using Rig = HandshakeRig<M, 1>;
  Rig rig;
  typename Rig::LatchT latch0;
  typename Rig::LatchJob job;
  BroadcastModel() { job.bind(rig, latch0, 0); }

  void thread(unsigned index) {
    if (index == 0) {
      rig.wait(0, latch0);
      RL_ASSERT(job.runs($) == 1);
    } else {
      rig.inject_broadcast([this](std::size_t) noexcept { return job.ref(); });
    }
  }
};

WSSTRESS_REGISTER_MODEL(
    handshake_broadcast_model,
    {.rank = 120,
     .name = "handshake_broadcast",
     .claim = "below the registry: an outside broadcast into a worker on its way to sleep: the worker runs its job and "
              "returns",
     .config = "Sleep + queues of 1 worker; 1 idle round; 1-bit JEC",
     .ci = {Search::Bound, 3, 0, 600},
     .clean = &run_model<BroadcastModel, NoMutants>,
     .mutants = {
         {"gate5_ignores_broadcasts", &run_model<BroadcastModel, Gate5IgnoresBroadcasts>},
         {"no_gate5", &run_model<BroadcastModel, NoGate5>},
         {"no_sleep_fence", &run_model<BroadcastModel, NoSleepFence>, false, "equivalent (fence table)"},
     }})

// (e) An outside thread drops the last terminate count while the worker waits
// on its terminate latch: the worker returns.
template <class M>
struct TerminateModel : ModelSuite<TerminateModel<M>, 2> {
  using Rig = HandshakeRig<M, 1>;
  Rig rig;
  pool::CountLatch<RP, ModelKnobs<M>> terminate_latch{1};

  void thread(unsigned index) {
    if (index == 0) {
      rig.main_loop(0, terminate_latch);
    } else {
      rig.terminate(terminate_latch, 0);
    }
  }
};

WSSTRESS_REGISTER_MODEL(
    handshake_terminate_model,
    {.rank = 130,
     .name = "handshake_terminate",
     .claim = "below the registry: the last terminate count dropped while the worker idles on its terminate latch: the "
              "worker returns",
     .config = "Sleep + queues of 1 worker; 1 idle round; 1-bit JEC",
     .ci = {Search::Bound, 4, 0, 600},
     .clean = &run_model<TerminateModel, NoMutants>,
     .mutants = {
         {"terminate_no_wake", &run_model<TerminateModel, TerminateNoWake>},
         {"late_is_blocked_lock", &run_model<TerminateModel, LateIsBlockedLock>},
         {"no_sleep_fence", &run_model<TerminateModel, NoSleepFence>, false,
          "equivalent: the terminate latch's set is an RMW of the word the owner's gates CAS"},
     }})

}  // namespace

}  // namespace wsstress::relacy
