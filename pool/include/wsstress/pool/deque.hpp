// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Crossbeam Project Developers; The wsstress developers
// Deque: the per-worker Chase-Lev work-stealing deque (crossbeam-deque 0.8.1's
// Worker and Stealer, which rayon-core uses for local and broadcast queues).
//
// The owner pushes at the back and pops at the back (LIFO) or, for a
// breadth-first pool, at the front (FIFO); thieves steal at the front. Every
// memory order is crossbeam 0.8.1's (Lê, Pop, Cohen and Zappa Nardelli,
// PPoPP 2013, with crossbeam's changes): `push` writes the slot, fences
// Release and stores `back` with Release; the LIFO `pop` stores `back`
// Relaxed, fences SeqCst, loads `front` Relaxed and races thieves for the last
// job with a SeqCst CAS; `steal` loads `front` Acquire, pins the epoch (its
// SeqCst fence, see epoch_pin below), loads `back` Acquire, reads the slot,
// checks the buffer did not change and CASes `front` SeqCst.
//
// Deviations, neither touching an order: a grown buffer is never shrunk, and
// retired buffers are freed only when the deque is destroyed (crossbeam frees
// them through epoch-based reclamation; `resize` keeps the pin and the
// flush's SeqCst fence, the ordering part of that reclamation). A thief holding a stale buffer
// pointer therefore always reads valid memory. The retired buffers add up to
// less than the live one.
//
// A note on C++20 (and Rust, which uses its model): since P0982 a later
// Relaxed store by the owner no longer continues the release sequence of
// push's store, so a thief whose Acquire load of `back` reads pop's Relaxed
// store does not formally synchronise with the pushes before it. crossbeam
// 0.8.1 has exactly this; we keep its order rather than hide it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "wsstress/pool/job.hpp"
#include "wsstress/pool/mutants.hpp"
#include "wsstress/pool/platform/concept.hpp"

namespace wsstress::pool {

enum class StealKind { Empty, Success, Retry };

struct Steal {
  StealKind kind;
  JobRef job;
};

struct EpochTag;

// crossbeam-epoch 0.9.13's `pin()` as `Stealer::steal` meets it (rayon never
// holds a guard, so the thief is not pinned yet), reduced to its ordering
// effect: the portable build stores the local epoch Relaxed and issues a
// SeqCst fence, which is what `steal` relies on between its loads of `front`
// and `back`. Epoch bookkeeping and garbage collection are left out: this
// deque reclaims no buffers while thieves run. The mutant kEpochPinX86Cas
// instead does what x86 builds do: a SeqCst CAS on the thread's own epoch word
// and no fence; its destructor is `unpin`.
template <class P, class M>
struct EpochGuard {
  EpochGuard() noexcept {
    if (M::kEpochPinX86Cas) {
      std::size_t expected = 0;
      local_epoch().compare_exchange_strong(expected, 1, std::memory_order_seq_cst, std::memory_order_seq_cst);
    } else {
      P::fence(std::memory_order_seq_cst);
    }
  }
  ~EpochGuard() {
    if (M::kEpochPinX86Cas) local_epoch().store(0, std::memory_order_release);
  }
  EpochGuard(const EpochGuard&) = delete;
  EpochGuard& operator=(const EpochGuard&) = delete;

 private:
  static typename P::template Atomic<std::size_t>& local_epoch() noexcept {
    return P::template thread_local_slot<EpochTag, typename P::template Atomic<std::size_t>>();
  }
};

template <class P, class M = NoMutants>
class Deque {
  template <class T>
  using Atomic = typename P::template Atomic<T>;

 public:
  enum class Flavor { Lifo, Fifo };
  static constexpr std::size_t kMinCap = 64;

  explicit Deque(Flavor flavor = Flavor::Lifo) : Deque(flavor, new Buffer(kMinCap)) {}

  Deque(const Deque&) = delete;
  Deque& operator=(const Deque&) = delete;

  ~Deque() {
    delete cached_;
    for (Buffer* b : retired_) delete b;
  }

