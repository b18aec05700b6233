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
#include "handshake_rig.hpp"

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

}  // namespace

std::vector<ModelEntry> handshake_entries() {
  using namespace wsstress::pool::mutants;
  using pool::NoMutants;
  return {
      {"handshake_latch", "none", &run_model<LatchModel, NoMutants>, false},
      {"handshake_latch", "latch_set_no_wake", &run_model<LatchModel, LatchSetNoWake>},
      {"handshake_latch", "late_is_blocked_lock", &run_model<LatchModel, LateIsBlockedLock>},
      {"handshake_latch", "core_latch_set_seqcst", &run_model<LatchModel, CoreLatchSetSeqCst>, false,
       "negative control: the latch's swap and the owner's CASes are RMWs of one word"},
      {"handshake_latch", "no_sleep_fence", &run_model<LatchModel, NoSleepFence>, false,
       "equivalent: a latch needs no fence, its set and the owner's gates are RMWs of one word"},
      {"handshake_internal", "none", &run_model<InternalModel, NoMutants>, false},
      {"handshake_internal", "latch_set_no_wake", &run_model<InternalModel, LatchSetNoWake>},
      {"handshake_internal", "no_sleep_fence", &run_model<InternalModel, NoSleepFence>, false,
       "equivalent: an internal push needs no fence by design, and the latch's set is an RMW of the word the "
       "owner's gates CAS"},
      {"handshake_inject", "none", &run_model<InjectModel, NoMutants>, false},
      {"handshake_inject", "no_inject_fence", &run_model<InjectModel, NoInjectFence>, false, "equivalent (fence table)"},
      {"handshake_inject", "no_sleep_fence", &run_model<InjectModel, NoSleepFence>, false, "equivalent (fence table)"},
      {"handshake_inject", "injector_acq_rel", &run_model<InjectModel, InjectorAcqRel>, false, "negative control"},
      {"handshake_inject", "no_inject_fence_acq_rel", &run_model<InjectModel, NoInjectFenceAcqRel>},
      {"handshake_inject", "no_sleep_fence_acq_rel", &run_model<InjectModel, NoSleepFenceAcqRel>, false,
       "equivalent: gate 5's broadcast-queue check (crossbeam's Stealer::is_empty) runs a SeqCst fence between "
       "the counters CAS and the Injector read"},
      {"handshake_inject", "no_gate5", &run_model<InjectModel, NoGate5>, false,
       "equivalent here: one injection moves the JEC once, so it cannot roll back (handshake_inject_rollover)"},
      {"handshake_inject_rollover", "none", &run_model<InjectRolloverModel, NoMutants>, false},
      {"handshake_inject_rollover", "no_gate5", &run_model<InjectRolloverModel, NoGate5>},
      {"handshake_inject_rollover", "no_gate5_narrow_jec", &run_model<InjectRolloverModel, NoGate5NarrowJec>},
      {"handshake_broadcast", "none", &run_model<BroadcastModel, NoMutants>, false},
      {"handshake_broadcast", "gate5_ignores_broadcasts", &run_model<BroadcastModel, Gate5IgnoresBroadcasts>},
      {"handshake_broadcast", "no_gate5", &run_model<BroadcastModel, NoGate5>},
      {"handshake_broadcast", "no_sleep_fence", &run_model<BroadcastModel, NoSleepFence>, false, "equivalent (fence table)"},
      {"handshake_terminate", "none", &run_model<TerminateModel, NoMutants>, false},
      {"handshake_terminate", "terminate_no_wake", &run_model<TerminateModel, TerminateNoWake>},
      {"handshake_terminate", "late_is_blocked_lock", &run_model<TerminateModel, LateIsBlockedLock>},
      {"handshake_terminate", "no_sleep_fence", &run_model<TerminateModel, NoSleepFence>, false,
       "equivalent: the terminate latch's set is an RMW of the word the owner's gates CAS"},
  };
}

}  // namespace wsstress::relacy
