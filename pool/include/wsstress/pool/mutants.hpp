// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// The mutant policy: the second compile-time parameter of every pool template,
// and the list of mutants the tools build from it.
//
// Production uses NoMutants, whose members are all constants that leave the
// algorithms exactly as rayon-core 1.10.1 wrote them: every switch below is a
// constant false, so the optimizer removes each mutant branch. Non-production
// builds instantiate the pool with a policy derived from NoMutants that flips
// one switch, putting a real historical rayon-core bug back, or turn a model
// knob such as the width of the jobs event counter. Each such policy is one
// entry of WSSTRESS_MUTANTS at the end of this file, with what the bug is (its
// story, its failure, the failures it may show); what each tool is expected to
// do with it lives with that tool (engines/), not here. Production never
// expands that list.
#pragma once

#include <cstddef>

namespace wsstress::pool {

// The bug switches the pool reads as a branch, `if (M::kNoGate5)`: one entry per
// switch, with what it does. NoMutants declares each false (production: the
// optimizer removes the branch); the engines read them at run time
// (RuntimeMutants in mutant_list.hpp), so one instantiation of the pool serves
// every mutant that differs from the clean pool in branches only. A switch that
// changes a memory order is a branch too, between two calls that each name a
// constant order: a run-time order would be compiled as SeqCst by g++,
// stronger than the mutant's or rayon-core's.
// clang-format off
#define WSSTRESS_BRANCH_SWITCHES(X)                                                                                  \
  /* sleep() trusts the JEC alone: no final check of the injector (before 1222cbe). */                               \
  X(kNoGate5)                                                                                                        \
  /* new_injected_jobs posts without its SeqCst fence. */                                                            \
  X(kNoInjectFence)                                                                                                  \
  /* sleep() reads the injector at gate 5 without the SeqCst fence before it. */                                     \
  X(kNoSleepFence)                                                                                                   \
  /* sleep() takes the is_blocked lock after fall_asleep and registering as */                                       \
  /* sleeping, instead of before (gate 2 moved after gate 4). */                                                     \
  X(kLateIsBlockedLock)                                                                                              \
  /* Gate 5 looks at the injector only, not at the thread's broadcast queue */                                       \
  /* (before be12615, rayon-core 1.10.1). */                                                                         \
  X(kGate5IgnoresBroadcasts)                                                                                         \
  /* SpinLatch::cross does not keep the waiter's registry alive across set() */                                      \
  /* (before cbd484c). */                                                                                            \
  X(kCrossLatchNoKeepAlive)                                                                                          \
  /* ScopeLatch::set borrows the waiter's registry across the set instead of */                                      \
  /* holding a reference: rayon-core 1.10.1's code, kept to 1.11.0 (the */                                           \
  /* keep-alive is 1.12.0's, commit 32d3774a). */                                                                    \
  X(kScopeLatchNoKeepAlive)                                                                                          \
  /* A worker of another pool entering this one blocks on a LockLatch like an */                                     \
  /* outside thread, instead of working while it waits (before 36577d6). */                                          \
  X(kCrossIsCold)                                                                                                    \
  /* install/in_worker from a worker of the same pool injects and blocks instead */                                  \
  /* of running directly (before 03e5d2d). */                                                                        \
  X(kSelfInstallBlocks)                                                                                              \
  /* SpinLatch::set never wakes an owner that fell asleep on the latch. */                                           \
  X(kLatchSetNoWake)                                                                                                 \
  /* terminate() sets the terminate latches without waking sleepers (rayon #200). */                                 \
  X(kTerminateNoWake)                                                                                                \
  /* LockLatch::set stores the flag and notifies without holding the mutex (f17d745). */                             \
  X(kLockLatchSetOutsideMutex)                                                                                       \
  /* LockLatch::wait checks its flag once (`if`) instead of in a loop (`while`): */                                  \
  /* a spurious wake-up returns before the latch is set. */                                                          \
  X(kLockLatchWaitOnce)                                                                                              \
  /* new_internal_jobs reads the counters instead of making the JEC odd for a */                                     \
  /* sleepy worker: a push onto a worker's own deque goes unannounced. */                                            \
  X(kInternalPushNoJec)                                                                                              \
  /* in_worker_cold reuses its thread-local LockLatch without resetting it. */                                       \
  X(kColdLatchNoReset)                                                                                               \
  /* spawn runs its closure without the registry's catch_unwind. */                                                  \
  X(kSpawnNoCatchUnwind)                                                                                             \
  /* spawn does not take a terminate count for its job. */                                                           \
  X(kSpawnNoTerminateCount)                                                                                          \
  /* ArcJob starts with no reference for its creator. */                                                             \
  X(kArcJobNoCreatorRef)                                                                                             \
  /* JobsEventCounter::is_sleepy masks the parity with 0: always "sleepy" (c3a5304). */                              \
  X(kIsSleepyAlwaysTrue)                                                                                             \
  /* The owner's pop skips the SeqCst fence between its store of `back` and its */                                   \
  /* load of `front` (Lê et al. 2013's take()): under TSO the store waits in the */                                  \
  /* store buffer, and the owner and a thief can both take the last job. */                                          \
  X(kDequePopNoFence)                                                                                                \
  /* The owner's push publishes `back` Relaxed, without the Release fence */                                         \
  /* between its write of the slot and that store: a thief that sees the new */                                      \
  /* `back` may read the slot before the job is in it, and the job is lost. */                                       \
  X(kDequePushRelaxed)                                                                                               \
  /* Deque::steal issues crossbeam-epoch's pin as x86 builds do (a SeqCst CAS */                                     \
  /* on the thief's own epoch word, no fence) instead of its portable meaning */                                     \
  /* (a SeqCst fence). Under the C++ model a SeqCst RMW on a private word orders */                                  \
  /* nothing else; crossbeam-epoch calls the trick "not clear it is permitted". */                                   \
  X(kEpochPinX86Cas)                                                                                                 \
  /* CoreLatch::probe loads Relaxed instead of Acquire: a waiter that sees its */                                    \
  /* latch set reads the stolen job's result without the setter's writes being */                                    \
  /* visible. x86 and TSO cannot show it (every load is an acquire there). */                                        \
  X(kLatchProbeRelaxed)                                                                                              \
  /* CountLatch::set and CountLockLatch::set decrement Relaxed instead of */                                         \
  /* SeqCst: a scope job that is not the last to finish publishes nothing to */                                      \
  /* the scope's owner. */                                                                                           \
  X(kCountLatchSubRelaxed)                                                                                           \
  /* CoreLatch::set uses SeqCst instead of AcqRel (6b1367f, 2026: judged an */                                       \
  /* oversight, never shown to fail). A negative control: expected harmless. */                                      \
  X(kCoreLatchSetSeqCst)
// clang-format on

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

