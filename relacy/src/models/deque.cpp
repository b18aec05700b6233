// SPDX-License-Identifier: MIT OR Apache-2.0
// Model "deque": the Chase-Lev deque's owner pop racing steals. The owner
// pushes two jobs and pops until empty while a thief steals twice. The
// owner's pop lowers `back` and then, after a SeqCst fence, reads `front`;
// the thief reads `front`, fences, then reads `back`. Without the owner's
// fence its read of `front` may miss the thief's first steal, so it takes the
// second job without the CAS that settles the last-job race, while the thief
// (reading the old `back`) takes it too. Without the Release that publishes
// `back` after the slot (deque_push_relaxed), the thief may take the slot
// before the job is in it, and the job is lost. Claim: each job is taken
// exactly once (the owner pops until empty, so none may be left).
#include "../harness.hpp"

namespace wsstress::relacy {
namespace {

template <class M>
struct DequeModel : ModelSuite<DequeModel<M>, 2> {
  pool::Deque<RP, ModelKnobs<M>> deque;
  pool::JobHeader jobs[2] = {{nullptr}, {nullptr}};
  rl::var<int> taken[2];

  DequeModel() {
    taken[0]($) = 0;
    taken[1]($) = 0;
  }
  void take(pool::JobRef j) {
    for (int i = 0; i < 2; ++i) {
      if (j.header() == &jobs[i]) taken[i]($) = taken[i]($) + 1;
    }
  }

  void thread(unsigned index) {
    if (index == 0) {
      deque.push(pool::JobRef(&jobs[0]));
      deque.push(pool::JobRef(&jobs[1]));
      while (pool::JobRef j = deque.pop()) take(j);
    } else {
      for (int i = 0; i < 2; ++i) {
        pool::Steal s = deque.steal();
        if (s.kind == pool::StealKind::Success) take(s.job);
      }
    }
  }
  void after() {
    RL_ASSERT(taken[0]($) == 1 && taken[1]($) == 1);
    RP::end_iteration();
  }
};

template <class M>
RawResult run(const SearchSpec& s) {
  return run_suite<DequeModel<M>>(s);
}

using namespace pool::mutants;  // the mutant policies the entries name

WSSTRESS_REGISTER_MODEL(
    deque_model,
    {.rank = 70,
     .name = "deque",
     .claim = "the owner pushes two jobs and pops until empty while a thief steals twice: every job taken exactly once",
     .config = "the Chase-Lev deque alone; owner and one thief",
     .ci = {Search::Bound, 3, 0, 600},
     .clean = &run<pool::NoMutants>,
     .mutants = {
         {"deque_pop_no_fence", &run<DequePopNoFence>},
         {"epoch_pin_x86_cas", &run<EpochPinX86Cas>},
         {"deque_push_relaxed", &run<DequePushRelaxed>},
     }})

}  // namespace

}  // namespace wsstress::relacy
