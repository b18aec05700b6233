// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// AtomicCounters: the sleep module's one-word state (rayon-core sleep/counters.rs).
//
// One 64-bit atomic packs, from the least significant bit up:
//   bits  0..16  sleeping threads   (blocked on their condvar)
//   bits 16..32  inactive threads   (idle, sleepy or sleeping; >= sleeping)
//   bits 32..64  the jobs event counter (JEC)
// Packing lets a thread become sleeping, or a publisher read "idle and sleeping"
// together with the JEC, in a single atomic operation. The JEC's parity is the
// signal: even means the last increment came from a thread getting sleepy, odd
// means it came from someone publishing work. Each side only writes when the
// parity says the other side wrote last, so publishing work costs a load, not a
// read-modify-write, while nobody is getting sleepy.
//
// counters.rs documents 10-bit thread fields; the code uses 16 on 64-bit targets.
// We follow the code (the seeds' rule: where docs and code disagree, the code
// wins).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "wsstress/pool/mutants.hpp"
#include "wsstress/pool/platform/concept.hpp"

namespace wsstress::pool {

inline constexpr unsigned kThreadsBits = 16;
// Most threads a pool may have: the thread counters must not overflow.
inline constexpr std::size_t kThreadsMax = (std::size_t{1} << kThreadsBits) - 1;

// A value read from the jobs event counter.
class JobsEventCounter {
 public:
  // Stored in IdleState while the thread is not sleepy; never a real JEC value
  // because a real one has at most 32 bits.
  static constexpr JobsEventCounter dummy() noexcept { return JobsEventCounter(~std::uint64_t{0}); }

  constexpr explicit JobsEventCounter(std::uint64_t value) noexcept : value_(value) {}
  constexpr std::uint64_t as_u64() const noexcept { return value_; }
  // Even: the last increment came from a thread getting sleepy.
  constexpr bool is_sleepy() const noexcept { return (value_ & 1) == 0; }
  // Odd: the last increment came from a thread publishing work.
  constexpr bool is_active() const noexcept { return !is_sleepy(); }
  friend constexpr bool operator==(JobsEventCounter, JobsEventCounter) = default;

 private:
  std::uint64_t value_;
};

// Field layout. Production: sleeping at bit 0, inactive at 16, the JEC in the
// 32 bits above. The mutant policy can narrow the JEC, or move it below the
// thread counters (a model knob for the carry mutant).
template <class M>
struct CounterLayout {
  static constexpr bool kLow = M::kJecBelowCounters;
  static_assert(!kLow || M::kJecBits != 0, "a JEC below the counters needs an explicit width");
  static constexpr unsigned kJecShift = kLow ? 0 : 2 * kThreadsBits;
  static constexpr unsigned kSleepingShift = kLow ? M::kJecBits : 0;
  static constexpr unsigned kInactiveShift = kSleepingShift + kThreadsBits;
  static constexpr unsigned kJecBits = M::kJecBits == 0 ? 64 - kJecShift : M::kJecBits;
  static_assert(kJecBits >= 1 && kJecShift + kJecBits <= 64, "JEC must fit in the word");
  static_assert(kInactiveShift + kThreadsBits <= 64, "thread counters must fit in the word");
  static constexpr std::uint64_t kThreadMask = kThreadsMax;
  static constexpr std::uint64_t kJecMask = kJecBits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << kJecBits) - 1;
  static constexpr std::uint64_t kOneSleeping = std::uint64_t{1} << kSleepingShift;
  static constexpr std::uint64_t kOneInactive = std::uint64_t{1} << kInactiveShift;
  static constexpr std::uint64_t kOneJec = std::uint64_t{1} << kJecShift;
};

// A snapshot of the counters word.
template <class M>
class Counters {
  using L = CounterLayout<M>;

 public:
  constexpr explicit Counters(std::uint64_t word) noexcept : word_(word) {}
  constexpr std::uint64_t word() const noexcept { return word_; }

