// SPDX-License-Identifier: MIT OR Apache-2.0
// The protocol models: the latch kinds and the shared job's
// reference count as the pool sets and waits on them, outside the sleep gates
// the handshake models check, each small enough for Relacy's context-bound or
// full search to finish (a pass is "no failure within bound k"), each with a
// claim about the data handed over, not only "no deadlock". All four are the
// pool's own templates over RelacyPlatform; what they leave out is the
// Registry (relacy/COVERAGE.md: what only the random registry-level models
// reach). lock_latch_wait_once is no target: Relacy's condition variable
// never wakes spuriously, and only a spurious wake-up ends that wait early.
//   lock_latch       in_worker_cold's thread-local LockLatch, used for two
//                    cold calls in a row (set, wait_and_reset, set again)
//   count_lock_latch a scope opened outside the pool: a CountLockLatch
//                    counted up per spawn and down per finished job
//   arc_job          a job shared by two JobRefs (ArcJob, RefCount: the
//                    broadcasts' jobs), freed by the last of three references
//   scope_count      a scope opened on a worker: a CountLatch counted up per
//                    spawn, its jobs on the owner's deque, stolen or run by the
//                    owner while it idles in the pool's sleep gates, each
//                    finished job decrementing and waking the owner
//                    (set_and_tickle_one, as the ScopeLatch of rayon-core 1.10.1)
#include "../handshake_rig.hpp"

namespace wsstress::relacy {
namespace {

// An outside thread makes two cold calls through one LockLatch (the pool's
// thread-local latch): for each, it hands the worker a call, waits with
// wait_and_reset, and reads the result the worker wrote before set(). Claim:
// each wait returns only after its call's set, and reads that call's result.
template <class M>
struct LockLatchModel : ModelSuite<LockLatchModel<M>, 2> {
  pool::LockLatch<RP, ModelKnobs<M>> latch;
  Signal call[2];
  rl::var<int> result;
  LockLatchModel() { result($) = 0; }

  void thread(unsigned index) {
    for (int k = 1; k <= 2; ++k) {
      if (index == 0) {
        call[k - 1].set();
        latch.wait_and_reset();
        RL_ASSERT(result($) == k);
      } else {
        call[k - 1].wait();
        result($) = k;
        latch.set();
      }
    }
  }
};

using namespace pool::mutants;  // the mutant policies the entries name

WSSTRESS_REGISTER_MODEL(
    lock_latch_model,
    {.rank = 140,
     .name = "lock_latch",
     .claim =
         "in_worker_cold's thread-local LockLatch serving two cold calls in a row: each wait_and_reset returns only "
         "after that call's set, and the caller reads that call's result",
     .config = "the LockLatch alone; the caller and one worker",
     .ci = {Search::Full, 0, 0, 600},
     .clean = &run_model<LockLatchModel, NoMutants>,
     .mutants = {
         {"lock_latch_set_outside_mutex", &run_model<LockLatchModel, LockLatchSetOutsideMutex>},
     }})

// A scope opened outside the pool: the owner counts two spawns up
// (increment), two jobs run on other threads and count down (set), the owner
// drops its own count and waits. Claim: the wait returns after both jobs, and
// the owner reads both jobs' results.
template <class M>
struct CountLockLatchModel : ModelSuite<CountLockLatchModel<M>, 3> {
  pool::CountLockLatch<RP, ModelKnobs<M>> latch{1};
  Signal spawned[2];
  rl::var<int> out[2];
  CountLockLatchModel() {
    out[0]($) = 0;
    out[1]($) = 0;
  }

  void thread(unsigned index) {
    if (index == 0) {
      for (int k = 0; k < 2; ++k) {
        latch.increment();
        spawned[k].set();
      }
      latch.set();
      latch.wait();
      RL_ASSERT(out[0]($) == 1 && out[1]($) == 1);
    } else {
      spawned[index - 1].wait();
      out[index - 1]($) = 1;
      latch.set();
    }
  }
};

WSSTRESS_REGISTER_MODEL(
    count_lock_latch_model,
    {.rank = 150,
     .name = "count_lock_latch",
     .claim =
         "a scope opened outside the pool (CountLockLatch): two spawns counted up, two jobs on other threads count "
         "down; the owner's wait returns after both and reads both results",
     .config = "the CountLockLatch alone; the owner and two job threads",
     .ci = {Search::Bound, 5, 0, 600},
     .clean = &run_model<CountLockLatchModel, NoMutants>,
     .mutants = {
         {"count_latch_sub_relaxed", &run_model<CountLockLatchModel, CountLatchSubRelaxed>},
         {"lock_latch_set_outside_mutex", &run_model<CountLockLatchModel, LockLatchSetOutsideMutex>},
     }})

// A scope opened on worker 0: its CountLatch starts at one (the scope's own
// body), each of two spawns counts it up and pushes a job on worker 0's deque;
// the body done, the owner counts down and idles on the latch in the pool's
// loop (it may run its own jobs or sleep while worker 1 steals them). A
// finished job writes its output, counts down and, if that set the latch,
// wakes the owner. Worker 1 idles until the owner releases it. Claim: the
// owner returns only after both jobs ran, each exactly once, and reads both
// outputs; both workers return.
template <class M>
struct ScopeCountModel : ModelSuite<ScopeCountModel<M>, 2> {
  using Rig = HandshakeRig<M, 2>;
  using Count = pool::CountLatch<RP, ModelKnobs<M>>;

