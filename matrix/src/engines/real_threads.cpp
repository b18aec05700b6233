// SPDX-License-Identifier: MIT OR Apache-2.0
// The `stress` column: real threads (`wsstress run`'s campaign with its hang
// watchdog, on the noisy platform), called through its library API with what
// `wsstress run` would set from the matrix's spec, its report turned into an
// EngineResult; and what real threads on this hardware (x86-64) are expected
// to do with every mutant, with the reason, which `mutants list` prints.
#include "wsstress/matrix/engine.hpp"
#include "wsstress/threads/campaign.hpp"

namespace wsstress::matrix {
namespace {

using threads::CampaignReport;

// What real threads can do with each mutant, as measured in the README's
// matrix (`mutants check --engine threads`), and why.
struct RealThreadsRow {
  MutantId mutant;
  Expect expect;
  std::string_view note;
};

namespace real_threads_rows {
using enum MutantId;
using enum Expect;
constexpr RealThreadsRow kRows[] = {
    {none, Pass, "must pass every seed"},
    {no_gate5, Catch,
     "reachable through broadcasts: inject_broadcast bumps no JEC, so a broadcast job pushed before "
     "the sleeper takes its lock is seen by gate 5 only (the injector path needs a 32-bit JEC rollover)"},
    {no_gate5_narrow_jec, Catch, "reachable as no_gate5 is; the narrow JEC adds the rollover path"},
    {no_inject_fence, Cannot,
     "masked on x86 too: the push's CAS and the sleeper's CAS are locked instructions, full barriers"},
    {no_sleep_fence, Cannot, "masked on x86 too: the CAS that registers the sleeper is a full barrier"},
    {late_is_blocked_lock, Catch, "reachable with noise between registering and locking"},
    {gate5_ignores_broadcasts, Catch, "reachable: broadcast_sleep_race caught it upstream in ~5% of runs"},
    {cross_latch_no_keepalive, Maybe,
     "not reproduced on real threads so far (1,033 seeds in 20 s under ASan): the waiter must leave "
     "its sleep without the setter's wake-up while the setter sits between set and notify, and its pool must "
     "be freed in that window; AddressSanitizer would see the freed memory, the default build may hang on the "
     "freed registry's mutex (as scope_latch_no_keepalive does). Targets for the simulator and Relacy"},
    {scope_latch_no_keepalive, Maybe,
     "under ASan, heap-use-after-free within the first 13 seeds (under 0.5 s) in three runs; in the "
     "default build the setter locks the freed registry's futex mutex, whose reused word can read as locked, "
     "and waits on it for ever: a hang (seeds 12 and 42, 2026-12-05; with glibc's mutex it read the freed "
     "memory silently). Caught by the simulator's liveness stamps (PCT)"},
    {cross_is_cold, Catch, "reachable: a hang"},
    {self_install_blocks, Catch, "reachable: a hang"},
    {latch_set_no_wake, Catch, "reachable: a hang"},
    {terminate_no_wake, Catch, "reachable: a hang"},
    {lock_latch_set_outside_mutex, Catch, "reachable with noise before the condvar wait"},
    {lock_latch_wait_once, Catch,
     "reachable since the noisy condvar wakes spuriously; glibc almost never does. Under "
     "TSan the early read of the result and the worker's write of it are a data race, when TSan sees them first"},
    {cold_latch_no_reset, Catch, "reachable: the pool aborts reading an empty result"},
    {internal_push_no_jec, Maybe,
     "reachable only where one half of a join waits for the other to start (the rendezvous scenario)"},
    {spawn_no_catch_unwind, Catch, "reachable: the process aborts at the first throwing spawn"},
    {spawn_no_terminate_count, Catch, "reachable"},
    {arc_job_no_creator_ref, Maybe,
     "reachable: a worker must run its copy before the broadcaster has pushed the next one; the default "
     "build reads the freed job silently (ASan or the simulator's liveness stamps see it)"},
    {is_sleepy_always_true, Catch, "caught by the JEC parity invariant"},
    {jec_carry, Catch, "caught by the counter invariants"},
    {deque_pop_no_fence, Maybe,
     "a store->load reordering: x86 shows it only rarely on real threads; the TSO simulator's store "
     "buffer shows it once stores stay buffered for tens of decisions (a per-seed flush rate)"},
    {deque_push_relaxed, Cannot,
     "not on x86: stores are not reordered with stores there (nor in the TSO simulator); needs Relacy"},
    {latch_probe_relaxed, Cannot,
     "not on x86: every load is an acquire there (nor in the TSO simulator); needs Relacy or TSan"},
    {count_latch_sub_relaxed, Cannot,
     "not on x86: a locked RMW is a full barrier there (nor in the TSO simulator); needs Relacy or TSan; "
     "the simulator's C++ model shows the owner's later loads reading stale values (a crash, seed 433)"},
    {narrow_jec, Pass, "negative control: must pass"},
    {core_latch_set_seqcst, Pass, "negative control: must pass"},
    {injector_acq_rel, Pass, "negative control: must pass (and x86 compiles both orders alike)"},
    {no_inject_fence_acq_rel, Cannot,
     "masked on x86 and under TSO: the push is a locked CAS there, a full barrier; needs Relacy or the "
     "simulator's C++ model (one-worker pools)"},
    {no_sleep_fence_acq_rel, Pass,
     "negative control: must pass (equivalent under the C++ model, shown exhaustively by Relacy)"},
    {epoch_pin_x86_cas, Cannot,
     "not on x86: a locked CAS is a full barrier there, as crossbeam relies on; needs Relacy"},
};
static_assert(one_row_per_mutant(kRows), "one row per mutant of pool/mutants.hpp, in its order");
}  // namespace real_threads_rows

// Every seed from 0 until the budget runs out or the first failure.
constexpr core::SeedRange kAllSeeds{0, 1000000000};

EngineResult from_campaign(const CampaignReport& report) {
  if (report.failures.empty()) return matrix::nothing_caught(report.runs);
  const threads::SeedFailure& f = report.failures.front();
  // The campaign spells the replay (`wsstress run ... --seed N`), as `run` prints it.
  return {true, verdict_name(f.verdict.kind), f.verdict.message, f.seed, report.runs, f.at_seconds, f.replay};
}

class RealThreadsEngine final : public Engine {
 public:
  std::string_view name() const override { return "threads"; }
  int rank() const override { return 10; }

  EngineResult run(const MatrixSpec& spec, const MutantInfo& m, const std::string&,
                   const Deliver& deliver) const override {
    core::CampaignSpec c;
    c.run = spec.base;
    c.run.scenario = m.scenario;
    c.run.mutant = m.name;
    c.run.hang_timeout_s = spec.hang_timeout_s;
    c.seeds = kAllSeeds;
    c.max_seconds = spec.budget_s;
    threads::CampaignHooks hooks;
    // A hang or a broken invariant: the pool's threads are stuck, so the
    // result leaves from here and the child ends.
    hooks.fatal = [&deliver](const CampaignReport& report) { deliver(from_campaign(report)); };
    return from_campaign(threads::run_campaign(c, hooks));
  }

  Expect expect(const MutantInfo& m) const override { return row_of(real_threads_rows::kRows, m.id).expect; }
  std::string_view note_heading() const override { return "on real threads"; }
  std::string_view note(const MutantInfo& m) const override { return row_of(real_threads_rows::kRows, m.id).note; }
};

}  // namespace
}  // namespace wsstress::matrix

namespace wsstress::matrix {
WSSTRESS_REGISTER_ENGINE(real_threads_engine, RealThreadsEngine{})
}  // namespace wsstress::matrix