  constexpr JobsEventCounter jobs_counter() const noexcept {
    return JobsEventCounter((word_ >> L::kJecShift) & L::kJecMask);
  }
  // Idle, sleepy or sleeping.
  constexpr std::uint64_t inactive_threads() const noexcept { return (word_ >> L::kInactiveShift) & L::kThreadMask; }
  constexpr std::uint64_t sleeping_threads() const noexcept { return (word_ >> L::kSleepingShift) & L::kThreadMask; }
  // Inactive threads that are still looking for work.
  constexpr std::uint64_t awake_but_idle_threads() const noexcept { return inactive_threads() - sleeping_threads(); }
  // Adds one to the JEC. At full width the JEC owns the top bits, so a plain
  // wrapping add cannot carry into the thread counts; a narrowed JEC is masked so
  // it wraps inside its own field the same way.
  constexpr Counters increment_jobs_counter() const noexcept {
    if constexpr (L::kJecShift + L::kJecBits == 64 || M::kJecIncrementCarries) {
      // At full width nothing lies above the JEC. (The carry mutant takes this
      // path with a narrow JEC below the counters: its overflow lands in them.)
      return Counters(word_ + L::kOneJec);
    } else {
      const std::uint64_t field = L::kJecMask << L::kJecShift;
      return Counters((word_ & ~field) | ((word_ + L::kOneJec) & field));
    }
  }
  constexpr Counters plus_one_sleeping() const noexcept { return Counters(word_ + L::kOneSleeping); }

 private:
  std::uint64_t word_;
};

template <class P, class M = NoMutants>
class AtomicCounters {
  using L = CounterLayout<M>;

 public:
  using Snapshot = Counters<M>;

  AtomicCounters() noexcept : value_(0) {}

  Snapshot load(std::memory_order order) const noexcept { return Snapshot(value_.load(order)); }

  // A thread enters its idle loop. Not undone when it becomes sleepy or
  // sleeping, so inactive >= sleeping always holds.
  void add_inactive_thread() noexcept { value_.fetch_add(L::kOneInactive, std::memory_order_seq_cst); }

  // Adds one to the JEC while `increment_when` holds for its current value and
  // returns the final counters, for which `increment_when` is false. Sleepy
  // threads pass is_active (odd -> even), publishers pass is_sleepy (even -> odd).
  template <class Pred>
  Snapshot increment_jobs_event_counter_if(Pred increment_when) noexcept {
    for (;;) {
      Snapshot old_value = load(std::memory_order_seq_cst);
      if (!increment_when(old_value.jobs_counter())) return old_value;
      Snapshot new_value = old_value.increment_jobs_counter();
      if (try_exchange(old_value, new_value, std::memory_order_seq_cst)) return new_value;
    }
  }

  // A thread found work and is active again. Returns how many sleepers to wake:
  // any thread leaving the inactive set wakes up to two, so that waking spreads.
  std::uint64_t sub_inactive_thread() noexcept {
    Snapshot old_value(value_.fetch_sub(L::kOneInactive, std::memory_order_seq_cst));
    WSSTRESS_CHECK(P, old_value.inactive_threads() > 0, "sub_inactive_thread: no inactive thread");
    WSSTRESS_CHECK(P, old_value.sleeping_threads() <= old_value.inactive_threads(),
                   "sub_inactive_thread: more sleeping than inactive threads");
    return std::min<std::uint64_t>(old_value.sleeping_threads(), 2);
  }

  // Called by whoever wakes a sleeper (or by a sleeper that backed out at gate
  // 5): the count drops as soon as the notification is sent, so publishers stop
  // counting that thread as asleep without waiting for it to run.
  void sub_sleeping_thread() noexcept {
    Snapshot old_value(value_.fetch_sub(L::kOneSleeping, std::memory_order_seq_cst));
    WSSTRESS_CHECK(P, old_value.sleeping_threads() > 0, "sub_sleeping_thread: no sleeping thread");
    WSSTRESS_CHECK(P, old_value.sleeping_threads() <= old_value.inactive_threads(),
                   "sub_sleeping_thread: more sleeping than inactive threads");
  }

  // Gate 4's compare-and-swap: becomes sleeping only if the counters (and so the
  // JEC) are still exactly `old_value`.
  bool try_add_sleeping_thread(Snapshot old_value) noexcept {
    WSSTRESS_CHECK(P, old_value.inactive_threads() > 0, "try_add_sleeping_thread: no inactive thread");
    WSSTRESS_CHECK(P, old_value.sleeping_threads() < kThreadsMax, "try_add_sleeping_thread: too many sleeping threads");
    return try_exchange(old_value, old_value.plus_one_sleeping(), std::memory_order_seq_cst);
  }

 private:
  bool try_exchange(Snapshot old_value, Snapshot new_value, std::memory_order order) noexcept {
    std::uint64_t expected = old_value.word();
    return value_.compare_exchange_strong(expected, new_value.word(), order, std::memory_order_relaxed);
  }

  typename P::template Atomic<std::uint64_t> value_;
};

}  // namespace wsstress::pool