  struct ScopeJob : pool::JobHeader {
    ScopeCountModel* model = nullptr;
    rl::var<int> runs, out;
    ScopeJob() {
      execute_fn = &run;
      runs($) = 0;
      out($) = 0;
    }
    static void run(pool::JobHeader* h) noexcept {
      auto* self = static_cast<ScopeJob*>(h);
      self->runs($) = self->runs($) + 1;
      self->out($) = 1;
      self->model->scope.set_and_tickle_one(self->model->rig.sleep, 0);
    }
  };

  Rig rig;
  Count scope{1};
  typename Rig::LatchT latch1;
  ScopeJob jobs[2];
  ScopeCountModel() {
    for (ScopeJob& j : jobs) j.model = this;
  }

  void thread(unsigned index) {
    if (index == 0) {
      for (ScopeJob& j : jobs) {
        scope.increment();
        rig.push_internal(0, pool::JobRef(&j));
      }
      scope.set();
      rig.wait_until(0, scope.as_core_latch());
      for (ScopeJob& j : jobs) RL_ASSERT(j.runs($) == 1 && j.out($) == 1);
      rig.set_latch(latch1, 1);
    } else {
      rig.wait(1, latch1);
    }
  }
};

WSSTRESS_REGISTER_MODEL(
    scope_count_model,
    {.rank = 170,
     .name = "scope_count",
     .claim = "a scope opened on a worker (CountLatch, set_and_tickle_one): two spawned jobs on the owner's deque, run "
              "by the owner in its idle loop or stolen by the other worker; the owner returns only after both ran, "
              "each exactly once, and reads both outputs; both workers return",
     .config = "Sleep + queues of 2 workers; 1 idle round; 1-bit JEC",
     .ci = {Search::Bound, 1, 0, 600},
     .clean = &run_model<ScopeCountModel, NoMutants>,
     .mutants = {
         {"count_latch_sub_relaxed", &run_model<ScopeCountModel, CountLatchSubRelaxed>},
         {"late_is_blocked_lock", &run_model<ScopeCountModel, LateIsBlockedLock>},
         {"latch_probe_relaxed", &run_model<ScopeCountModel, LatchProbeRelaxed>},
     }})

// A job shared by two JobRefs, as spawn_broadcast and a scope's broadcast
// make one (ArcJob over the pool's RefCount, Arc's orders): the creator takes
// a JobRef per worker and drops its own reference; two threads run one JobRef
// each. Claim: both runs read the closure, and the job is freed exactly once,
// after both (Relacy reports a use of freed memory, a double free or a leak).
template <class M>
struct ArcJobModel : ModelSuite<ArcJobModel<M>, 3> {
  struct Body {
    RP::Atomic<int>* runs;
    void operator()() const { runs->fetch_add(1, std::memory_order_relaxed); }
  };
  RP::Atomic<int> runs{0};
  Signal handed[2], ran[2];
  pool::JobRef refs[2];

  void thread(unsigned index) {
    if (index == 0) {
      auto* job = new pool::ArcJob<RP, ModelKnobs<M>, Body>(Body{&runs});
      for (int k = 0; k < 2; ++k) {
        refs[k] = job->new_job_ref();
        handed[k].set();
      }
      job->release_creator();
      ran[0].wait();
      ran[1].wait();
      RL_ASSERT(runs.load(std::memory_order_relaxed) == 2);
    } else {
      handed[index - 1].wait();
      refs[index - 1].execute();
      ran[index - 1].set();
    }
  }
};

WSSTRESS_REGISTER_MODEL(
    arc_job_model,
    {.rank = 160,
     .name = "arc_job",
     .claim =
         "a job shared by two JobRefs (ArcJob over RefCount, as spawn_broadcast makes one), the creator dropping its "
         "reference while two threads run one JobRef each: both runs happen and the job is freed exactly once, after "
         "both",
     .config = "the ArcJob alone; the creator and two runners",
     .ci = {Search::Bound, 4, 0, 600},
     .clean = &run_model<ArcJobModel, NoMutants>,
     .mutants = {
         {"arc_job_no_creator_ref", &run_model<ArcJobModel, ArcJobNoCreatorRef>},
     }})

}  // namespace

}  // namespace wsstress::relacy
