// Name -> runner tables (real threads, simulator) for every catalog mutant and
// the clean pool.
#include <map>

#include "wsstress/sim/engine.hpp"
#include "wsstress/stress/catalog.hpp"
#include "wsstress/stress/runner.hpp"

namespace wsstress::stress {

extern template Verdict run_one<mutants::NoMutants>(const RunSpec&, std::uint64_t);
extern template Verdict run_one<mutants::NoGate5>(const RunSpec&, std::uint64_t);
extern template Verdict run_one<mutants::NoGate5NarrowJec>(const RunSpec&, std::uint64_t);
extern template Verdict run_one<mutants::NoInjectFence>(const RunSpec&, std::uint64_t);
extern template Verdict run_one<mutants::NoSleepFence>(const RunSpec&, std::uint64_t);
extern template Verdict run_one<mutants::LateIsBlockedLock>(const RunSpec&, std::uint64_t);
extern template Verdict run_one<mutants::Gate5IgnoresBroadcasts>(const RunSpec&, std::uint64_t);
extern template Verdict run_one<mutants::CrossLatchNoKeepAlive>(const RunSpec&, std::uint64_t);
extern template Verdict run_one<mutants::ScopeLatchNoKeepAlive>(const RunSpec&, std::uint64_t);
extern template Verdict run_one<mutants::CrossIsCold>(const RunSpec&, std::uint64_t);
extern template Verdict run_one<mutants::SelfInstallBlocks>(const RunSpec&, std::uint64_t);
extern template Verdict run_one<mutants::LatchSetNoWake>(const RunSpec&, std::uint64_t);
extern template Verdict run_one<mutants::TerminateNoWake>(const RunSpec&, std::uint64_t);
extern template Verdict run_one<mutants::LockLatchSetOutsideMutex>(const RunSpec&, std::uint64_t);
extern template Verdict run_one<mutants::ColdLatchNoReset>(const RunSpec&, std::uint64_t);
extern template Verdict run_one<mutants::SpawnNoTerminateCount>(const RunSpec&, std::uint64_t);
extern template Verdict run_one<mutants::IsSleepyAlwaysTrue>(const RunSpec&, std::uint64_t);
extern template Verdict run_one<mutants::JecCarry>(const RunSpec&, std::uint64_t);
extern template Verdict run_one<mutants::DequePopNoFence>(const RunSpec&, std::uint64_t);
extern template Verdict run_one<mutants::NarrowJec>(const RunSpec&, std::uint64_t);
extern template Verdict run_one<mutants::CoreLatchSetSeqCst>(const RunSpec&, std::uint64_t);
extern template Verdict run_one<mutants::EpochPinX86Cas>(const RunSpec&, std::uint64_t);
extern template Verdict run_one<mutants::NoSleepFenceAcqRel>(const RunSpec&, std::uint64_t);
extern template Verdict run_one<mutants::NoInjectFenceAcqRel>(const RunSpec&, std::uint64_t);
extern template Verdict run_one<mutants::InjectorAcqRel>(const RunSpec&, std::uint64_t);

RunFn find_runner(const std::string& mutant) {
  static const std::map<std::string, RunFn> runners = {
      {"none", &run_one<mutants::NoMutants>},
      {"no_gate5", &run_one<mutants::NoGate5>},
      {"no_gate5_narrow_jec", &run_one<mutants::NoGate5NarrowJec>},
      {"no_inject_fence", &run_one<mutants::NoInjectFence>},
      {"no_sleep_fence", &run_one<mutants::NoSleepFence>},
      {"late_is_blocked_lock", &run_one<mutants::LateIsBlockedLock>},
      {"gate5_ignores_broadcasts", &run_one<mutants::Gate5IgnoresBroadcasts>},
      {"cross_latch_no_keepalive", &run_one<mutants::CrossLatchNoKeepAlive>},
      {"scope_latch_no_keepalive", &run_one<mutants::ScopeLatchNoKeepAlive>},
      {"cross_is_cold", &run_one<mutants::CrossIsCold>},
      {"self_install_blocks", &run_one<mutants::SelfInstallBlocks>},
      {"latch_set_no_wake", &run_one<mutants::LatchSetNoWake>},
      {"terminate_no_wake", &run_one<mutants::TerminateNoWake>},
      {"lock_latch_set_outside_mutex", &run_one<mutants::LockLatchSetOutsideMutex>},
      {"cold_latch_no_reset", &run_one<mutants::ColdLatchNoReset>},
      {"spawn_no_terminate_count", &run_one<mutants::SpawnNoTerminateCount>},
      {"is_sleepy_always_true", &run_one<mutants::IsSleepyAlwaysTrue>},
      {"jec_carry", &run_one<mutants::JecCarry>},
      {"deque_pop_no_fence", &run_one<mutants::DequePopNoFence>},
      {"narrow_jec", &run_one<mutants::NarrowJec>},
      {"core_latch_set_seqcst", &run_one<mutants::CoreLatchSetSeqCst>},
      {"epoch_pin_x86_cas", &run_one<mutants::EpochPinX86Cas>},
      {"no_sleep_fence_acq_rel", &run_one<mutants::NoSleepFenceAcqRel>},
      {"no_inject_fence_acq_rel", &run_one<mutants::NoInjectFenceAcqRel>},
      {"injector_acq_rel", &run_one<mutants::InjectorAcqRel>},
  };
  auto it = runners.find(mutant);
  return it == runners.end() ? nullptr : it->second;
}

}  // namespace wsstress::stress