  Flavor flavor() const noexcept { return flavor_; }

  // ---- owner side (one thread at a time; the broadcast queues serialise their
  // many pushers with the registry's mutex) ----

  // Inlined into join, as rustc inlines crossbeam's push into join_context.
  [[gnu::always_inline]] void push(JobRef job) noexcept {
    const std::int64_t b = back_.load(std::memory_order_relaxed);
    const std::int64_t f = front_.load(std::memory_order_acquire);
    if (b - f > static_cast<std::int64_t>(cached_mask_)) resize((cached_mask_ + 1) * 2);
    owner_slot(b).store(job.header(), std::memory_order_relaxed);
    if (M::kDequePushRelaxed) {
      back_.store(b + 1, std::memory_order_relaxed);  // the bug: nothing orders the slot before `back`
      return;
    }
    // Pairs with the thieves' acquire load of `back`: whoever sees b + 1 sees
    // the slot. crossbeam fences and also makes the store Release (for TSan).
    P::fence(std::memory_order_release);
    back_.store(b + 1, std::memory_order_release);
  }

  // A null JobRef when empty.
  JobRef pop() noexcept {
    std::int64_t b = back_.load(std::memory_order_relaxed);
    std::int64_t f = front_.load(std::memory_order_relaxed);
    if (b - f <= 0) return JobRef();

    if (flavor_ == Flavor::Fifo) {
      f = front_.fetch_add(1, std::memory_order_seq_cst);
      if (b - (f + 1) < 0) {
        front_.store(f, std::memory_order_relaxed);
        return JobRef();
      }
      return JobRef(owner_slot(f).load(std::memory_order_relaxed));
    }

    b -= 1;
    back_.store(b, std::memory_order_relaxed);
    // The owner's store of `back` and a thief's load of it must not both miss the
    // other's write to `front`/`back`: this fence pairs with the one in steal().
    if (!M::kDequePopNoFence) P::fence(std::memory_order_seq_cst);
    f = front_.load(std::memory_order_relaxed);
    const std::int64_t len = b - f;
    if (len < 0) {
      back_.store(b + 1, std::memory_order_relaxed);
      return JobRef();
    }
    JobRef job(owner_slot(b).load(std::memory_order_relaxed));
    if (len == 0) {
      // Last job: race the thieves for it on `front`.
      if (!front_.compare_exchange_strong(f, f + 1, std::memory_order_seq_cst, std::memory_order_relaxed)) {
        job = JobRef();
      }
      back_.store(b + 1, std::memory_order_relaxed);
    }
    return job;
  }

  bool owner_is_empty() const noexcept {
    const std::int64_t b = back_.load(std::memory_order_relaxed);
    const std::int64_t f = front_.load(std::memory_order_seq_cst);
    return b - f <= 0;
  }

  // ---- thief side (any thread) ----

  Steal steal() noexcept {
    std::int64_t f = front_.load(std::memory_order_acquire);
    // crossbeam fences here only if the thief is pinned already, which a
    // rayon worker never is; the pin below supplies the SeqCst fence.
    EpochGuard<P, M> guard;
    const std::int64_t b = back_.load(std::memory_order_acquire);
    if (b - f <= 0) return Steal{StealKind::Empty, JobRef()};
    Buffer* buf = buffer_.load(std::memory_order_acquire);
    JobRef job(buf->at(f).load(std::memory_order_relaxed));
    // A resize since the read, or a lost race for `front`: try again.
    if (buffer_.load(std::memory_order_acquire) != buf ||
        !front_.compare_exchange_strong(f, f + 1, std::memory_order_seq_cst, std::memory_order_relaxed)) {
      return Steal{StealKind::Retry, JobRef()};
    }
    return Steal{StealKind::Success, job};
  }

  bool stealer_is_empty() const noexcept {
    const std::int64_t f = front_.load(std::memory_order_acquire);
    P::fence(std::memory_order_seq_cst);
    const std::int64_t b = back_.load(std::memory_order_acquire);
    return b - f <= 0;
  }