  // ---- bugs read in constant expressions (each false in production) ----
  // They stay compile-time in every build: the counters' arithmetic is
  // constexpr, and the Injector's orders are constants used at four places.
  // The JEC increment is not masked to its field, so it carries into the next
  // one (908e137 / e768237); only visible with a narrow JEC below the counters.
  static constexpr bool kJecIncrementCarries = false;
  // The Injector's SeqCst operations (push's tail CAS, steal's head CAS,
  // is_empty's loads) weakened to Release / AcqRel / Acquire: the orders the
  // seeds' proof sketch of the sleep handshake assumes. Alone it is covered by
  // the two SeqCst fences; with either fence removed it shows what they protect.
  static constexpr bool kInjectorAcqRel = false;

  // ---- bugs that choose a branch (WSSTRESS_BRANCH_SWITCHES above, each false) ----
#define WSSTRESS_BRANCH_SWITCH_OFF(name, ...) static constexpr bool name = false;
  WSSTRESS_BRANCH_SWITCHES(WSSTRESS_BRANCH_SWITCH_OFF)
#undef WSSTRESS_BRANCH_SWITCH_OFF
};

}  // namespace wsstress::pool

// ---- The mutants (for the tools; production never expands this list) ----
//
// One entry per mutant: X(Type, name, (policy members), catalog record). The
// policy is a struct `Type` deriving NoMutants with the members in parentheses
// (pool/mutant_list.hpp defines them); `name` is what the CLI, the reports and
// the matrix call it. The record fills core::MutantInfo (stress/catalog.hpp):
//   .history   where it comes from, as pool/HISTORY.md says after checking rayon's repository:
//              "fix|code|change <commit> (date, issue, PR): versions", or "knob: ...";
//   .failure   what goes wrong, and .scenario the scenario that shows it fastest;
//   .negative_control  expected harmless (every tool must pass it);
//   .kinds     the failures a catch may show (stress/failure_kind.hpp): a lost
//              wake-up is a Hang everywhere; a freed registry is UseAfterFree
//              (the liveness stamps, ASan) or a Crash in a default build; the
//              pool's own abort is an Assertion, or a Crash where an engine keeps
//              only the signal; the last job taken twice is a WrongResult, a
//              DataRace where Relacy sees the two takers race on the slot first,
//              a UseAfterFree where its second run sets a latch whose frame has
//              returned (the simulator's liveness stamps), or a Crash where ASan
//              sees that run read the frame first (a stack-buffer error).
// The engines' runner tables (threads/src/runners.cpp, sim/runners.cpp) run
// each entry as RuntimeMutants (mutant_list.hpp). Adding a mutant is a switch
// (an entry of WSSTRESS_BRANCH_SWITCHES, or a NoMutants member when it chooses
// a memory order), its `if` where the bug lived, and one entry here; then one
// row in each judged engine's table of expectations (engines/, which the
// compiler checks against this list).
// clang-format off
#define WSSTRESS_MUTANTS(X)                                                                                          \
  X(NoGate5, no_gate5, (static constexpr bool kNoGate5 = true;),                                                     \
    .history = "fix 1222cbeb (2020-04, PR #746), never released: rayon-core 1.8.0 shipped the fix",                  \
    .failure = "sleep() trusts the JEC alone; a job it cannot see leaves every worker asleep",                       \
    .scenario = "inject",                                                                                            \
    .kinds = Hang)                                                                                                   \
  /* gate 5 matters only when the JEC cannot tell: narrow it, as upstream's reasoning (rollover) and the         */  \
  /* Relacy notes suggest                                                                                        */  \
  X(NoGate5NarrowJec, no_gate5_narrow_jec,                                                                           \
    (static constexpr bool kNoGate5 = true; static constexpr unsigned kJecBits = 1;),                                \
    .history = "fix 1222cbeb (2020-04, PR #746) with a 1-bit JEC (knob)",                                            \
    .failure = "as no_gate5, with a JEC narrow enough to roll over to the value a sleepy thread remembered",         \
    .scenario = "inject",                                                                                            \
    .kinds = Hang)                                                                                                   \
  X(NoInjectFence, no_inject_fence, (static constexpr bool kNoInjectFence = true;),                                  \
    .history = "code a0efb4ab (2020-05, PR #746): the SeqCst fence in new_injected_jobs",                            \
    .failure = "none under the C++ model with crossbeam's Injector, whose push is a SeqCst CAS: publisher and "      \
      "sleeper then meet on SeqCst accesses only (no_inject_fence_acq_rel shows what the fence protects)",           \
    .scenario = "inject",                                                                                            \
    .kinds = Hang)                                                                                                   \
  X(NoSleepFence, no_sleep_fence, (static constexpr bool kNoSleepFence = true;),                                     \
    .history = "code a0efb4ab (2020-05, PR #746): the SeqCst fence before the final check",                          \
    .failure = "none under the C++ model with crossbeam's Injector, whose is_empty loads are SeqCst; and the "       \
      "broadcast queue's is_empty has its own fence",                                                                \
    .scenario = "inject",                                                                                            \
    .kinds = Hang)                                                                                                   \
  X(LateIsBlockedLock, late_is_blocked_lock, (static constexpr bool kLateIsBlockedLock = true;),                     \
    .history = "code 2803c599 (2020-01, PR #746): gate 2's lock before registering, argued in sleep/mod.rs",         \
    .failure = "a waker finds is_blocked false between registration and the lock and leaves; the sleeper then "      \
      "blocks with its latch set",                                                                                   \
    .scenario = "join",                                                                                              \
    .kinds = Hang)                                                                                                   \
  X(Gate5IgnoresBroadcasts, gate5_ignores_broadcasts, (static constexpr bool kGate5IgnoresBroadcasts = true;),       \
    .history = "fix be12615b (2022-11, PR #992): in rayon-core 1.10.0, fixed in 1.10.1",                             \
    .failure = "a broadcast job pushed to a worker's own queue while it passes gate 4 is never run",                 \
    .scenario = "broadcast",                                                                                         \
    .kinds = Hang)                                                                                                   \
  X(CrossLatchNoKeepAlive, cross_latch_no_keepalive, (static constexpr bool kCrossLatchNoKeepAlive = true;),         \
    .history = "fix cbd484ca + 07137531 (2020-03, PR #746), never released: rayon-core 1.8.0 shipped the fix",       \
    .failure = "the setter notifies a registry its waiter has already freed: use after free",                        \
    .scenario = "cross",                                                                                             \
    .kinds = UseAfterFree | Crash | Hang)                                                                            \
  X(ScopeLatchNoKeepAlive, scope_latch_no_keepalive, (static constexpr bool kScopeLatchNoKeepAlive = true;),         \
    .history = "fix 32d3774a (2023-06, PR #1059): in rayon-core 1.10.1 to 1.11.0, fixed in 1.12.0",                  \
    .failure = "a job in pool B sets the scope latch owned by a worker of pool A and then notifies A's registry "    \
      "without holding it; the owner may have returned and, with A dropped, its exiting worker freed that "          \
      "registry: use after free",                                                                                    \
    .scenario = "cross_scope",                                                                                       \
    .kinds = UseAfterFree | Crash | Hang | DataRace)                                                                 \
  X(CrossIsCold, cross_is_cold, (static constexpr bool kCrossIsCold = true;),                                        \
    .history = "fix 36577d60 (2017-09, PR #449): in rayon-core up to 1.2.1, fixed in 1.3.0",                         \
    .failure = "a worker of pool A entering pool B blocks instead of working; A->B->A with busy pools deadlocks",    \
    .scenario = "cross",                                                                                             \
    .kinds = Hang)                                                                                                   \
  X(SelfInstallBlocks, self_install_blocks, (static constexpr bool kSelfInstallBlocks = true;),                      \
    .history = "fix 03e5d2d3 (2017-09, issue #446, PR #443): in rayon-core up to 1.2.1, fixed in 1.3.0",             \
    .failure = "install from a worker into its own pool injects and blocks that worker; with one thread, a "         \
      "deadlock",                                                                                                    \
    .scenario = "cross",                                                                                             \
    .kinds = Hang)                                                                                                   \
  X(LatchSetNoWake, latch_set_no_wake, (static constexpr bool kLatchSetNoWake = true;),                              \
    .history = "code 2803c599 (2020-01, PR #746): CoreLatch::set returning SLEEPING means: wake the owner",          \
    .failure = "an owner asleep on its latch is never woken when the latch is set",                                  \
    .scenario = "join",                                                                                              \
    .kinds = Hang)                                                                                                   \
  X(TerminateNoWake, terminate_no_wake, (static constexpr bool kTerminateNoWake = true;),                            \
    .history = "fix 108442de (2017-01, issue #200, PR #201): in rayon up to 0.6, before rayon-core",                 \
    .failure = "dropping a pool sets the terminate latches without waking sleeping workers: they never exit",        \
    .scenario = "terminate",                                                                                         \
    .kinds = Hang)                                                                                                   \
  X(LockLatchSetOutsideMutex, lock_latch_set_outside_mutex,                                                          \
    (static constexpr bool kLockLatchSetOutsideMutex = true;),                                                       \
    .history = "fix f17d745e (2016-01, PR #11): in rayon 0.1, before rayon-core",                                    \
    .failure = "the flag is set and notified between a waiter's check and its wait: the waiter sleeps forever; "     \
      "or the waiter sees the flag, returns and its thread frees the latch before the notify: use after free",       \
    .scenario = "inject",                                                                                            \
    .kinds = Hang | UseAfterFree | DataRace)                                                                         \
  X(LockLatchWaitOnce, lock_latch_wait_once, (static constexpr bool kLockLatchWaitOnce = true;),                     \
    .history = "code in 1.10.1: the loop in LockLatch::wait (`while !*guard`)",                                      \
    .failure = "a spurious condvar wake-up returns from the wait before the latch is set: the outside caller "       \
      "reads a job result that is not there, or returns and frees the job whose latch the worker then sets",        \
    .scenario = "inject",                                                                                            \
    .kinds = Assertion | Crash | DataRace | UseAfterFree)                                                            \
  X(ColdLatchNoReset, cold_latch_no_reset, (static constexpr bool kColdLatchNoReset = true;),                        \
    .history = "code in 1.10.1: the reset of the cold LockLatch in in_worker_cold",                                  \
    .failure = "the thread-local latch stays set: the next cold call returns before its job ran",                    \
    .scenario = "inject",                                                                                            \
    .kinds = Assertion | Crash)                                                                                      \
  X(InternalPushNoJec, internal_push_no_jec, (static constexpr bool kInternalPushNoJec = true;),                     \
    .history = "code in 1.10.1: new_internal_jobs moving a sleepy JEC (a sleepy worker misses an internal push)",    \
    .failure = "a sleepy worker sleeps beside a job pushed on another worker's deque: one helper fewer, no wrong result", \
    .scenario = "rendezvous",                                                                                        \
    .kinds = Hang)                                                                                                   \
  X(SpawnNoCatchUnwind, spawn_no_catch_unwind, (static constexpr bool kSpawnNoCatchUnwind = true;),                \
    .history = "code in 1.10.1: spawn's catch_unwind around the closure",                                            \
    .failure = "a spawned job's exception meets the job's noexcept frame: std::terminate ends the process",          \
    .scenario = "exception",                                                                                         \
    .kinds = Crash)                                                                                                  \
  X(SpawnNoTerminateCount, spawn_no_terminate_count, (static constexpr bool kSpawnNoTerminateCount = true;),         \
    .history = "code in 1.10.1: spawn's increment_terminate_count",                                                  \
    .failure = "a pool terminates with spawned jobs still queued: jobs are lost or a worker exits with work",        \
    .scenario = "terminate",                                                                                         \
    .kinds = Hang | WrongResult)                                                                                     \
  X(ArcJobNoCreatorRef, arc_job_no_creator_ref, (static constexpr bool kArcJobNoCreatorRef = true;),                \
    .history = "code in 1.10.1: ArcJob is an Arc, and Arc::new starts at one, the creator's reference (a blind "     \
      "bug of the held-out measurement)",                                                        \
    .failure = "a broadcast job's count starts at zero: the first worker to run its JobRef frees the job while the " \
      "broadcaster still makes the next workers' JobRefs: use after free",                                           \
    .scenario = "broadcast",                                                                                         \
    .kinds = UseAfterFree | Crash)                                                                                   \
  X(IsSleepyAlwaysTrue, is_sleepy_always_true, (static constexpr bool kIsSleepyAlwaysTrue = true;),                  \
    .history = "fix c3a5304d (2020-05, PR #746), never released: rayon-core 1.8.0 shipped the fix",                  \
    .failure = "the JEC parity test is masked with 0: every value looks sleepy",                                     \
    .scenario = "join",                                                                                              \
    .kinds = Assertion)                                                                                              \
  X(JecCarry, jec_carry,                                                                                             \
    (static constexpr unsigned kJecBits = 2; static constexpr bool kJecBelowCounters = true;                         \
     static constexpr bool kJecIncrementCarries = true;),                                                            \
    .history = "fix 908e1371 (2020-04, PR #746, never released) and e7682378 (2020-09, issue #797, PR #800: in "     \
      "rayon-core 1.8.0, fixed in 1.8.1)",                                                                           \
    .failure = "the JEC increment carries out of its field into the sleeping-thread count",                          \
    .scenario = "join",                                                                                              \
    .kinds = Assertion)                                                                                              \
  X(DequePopNoFence, deque_pop_no_fence, (static constexpr bool kDequePopNoFence = true;),                           \
    .history = "code in crossbeam-deque 0.8.1: the fence in pop (Le, Pop, Cohen, Zappa Nardelli, PPoPP 2013)",       \
    .failure = "the owner's pop reads `front` before its store of `back` is visible: owner and thief both take "     \
      "the last job, which runs twice",                                                                              \
    .scenario = "join",                                                                                              \
    .kinds = DataRace | WrongResult | UseAfterFree | Crash | Hang)                                                   \
  X(DequePushRelaxed, deque_push_relaxed, (static constexpr bool kDequePushRelaxed = true;),                         \
    .history = "code in crossbeam-deque 0.8.1: the Release fence and store that publish `back` in push",             \
    .failure = "a thief sees the new `back` before the job in its slot and takes an empty slot: the job is lost",    \
    .scenario = "join",                                                                                              \
    .kinds = Assertion | Hang | WrongResult | DataRace)                                                              \
  /* weak-memory orders of the latches: x86 and TSO cannot show them                                */  \
  X(LatchProbeRelaxed, latch_probe_relaxed, (static constexpr bool kLatchProbeRelaxed = true;),                      \
    .history = "code in 1.10.1: latch.rs's Acquire probe (the latch's half of the job result's order)",              \
    .failure = "the waiter of a join sees the latch set and reads the stolen half's result with no Acquire: "       \
      "nothing orders the thief's write of the result before that read",                                             \
    .scenario = "join",                                                                                              \
    .kinds = DataRace)                                                                                               \
  X(CountLatchSubRelaxed, count_latch_sub_relaxed, (static constexpr bool kCountLatchSubRelaxed = true;),            \
    .history = "code in 1.10.1: latch.rs's SeqCst CountLatch decrement",                                             \
    .failure = "a scope job that is not the last to finish releases nothing: the scope's owner returns with no "   \
      "order after that job's writes",                                                                               \
    .scenario = "scope",                                                                                             \
    .kinds = DataRace | Crash)                                                                                       \
  /* negative controls: expected harmless                                                                        */  \
  X(NarrowJec, narrow_jec, (static constexpr unsigned kJecBits = 1;),                                                \
    .history = "knob: a 1-bit JEC",                                                                                  \
    .failure = "none expected: gate 5 and the SeqCst fences cover a JEC that rolls over",                            \
    .scenario = "inject",                                                                                            \
    .negative_control = true)                                                                                        \
  X(CoreLatchSetSeqCst, core_latch_set_seqcst, (static constexpr bool kCoreLatchSetSeqCst = true;),                  \
    .history = "change 6b1367fe (2026-04, PR #1297), unreleased: judged an oversight, never shown to fail",          \
    .failure = "none expected: judged an oversight upstream, never shown to fail",                                   \
    .scenario = "join",                                                                                              \
    .negative_control = true)                                                                                        \
  /* the fence table (pool/README.md): the Injector weakened to the orders the seeds' proof sketch assumes,      */  \
  /* alone (a negative control: the fences cover it) and with either handshake fence removed                     */  \
  X(InjectorAcqRel, injector_acq_rel, (static constexpr bool kInjectorAcqRel = true;),                               \
    .history = "knob (fence table): the orders of the design's proof sketch",                                        \
    .failure = "none expected: the Injector's SeqCst push CAS, steal CAS and is_empty loads weakened to Release "    \
      "/ AcqRel / Acquire; the two SeqCst fences of the handshake restore the ordering",                             \
    .scenario = "inject",                                                                                            \
    .negative_control = true)                                                                                        \
  X(NoInjectFenceAcqRel, no_inject_fence_acq_rel,                                                                    \
    (static constexpr bool kNoInjectFence = true; static constexpr bool kInjectorAcqRel = true;),                    \
    .history = "knob (fence table): no_inject_fence over injector_acq_rel",                                          \
    .failure = "the inject fence's store->load reordering, once the Injector's own SeqCst operations no longer "     \
      "forbid it",                                                                                                   \
    .scenario = "inject",                                                                                            \
    .kinds = Hang)                                                                                                   \
  X(NoSleepFenceAcqRel, no_sleep_fence_acq_rel,                                                                      \
    (static constexpr bool kNoSleepFence = true; static constexpr bool kInjectorAcqRel = true;),                     \
    .history = "knob (fence table): no_sleep_fence over injector_acq_rel",                                           \
    .failure = "none: gate 5 reads the worker's broadcast queue before the Injector (rayon-core 1.10.1 "             \
      "registry.rs:746), and crossbeam's Stealer::is_empty runs a SeqCst fence between its loads, which stands "     \
      "in for the sleep fence even once is_empty's Injector loads are Acquire",                                      \
    .scenario = "inject",                                                                                            \
    .negative_control = true)                                                                                        \
  /* crossbeam-epoch's x86 pin (a SeqCst CAS on a private word) in Deque::steal                                  */  \
  X(EpochPinX86Cas, epoch_pin_x86_cas, (static constexpr bool kEpochPinX86Cas = true;),                              \
    .history = "knob: crossbeam-epoch 0.9.13's pin() on x86 (a SeqCst CAS instead of a SeqCst fence)",               \
    .failure = "under the C++ model a SeqCst RMW on the thief's own word does not order its loads of front and "     \
      "back: a thief and the owner may both take the last job",                                                      \
    .scenario = "join",                                                                                              \
    .kinds = DataRace | WrongResult)

// The clean pool first, then every mutant: what the runner tables and the catalog hold.
#define WSSTRESS_POLICIES(X)                                                                                         \
  X(NoMutants, none, (),                                                                                             \
    .history = "-",                                                                                                  \
    .failure = "the clean pool: nothing may fail",                                                                   \
    .scenario = "mixed")                                                                                             \
  WSSTRESS_MUTANTS(X)
// clang-format on