namespace wsstress::sim {

extern template SimResult sim_run_one<stress::mutants::NoMutants>(const stress::RunSpec&, const SimConfig&);
extern template SimResult sim_run_one<stress::mutants::NoGate5>(const stress::RunSpec&, const SimConfig&);
extern template SimResult sim_run_one<stress::mutants::NoGate5NarrowJec>(const stress::RunSpec&, const SimConfig&);
extern template SimResult sim_run_one<stress::mutants::NoInjectFence>(const stress::RunSpec&, const SimConfig&);
extern template SimResult sim_run_one<stress::mutants::NoSleepFence>(const stress::RunSpec&, const SimConfig&);
extern template SimResult sim_run_one<stress::mutants::LateIsBlockedLock>(const stress::RunSpec&, const SimConfig&);
extern template SimResult sim_run_one<stress::mutants::Gate5IgnoresBroadcasts>(const stress::RunSpec&, const SimConfig&);
extern template SimResult sim_run_one<stress::mutants::CrossLatchNoKeepAlive>(const stress::RunSpec&, const SimConfig&);
extern template SimResult sim_run_one<stress::mutants::ScopeLatchNoKeepAlive>(const stress::RunSpec&, const SimConfig&);
extern template SimResult sim_run_one<stress::mutants::CrossIsCold>(const stress::RunSpec&, const SimConfig&);
extern template SimResult sim_run_one<stress::mutants::SelfInstallBlocks>(const stress::RunSpec&, const SimConfig&);
extern template SimResult sim_run_one<stress::mutants::LatchSetNoWake>(const stress::RunSpec&, const SimConfig&);
extern template SimResult sim_run_one<stress::mutants::TerminateNoWake>(const stress::RunSpec&, const SimConfig&);
extern template SimResult sim_run_one<stress::mutants::LockLatchSetOutsideMutex>(const stress::RunSpec&, const SimConfig&);
extern template SimResult sim_run_one<stress::mutants::ColdLatchNoReset>(const stress::RunSpec&, const SimConfig&);
extern template SimResult sim_run_one<stress::mutants::SpawnNoTerminateCount>(const stress::RunSpec&, const SimConfig&);
extern template SimResult sim_run_one<stress::mutants::IsSleepyAlwaysTrue>(const stress::RunSpec&, const SimConfig&);
extern template SimResult sim_run_one<stress::mutants::JecCarry>(const stress::RunSpec&, const SimConfig&);
extern template SimResult sim_run_one<stress::mutants::DequePopNoFence>(const stress::RunSpec&, const SimConfig&);
extern template SimResult sim_run_one<stress::mutants::NarrowJec>(const stress::RunSpec&, const SimConfig&);
extern template SimResult sim_run_one<stress::mutants::CoreLatchSetSeqCst>(const stress::RunSpec&, const SimConfig&);
extern template SimResult sim_run_one<stress::mutants::EpochPinX86Cas>(const stress::RunSpec&, const SimConfig&);
extern template SimResult sim_run_one<stress::mutants::NoSleepFenceAcqRel>(const stress::RunSpec&, const SimConfig&);
extern template SimResult sim_run_one<stress::mutants::NoInjectFenceAcqRel>(const stress::RunSpec&, const SimConfig&);
extern template SimResult sim_run_one<stress::mutants::InjectorAcqRel>(const stress::RunSpec&, const SimConfig&);

SimRunFn find_sim_runner(const std::string& mutant) {
  static const std::map<std::string, SimRunFn> runners = {
      {"none", &sim_run_one<stress::mutants::NoMutants>},
      {"no_gate5", &sim_run_one<stress::mutants::NoGate5>},
      {"no_gate5_narrow_jec", &sim_run_one<stress::mutants::NoGate5NarrowJec>},
      {"no_inject_fence", &sim_run_one<stress::mutants::NoInjectFence>},
      {"no_sleep_fence", &sim_run_one<stress::mutants::NoSleepFence>},
      {"late_is_blocked_lock", &sim_run_one<stress::mutants::LateIsBlockedLock>},
      {"gate5_ignores_broadcasts", &sim_run_one<stress::mutants::Gate5IgnoresBroadcasts>},
      {"cross_latch_no_keepalive", &sim_run_one<stress::mutants::CrossLatchNoKeepAlive>},
      {"scope_latch_no_keepalive", &sim_run_one<stress::mutants::ScopeLatchNoKeepAlive>},
      {"cross_is_cold", &sim_run_one<stress::mutants::CrossIsCold>},
      {"self_install_blocks", &sim_run_one<stress::mutants::SelfInstallBlocks>},
      {"latch_set_no_wake", &sim_run_one<stress::mutants::LatchSetNoWake>},
      {"terminate_no_wake", &sim_run_one<stress::mutants::TerminateNoWake>},
      {"lock_latch_set_outside_mutex", &sim_run_one<stress::mutants::LockLatchSetOutsideMutex>},
      {"cold_latch_no_reset", &sim_run_one<stress::mutants::ColdLatchNoReset>},
      {"spawn_no_terminate_count", &sim_run_one<stress::mutants::SpawnNoTerminateCount>},
      {"is_sleepy_always_true", &sim_run_one<stress::mutants::IsSleepyAlwaysTrue>},
      {"jec_carry", &sim_run_one<stress::mutants::JecCarry>},
      {"deque_pop_no_fence", &sim_run_one<stress::mutants::DequePopNoFence>},
      {"narrow_jec", &sim_run_one<stress::mutants::NarrowJec>},
      {"core_latch_set_seqcst", &sim_run_one<stress::mutants::CoreLatchSetSeqCst>},
      {"epoch_pin_x86_cas", &sim_run_one<stress::mutants::EpochPinX86Cas>},
      {"no_sleep_fence_acq_rel", &sim_run_one<stress::mutants::NoSleepFenceAcqRel>},
      {"no_inject_fence_acq_rel", &sim_run_one<stress::mutants::NoInjectFenceAcqRel>},
      {"injector_acq_rel", &sim_run_one<stress::mutants::InjectorAcqRel>},
  };
  auto it = runners.find(mutant);
  return it == runners.end() ? nullptr : it->second;
}

}  // namespace wsstress::sim
