// Every mutant policy the tools instantiate, in one list. Each entry is
// X(Type, name, members): a policy deriving NoMutants (mutants.hpp) whose
// members flip one of its switches, put back one real historical bug (or a
// near relative, or a negative control), under the name the CLI and the
// catalog use. From this list come the policy types below, each engine's
// runner table (stress/src/runners.cpp), one translation unit per mutant
// (stress/CMakeLists.txt reads this file), and the list the catalog is
// checked against. The catalog (stress/src/catalog.cpp) tells each mutant's
// story and what every engine is expected to do with it.
//
// Production never includes this header: it instantiates NoMutants only.
#pragma once

#include "wsstress/pool/mutants.hpp"

// clang-format off
#define WSSTRESS_MUTANTS(X)                                                                              \
  X(NoGate5, no_gate5, static constexpr bool kNoGate5 = true;)                                          \
  /* gate 5 matters only when the JEC cannot tell: narrow it, as upstream's reasoning (rollover) and  */ \
  /* the Relacy notes suggest */                                                                         \
  X(NoGate5NarrowJec, no_gate5_narrow_jec, static constexpr bool kNoGate5 = true;                        \
    static constexpr unsigned kJecBits = 1;)                                                             \
  X(NoInjectFence, no_inject_fence, static constexpr bool kNoInjectFence = true;)                        \
  X(NoSleepFence, no_sleep_fence, static constexpr bool kNoSleepFence = true;)                           \
  X(LateIsBlockedLock, late_is_blocked_lock, static constexpr bool kLateIsBlockedLock = true;)           \
  X(Gate5IgnoresBroadcasts, gate5_ignores_broadcasts, static constexpr bool kGate5IgnoresBroadcasts = true;) \
  X(CrossLatchNoKeepAlive, cross_latch_no_keepalive, static constexpr bool kCrossLatchNoKeepAlive = true;) \
  X(ScopeLatchNoKeepAlive, scope_latch_no_keepalive, static constexpr bool kScopeLatchNoKeepAlive = true;) \
  X(CrossIsCold, cross_is_cold, static constexpr bool kCrossIsCold = true;)                              \
  X(SelfInstallBlocks, self_install_blocks, static constexpr bool kSelfInstallBlocks = true;)            \
  X(LatchSetNoWake, latch_set_no_wake, static constexpr bool kLatchSetNoWake = true;)                    \
  X(TerminateNoWake, terminate_no_wake, static constexpr bool kTerminateNoWake = true;)                  \
  X(LockLatchSetOutsideMutex, lock_latch_set_outside_mutex,                                              \
    static constexpr bool kLockLatchSetOutsideMutex = true;)                                             \
  X(ColdLatchNoReset, cold_latch_no_reset, static constexpr bool kColdLatchNoReset = true;)              \
  X(SpawnNoTerminateCount, spawn_no_terminate_count, static constexpr bool kSpawnNoTerminateCount = true;) \
  X(IsSleepyAlwaysTrue, is_sleepy_always_true, static constexpr bool kIsSleepyAlwaysTrue = true;)        \
  X(JecCarry, jec_carry, static constexpr unsigned kJecBits = 2;                                         \
    static constexpr bool kJecBelowCounters = true; static constexpr bool kJecIncrementCarries = true;)  \
  X(DequePopNoFence, deque_pop_no_fence, static constexpr bool kDequePopNoFence = true;)                 \
  /* negative controls: expected harmless */                                                             \
  X(NarrowJec, narrow_jec, static constexpr unsigned kJecBits = 1;)                                      \
  X(CoreLatchSetSeqCst, core_latch_set_seqcst, static constexpr bool kCoreLatchSetSeqCst = true;)        \
  /* the fence table (pool/README.md): the Injector weakened to the orders the seeds' proof sketch   */ \
  /* assumes, alone (a negative control: the fences cover it) and with either handshake fence removed */ \
  X(InjectorAcqRel, injector_acq_rel, static constexpr bool kInjectorAcqRel = true;)                    \
  X(NoInjectFenceAcqRel, no_inject_fence_acq_rel, static constexpr bool kNoInjectFence = true;           \
    static constexpr bool kInjectorAcqRel = true;)                                                       \
  X(NoSleepFenceAcqRel, no_sleep_fence_acq_rel, static constexpr bool kNoSleepFence = true;              \
    static constexpr bool kInjectorAcqRel = true;)                                                       \
  /* crossbeam-epoch's x86 pin (a SeqCst CAS on a private word) in Deque::steal */                       \
  X(EpochPinX86Cas, epoch_pin_x86_cas, static constexpr bool kEpochPinX86Cas = true;)

// The clean pool first, then every mutant: what the runner tables hold.
#define WSSTRESS_POLICIES(X) X(NoMutants, none, ) WSSTRESS_MUTANTS(X)
// clang-format on

namespace wsstress::pool::mutants {

using pool::NoMutants;

#define WSSTRESS_DEFINE_POLICY(Type, name, ...) \
  struct Type : NoMutants {                     \
    __VA_ARGS__                                 \
  };
WSSTRESS_MUTANTS(WSSTRESS_DEFINE_POLICY)
#undef WSSTRESS_DEFINE_POLICY

// The names, in list order ("none" first).
#define WSSTRESS_POLICY_NAME(Type, name, ...) #name,
inline constexpr const char* kPolicyNames[] = {WSSTRESS_POLICIES(WSSTRESS_POLICY_NAME)};
#undef WSSTRESS_POLICY_NAME

}  // namespace wsstress::pool::mutants
