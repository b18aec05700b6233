// The mutant catalog: rayon-core's real historical concurrency bugs (and a few
// of their near relatives), each a mutant policy that flips one switch of
// pool/mutants.hpp, with its name, its upstream history, the failure it
// causes, the scenario that exposes it fastest and the engines expected to
// catch it. `none` is the clean pool.
#pragma once

#include <string>
#include <vector>

#include "wsstress/pool/mutants.hpp"
#include "wsstress/stress/failure_kind.hpp"

namespace wsstress::stress {

namespace mutants {
using pool::NoMutants;
struct NoGate5 : NoMutants { static constexpr bool kNoGate5 = true; };
// gate 5 matters only when the JEC cannot tell: narrow it, as upstream's
// reasoning (rollover) and the Relacy notes suggest.
struct NoGate5NarrowJec : NoMutants {
  static constexpr bool kNoGate5 = true;
  static constexpr unsigned kJecBits = 1;
};
struct NoInjectFence : NoMutants { static constexpr bool kNoInjectFence = true; };
struct NoSleepFence : NoMutants { static constexpr bool kNoSleepFence = true; };
struct LateIsBlockedLock : NoMutants { static constexpr bool kLateIsBlockedLock = true; };
struct Gate5IgnoresBroadcasts : NoMutants { static constexpr bool kGate5IgnoresBroadcasts = true; };
struct CrossLatchNoKeepAlive : NoMutants { static constexpr bool kCrossLatchNoKeepAlive = true; };
struct ScopeLatchNoKeepAlive : NoMutants { static constexpr bool kScopeLatchNoKeepAlive = true; };
struct CrossIsCold : NoMutants { static constexpr bool kCrossIsCold = true; };
struct SelfInstallBlocks : NoMutants { static constexpr bool kSelfInstallBlocks = true; };
struct LatchSetNoWake : NoMutants { static constexpr bool kLatchSetNoWake = true; };
struct TerminateNoWake : NoMutants { static constexpr bool kTerminateNoWake = true; };
struct LockLatchSetOutsideMutex : NoMutants { static constexpr bool kLockLatchSetOutsideMutex = true; };
struct ColdLatchNoReset : NoMutants { static constexpr bool kColdLatchNoReset = true; };
struct SpawnNoTerminateCount : NoMutants { static constexpr bool kSpawnNoTerminateCount = true; };
struct IsSleepyAlwaysTrue : NoMutants { static constexpr bool kIsSleepyAlwaysTrue = true; };
struct JecCarry : NoMutants {
  static constexpr unsigned kJecBits = 2;
  static constexpr bool kJecBelowCounters = true;
  static constexpr bool kJecIncrementCarries = true;
};
struct DequePopNoFence : NoMutants { static constexpr bool kDequePopNoFence = true; };
// The fence table (pool/README.md): the Injector weakened to the orders the
// seeds' proof sketch assumes, alone (a negative control: the fences cover it)
// and with either handshake fence removed.
struct InjectorAcqRel : NoMutants {
  static constexpr bool kInjectorAcqRel = true;
};
struct NoInjectFenceAcqRel : NoMutants {
  static constexpr bool kNoInjectFence = true;
  static constexpr bool kInjectorAcqRel = true;
};
struct NoSleepFenceAcqRel : NoMutants {
  static constexpr bool kNoSleepFence = true;
  static constexpr bool kInjectorAcqRel = true;
};
// crossbeam-epoch's x86 pin (a SeqCst CAS on a private word) in Deque::steal.
struct EpochPinX86Cas : NoMutants {
  static constexpr bool kEpochPinX86Cas = true;
};
// Negative controls: expected harmless.
struct NarrowJec : NoMutants { static constexpr unsigned kJecBits = 1; };
struct CoreLatchSetSeqCst : NoMutants { static constexpr bool kCoreLatchSetSeqCst = true; };
}  // namespace mutants

// What the real-thread engine is expected to do with a mutant.
enum class Expect {
  Catch,   // must be caught within the budget
  Maybe,   // reachable but rare, or only seen in some builds (e.g. under ASan)
  Cannot,  // not reachable on this hardware (say why in `stress`)
  Pass,    // the clean pool and negative controls: must never fail
};

struct MutantInfo {
  std::string name;
  std::string history;   // upstream commit / PR
  std::string failure;   // what goes wrong
  std::string scenario;  // the scenario that exposes it fastest
  std::string stress;    // what the real-thread engine can do with it
  Expect stress_expect = Expect::Catch;
  bool negative_control = false;  // expected harmless
  Expect sim_sc_expect = Expect::Maybe;   // set in catalog.cpp from measurements
  Expect sim_tso_expect = Expect::Maybe;
  // The Relacy models' verdict on it (relacy/'s model table has the per-model
  // detail and the reasons): Cannot when no model targets it.
  Expect relacy_expect = Expect::Cannot;
  // The failures it may show when caught (set in catalog.cpp): a catch of
  // another kind is "not as expected" in `mutants check` and `relacy --mutant all`.
  FailureKinds kinds = 0;
};

const std::vector<MutantInfo>& mutant_catalog();
const MutantInfo* find_mutant(const std::string& name);

}  // namespace wsstress::stress
