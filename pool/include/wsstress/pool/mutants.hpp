// The mutant policy: the second compile-time parameter of every pool template.
//
// Production uses NoMutants, whose members are all constants that leave the
// algorithms exactly as rayon-core 1.10.1 wrote them: every switch below is
// read with `if constexpr`, so NoMutants compiles each one away. Non-production
// builds instantiate the pool with a policy derived from NoMutants that flips
// one switch, putting a real historical rayon-core bug back (the catalog, with
// names, history and expected failures, is stress/src/catalog.cpp), or turn
// a model knob such as the width of the jobs event counter.
#pragma once

#include <cstddef>

namespace wsstress::pool {

struct NoMutants {
  // ---- model knobs (not bugs by themselves) ----

  // Width of the jobs event counter in bits. 0 means "every bit above the two
  // thread counters" (32 bits on 64-bit targets), as in rayon-core. A narrow JEC
  // is not a bug by itself: gate 5 and the two SeqCst fences exist precisely so
  // that a JEC which rolls over to the value a sleepy thread remembered cannot
  // lose an injected job. Models narrow it to make that case reachable.
  static constexpr unsigned kJecBits = 0;
  // Put the JEC in the low bits, below the thread counters (requires kJecBits).
  static constexpr bool kJecBelowCounters = false;
  // Idle rounds (each a search and a yield) before announcing sleepy: rayon's
  // ROUNDS_UNTIL_SLEEPY. The simulator shortens it so that its schedules reach
  // the sleep handshake often; the gates themselves are unchanged.
  static constexpr unsigned kRoundsUntilSleepy = 32;
  // Indices per block of the Injector (crossbeam's LAP; a block holds LAP - 1
  // jobs). Models shrink it so that a few jobs cross a block boundary.
  static constexpr std::size_t kInjectorLap = 64;

  // ---- bugs (each false in production) ----

  // sleep() trusts the JEC alone: no final check of the injector (before 1222cbe).
  static constexpr bool kNoGate5 = false;
  // new_injected_jobs posts without its SeqCst fence.
  static constexpr bool kNoInjectFence = false;
  // sleep() reads the injector at gate 5 without the SeqCst fence before it.
  static constexpr bool kNoSleepFence = false;
  // sleep() takes the is_blocked lock after fall_asleep and registering as
  // sleeping, instead of before (gate 2 moved after gate 4).
  static constexpr bool kLateIsBlockedLock = false;
  // Gate 5 looks at the injector only, not at the thread's broadcast queue
  // (before be12615, rayon-core 1.10.1).
  static constexpr bool kGate5IgnoresBroadcasts = false;
  // SpinLatch::cross does not keep the waiter's registry alive across set()
  // (before cbd484c).
  static constexpr bool kCrossLatchNoKeepAlive = false;
  // ScopeLatch::set borrows the waiter's registry across the set instead of
  // holding a reference: rayon-core 1.10.1's code (rayon #1008, fixed in
  // rayon-core 1.10.2).
  static constexpr bool kScopeLatchNoKeepAlive = false;
  // A worker of another pool entering this one blocks on a LockLatch like an
  // outside thread, instead of working while it waits (before 36577d6).
  static constexpr bool kCrossIsCold = false;
  // install/in_worker from a worker of the same pool injects and blocks instead
  // of running directly (before 03e5d2d).
  static constexpr bool kSelfInstallBlocks = false;
  // SpinLatch::set never wakes an owner that fell asleep on the latch.
  static constexpr bool kLatchSetNoWake = false;
  // terminate() sets the terminate latches without waking sleepers (rayon #200).
  static constexpr bool kTerminateNoWake = false;
  // LockLatch::set stores the flag and notifies without holding the mutex (f17d745).
  static constexpr bool kLockLatchSetOutsideMutex = false;
  // in_worker_cold reuses its thread-local LockLatch without resetting it.
  static constexpr bool kColdLatchNoReset = false;
  // spawn does not take a terminate count for its job.
  static constexpr bool kSpawnNoTerminateCount = false;
  // JobsEventCounter::is_sleepy masks the parity with 0: always "sleepy" (c3a5304).
  static constexpr bool kIsSleepyAlwaysTrue = false;
  // The JEC increment is not masked to its field, so it carries into the next
  // one (908e137 / e768237); only visible with a narrow JEC below the counters.
  static constexpr bool kJecIncrementCarries = false;
  // The owner's pop skips the SeqCst fence between its store of `back` and its
  // load of `front` (Lê et al. 2013's take()): under TSO the store waits in the
  // store buffer, and the owner and a thief can both take the last job.
  static constexpr bool kDequePopNoFence = false;
  // CoreLatch::set uses SeqCst instead of AcqRel (6b1367f, 2026: judged an
  // oversight, never shown to fail). A negative control: expected harmless.
  static constexpr bool kCoreLatchSetSeqCst = false;
  // The Injector's SeqCst operations (push's tail CAS, steal's head CAS,
  // is_empty's loads) weakened to Release / AcqRel / Acquire: the orders the
  // seeds' proof sketch of the sleep handshake assumes. Alone it is covered by
  // the two SeqCst fences; with either fence removed it shows what they protect.
  static constexpr bool kInjectorAcqRel = false;
  // Deque::steal issues crossbeam-epoch's pin as x86 builds do (a SeqCst CAS
  // on the thief's own epoch word, no fence) instead of its portable meaning
  // (a SeqCst fence). Under the C++ model a SeqCst RMW on a private word orders
  // nothing else; crossbeam-epoch calls the trick "not clear it is permitted".
  static constexpr bool kEpochPinX86Cas = false;
};

}  // namespace wsstress::pool