  // Approximate length, for state dumps.
  std::size_t len_relaxed() const noexcept {
    const std::int64_t d = back_.load(std::memory_order_relaxed) - front_.load(std::memory_order_relaxed);
    return d > 0 ? static_cast<std::size_t>(d) : 0;
  }

 private:
  struct Buffer {
    explicit Buffer(std::size_t c) : cap(c), slots(new Atomic<JobHeader*>[c]) {
      for (std::size_t i = 0; i < c; ++i) slots[i].store(nullptr, std::memory_order_relaxed);
    }
    Atomic<JobHeader*>& at(std::int64_t index) noexcept { return slots[static_cast<std::size_t>(index) & (cap - 1)]; }
    std::size_t cap;
    std::unique_ptr<Atomic<JobHeader*>[]> slots;
  };

  // Initialises `buffer_` without an atomic operation, as the engines'
  // platforms would count one as a scheduling point.
  Deque(Flavor flavor, Buffer* buffer) : flavor_(flavor), front_(0), back_(0), buffer_(buffer), cached_(buffer) {
    cache_owner_view();
  }

  void cache_owner_view() noexcept {
    cached_slots_ = cached_->slots.get();
    cached_mask_ = cached_->cap - 1;
  }
  Atomic<JobHeader*>& owner_slot(std::int64_t index) noexcept {
    return cached_slots_[static_cast<std::size_t>(index) & cached_mask_];
  }

  void resize(std::size_t new_cap) {
    const std::int64_t b = back_.load(std::memory_order_relaxed);
    const std::int64_t f = front_.load(std::memory_order_relaxed);
    Buffer* old = cached_;
    auto* grown = new Buffer(new_cap);
    for (std::int64_t i = f; i != b; ++i) {
      grown->at(i).store(old->at(i).load(std::memory_order_relaxed), std::memory_order_relaxed);
    }
    // crossbeam pins the epoch here, between the copy and the swap
    // (deque.rs:295): its SeqCst fence (or, for kEpochPinX86Cas, its CAS).
    EpochGuard<P, M> guard;
    retired_.push_back(old);
    cached_ = grown;
    cache_owner_view();
    // Pairs with the thieves' acquire load of `buffer_` (crossbeam: a Release swap).
    buffer_.exchange(grown, std::memory_order_release);
    // crossbeam then flushes the thread's garbage when the buffer is large
    // (deque.rs:309-311: size_of::<JobRef>() * new_cap >= 1 KiB, every growth
    // from 64 slots up): Guard::flush -> Global::collect -> try_advance, whose
    // SeqCst fence is the flush's only ordering effect on the deque's words
    // (the bag's queue and the epoch are words of their own).
    if (kRustJobRefBytes * new_cap >= kFlushThresholdBytes) P::fence(std::memory_order_seq_cst);
  }
  static constexpr std::size_t kRustJobRefBytes = 16;           // rayon-core's JobRef: a data and a function pointer
  static constexpr std::size_t kFlushThresholdBytes = 1 << 10;  // crossbeam-deque's FLUSH_THRESHOLD_BYTES

  const Flavor flavor_;
  // crossbeam's layout (a CachePadded Inner whose buffer is CachePadded too):
  // `front` and `back` share a line, so a join polled by a thief moves one
  // line instead of two (pool/README.md, item 15).
  alignas(128) Atomic<std::int64_t> front_;
  Atomic<std::int64_t> back_;
  alignas(128) Atomic<Buffer*> buffer_;
  // Owner-side copy of the current buffer, so the owner never loads `buffer_`,
  // with its slots and index mask copied here so that push and pop reach a
  // slot with one load instead of two dependent ones.
  alignas(128) Buffer* cached_;
  Atomic<JobHeader*>* cached_slots_ = nullptr;
  std::size_t cached_mask_ = 0;
  std::vector<Buffer*> retired_;
};

}  // namespace wsstress::pool
