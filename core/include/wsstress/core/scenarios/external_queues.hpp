// SPDX-License-Identifier: LicenseRef-MSR-LA-CHESS AND LicenseRef-CDSChecker-benchmarks-unlicensed
// SPDX-FileCopyrightText: Microsoft Corporation (CHESS); Brian Norris and Brian Demsky (CDSChecker benchmarks); The wsstress developers
// Two work-stealing queues nobody here wrote, with their known bugs, ported
// over the platform policy (atomics, mutex, plain cells from P; threads from
// Env<P>), each with its test harness and that harness's assertions as the
// oracle:
//
// - CHESS's WorkStealQueue (Microsoft; the THE protocol of Cilk-5), as
//   SCTBench keeps it: github.com/mc-imperial/sctbench at commit
//   d59ab26ddaedcd575ffb6a1f5e9711f7d6d2d9f2, benchmarks/chess/WorkStealQueue.h
//   with WorkStealQueue.cpp (the queue's lock a pthread mutex) and
//   InterlockedWorkStealQueue.cpp (USE_NON_BLOCKING_SYNC: a spin lock on an
//   atomic exchange, sleep(0) between tries). The bug SCTBench enables is
//   BUG3: Push's fast path tests `t < head + mask + 1` instead of
//   `t < head + mask`, so a Push can overwrite the slot a concurrent Steal has
//   claimed but not yet read; one item then runs twice and another never
//   (the harness's `assert(field == 1)`). The twin is the line the header
//   marks "Correct". readV/writeV are SeqCst compare-exchange/exchange as
//   there; the task array and the items are plain memory (P::Cell).
//
// - The Chase-Lev deque of Le, Pop, Cohen and Zappa Nardelli (PPoPP'13, C11
//   atomics) as CDSChecker's benchmarks keep it: github.com/
//   computersforpeace/model-checker-benchmarks at commit
//   bd72205f6e95bd471c13dcf74476d44b40e9a56d, chase-lev-deque/{deque.c,main.c}
//   (the bug: resize publishes the new array with a relaxed store and steal
//   loads it relaxed, so a thief can read the new array's size and slots
//   before they are written) and chase-lev-deque-bugfix/deque.c (that
//   repository's commit 8d33d37, "bugfix for chase lev": release store,
//   acquire load). Every operation keeps its memory order; the oracle is
//   main.c's MODEL_ASSERT, and a size read as 0 (C's division by zero).
//   Only a memory model that lets a load read a store older than one it could
//   see finds it: `--memory cpp` (x86-TSO's FIFO buffers publish in order).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "wsstress/core/progress.hpp"
#include "wsstress/core/scenario.hpp"

namespace wsstress::core {

template <class P>
struct ExternalQueues {
  using E = Env<P>;

  // ---- CHESS WorkStealQueue ----

  struct ObjType {
    typename P::template Cell<int> field{0};
    void operation() { ++field.write(); }
  };
  using T = ObjType*;

  // The queue's lock: a mutex (WorkStealQueue.cpp) or an exchange spin lock
  // (InterlockedWorkStealQueue.cpp; its Release is a plain SeqCst store).
  struct SpinLock {
    explicit SpinLock(bool s) : spin(s) {}
    bool spin;
    typename P::Mutex cs;
    typename P::template Atomic<std::uintptr_t> lock{0};
    void acquire() {
      if (!spin) return cs.lock();
      while (lock.exchange(1, std::memory_order_seq_cst) != 0) {
        if constexpr (requires { P::spin_loop_hint(); }) {
          P::spin_loop_hint();  // sleep(0): the simulator's spin-wait, so PCT lets the holder run
        } else {
          P::yield_now();
        }
      }
    }
    void release() {
      if (!spin) return cs.unlock();
      lock.store(0, std::memory_order_seq_cst);
    }
  };

  class WorkStealQueue {
   public:
    static constexpr long kMaxSize = 1024 * 1024;
    static constexpr long kInitialSize = 1024;

    WorkStealQueue(long size, bool spin, bool fixed, const std::function<void(bool, const char*)>& check)
        : lock_{spin}, fixed_(fixed), check_(check) {
      write_v(head_, 0);
      write_v(tail_, 0);
      mask_ = size - 1;
      elems_ = make_array(size);
    }

    bool steal(T& result) {
      bool found;
      lock_.acquire();
      const long h = read_v(head_);
      write_v(head_, h + 1);
      if (h < read_v(tail_)) {
        result = elems_[h & mask_].read();
        found = true;
      } else {
        write_v(head_, h);  // restore the head
        found = false;
      }
      lock_.release();
      return found;
    }

    bool pop(T& result) {
      const long t = read_v(tail_) - 1;
      write_v(tail_, t);
      if (read_v(head_) <= t) {
        result = elems_[t & mask_].read();
        return true;
      }
      write_v(tail_, t + 1);  // restore the tail
      return sync_pop(result);
    }

    void push(T elem) {
      const long t = read_v(tail_);
      // BUG3 (SCTBench's choice): `t < head + mask + 1`; correct: `t < head + mask`.
      const long room = fixed_ ? mask_ : mask_ + 1;
      if (t < read_v(head_) + room && t < kMaxSize) {
        elems_[t & mask_].write() = elem;
        write_v(tail_, t + 1);  // only once the slot is written
      } else {
        sync_push(elem);
      }
    }

   private:
    using Slots = std::unique_ptr<typename P::template Cell<T>[]>;
    static Slots make_array(long n) { return Slots(new typename P::template Cell<T>[static_cast<std::size_t>(n)]); }
    // InterlockedCompareExchange(&v, 0, 0) and InterlockedExchange, as the port in SCTBench.
    static long read_v(typename P::template Atomic<long>& v) {
      long expected = 0;
      v.compare_exchange_strong(expected, 0, std::memory_order_seq_cst, std::memory_order_seq_cst);
      return expected;
    }
    static void write_v(typename P::template Atomic<long>& v, long w) { v.exchange(w, std::memory_order_seq_cst); }

    bool sync_pop(T& result) {
      bool found;
      lock_.acquire();
      const long t = read_v(tail_) - 1;
      write_v(tail_, t);
      if (read_v(head_) <= t) {
        result = elems_[t & mask_].read();
        found = true;
      } else {
        write_v(tail_, t + 1);
        found = false;
      }
      if (read_v(head_) > t) {  // empty: reset head and tail
        write_v(head_, 0);
        write_v(tail_, 0);
        found = false;
      }
      lock_.release();
      return found;
    }

    void sync_push(T elem) {
      lock_.acquire();
      long h = read_v(head_);
      const long count = read_v(tail_) - h;
      h = h & mask_;  // normalise the indices
      write_v(head_, h);
      write_v(tail_, h + count);
      if (count >= mask_) {  // enlarge
        const long newsize = mask_ == 0 ? kInitialSize : 2 * (mask_ + 1);
        check_(newsize < kMaxSize, "WorkStealQueue: assert(newsize < MaxSize)");
        Slots newtasks = make_array(newsize);
        for (long i = 0; i < count; ++i) newtasks[i].write() = elems_[(h + i) & mask_].read();
        elems_ = std::move(newtasks);
        mask_ = newsize - 1;
        write_v(head_, 0);
        write_v(tail_, count);
      }
      check_(count < mask_, "WorkStealQueue: assert(count < mask)");
      const long t = read_v(tail_);
      elems_[t & mask_].write() = elem;
      write_v(tail_, t + 1);
      lock_.release();
    }

    typename P::template Atomic<long> head_{0};  // only Steal (and the locked paths) write it
    typename P::template Atomic<long> tail_{0};  // only the owner writes it
    // Written by the owner under the lock (sync_push), read by thieves under it.
    Slots elems_;
    long mask_ = 0;
    SpinLock lock_;
    bool fixed_;
    const std::function<void(bool, const char*)>& check_;
  };

  // WorkStealQueue.cpp's main(): INITQSIZE 2, one stealer, four items, two
  // steal attempts (the defaults of its args(), as SCTBench's golden run).
  template <class C>
  static void work_steal_queue(C& c, bool spin, bool fixed) {
    constexpr int kStealers = 1, kItems = 4, kStealAttempts = 2;
    const std::function<void(bool, const char*)> check = [&c](bool ok, const char* what) { c.check(ok, what); };
    std::vector<std::unique_ptr<ObjType>> items;
    for (int i = 0; i < kItems; ++i) items.push_back(std::make_unique<ObjType>());
    WorkStealQueue q(2, spin, fixed, check);
    std::vector<typename E::Thread> handles;
    for (int i = 0; i < kStealers; ++i) {
      handles.push_back(E::start([&q] {
        T r;
        for (int a = 0; a < kStealAttempts; ++a) {
          if (q.steal(r)) r->operation();
        }
      }));
    }
    for (int i = 0; i < kItems / 2; ++i) {
      q.push(items[2 * i].get());
      q.push(items[2 * i + 1].get());
      T r;
      if (q.pop(r)) r->operation();
    }
    for (int i = 0; i < kItems / 2; ++i) {
      T r;
      if (q.pop(r)) r->operation();
    }
    for (auto& h : handles) E::join(h);
    for (int i = 0; i < kItems; ++i) {
      const int field = items[i]->field.read();
      c.check(field == 1, [&] {
        return "WorkStealQueue: assert(field == 1) failed: item " + std::to_string(i) + " ran " +
               std::to_string(field) + " times";
      });
    }
    Progress::tick();
  }

  // ---- CDSChecker's Chase-Lev deque ----

  static constexpr int kEmpty = static_cast<int>(0xffffffffu);
  static constexpr int kAbort = static_cast<int>(0xfffffffeu);

  struct Array {  // calloc'd: every field starts at zero
    typename P::template Atomic<std::size_t> size{0};
    std::unique_ptr<typename P::template Atomic<int>[]> buffer;
    explicit Array(std::size_t n) : buffer(new typename P::template Atomic<int>[n]) {}
  };

  struct Deque {
    typename P::template Atomic<std::size_t> top{0}, bottom{0};
    typename P::template Atomic<Array*> array{nullptr};
    std::vector<std::unique_ptr<Array>> arrays;  // deque.c never frees one; freed here at the end
    bool fixed;
    Array* alloc(std::size_t n) {
      arrays.push_back(std::make_unique<Array>(n));
      return arrays.back().get();
    }
  };

  static void create(Deque& q) {
    Array* a = q.alloc(2);
    q.array.store(a, std::memory_order_relaxed);
    q.top.store(0, std::memory_order_relaxed);
    q.bottom.store(0, std::memory_order_relaxed);
    a->size.store(2, std::memory_order_relaxed);
  }

  static int take(Deque& q) {
    const std::size_t b = q.bottom.load(std::memory_order_relaxed) - 1;
    Array* a = q.array.load(std::memory_order_relaxed);
    q.bottom.store(b, std::memory_order_relaxed);
    P::fence(std::memory_order_seq_cst);
    std::size_t t = q.top.load(std::memory_order_relaxed);
    int x;
    if (t <= b) {  // non-empty
      x = a->buffer[b % a->size.load(std::memory_order_relaxed)].load(std::memory_order_relaxed);
      if (t == b) {  // the last element
        if (!q.top.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_relaxed)) {
          x = kEmpty;  // lost the race
        }
        q.bottom.store(b + 1, std::memory_order_relaxed);
      }
    } else {
      x = kEmpty;
      q.bottom.store(b + 1, std::memory_order_relaxed);
    }
    return x;
  }

  static void resize(Deque& q) {
    Array* a = q.array.load(std::memory_order_relaxed);
    const std::size_t size = a->size.load(std::memory_order_relaxed);
    const std::size_t new_size = size << 1;
    Array* new_a = q.alloc(new_size);
    const std::size_t top = q.top.load(std::memory_order_relaxed);
    const std::size_t bottom = q.bottom.load(std::memory_order_relaxed);
    new_a->size.store(new_size, std::memory_order_relaxed);
    for (std::size_t i = top; i < bottom; ++i) {
      new_a->buffer[i % new_size].store(a->buffer[i % size].load(std::memory_order_relaxed), std::memory_order_relaxed);
    }
    // The bug: relaxed (deque.c); the bugfix: release.
    q.array.store(new_a, q.fixed ? std::memory_order_release : std::memory_order_relaxed);
  }

  static void push(Deque& q, int x) {
    const std::size_t b = q.bottom.load(std::memory_order_relaxed);
    const std::size_t t = q.top.load(std::memory_order_acquire);
    Array* a = q.array.load(std::memory_order_relaxed);
    if (b - t > a->size.load(std::memory_order_relaxed) - 1) {  // full
      resize(q);
      a = q.array.load(std::memory_order_relaxed);  // "Bug in paper...should have next line..."
    }
    a->buffer[b % a->size.load(std::memory_order_relaxed)].store(x, std::memory_order_relaxed);
    P::fence(std::memory_order_release);
    q.bottom.store(b + 1, std::memory_order_relaxed);
  }

  // `size_zero`: the thief read the new array's size before its
  // initialisation (C divides by zero there; CDSChecker reports the
  // uninitialised load).
  static int steal(Deque& q, bool& size_zero) {
    std::size_t t = q.top.load(std::memory_order_acquire);
    P::fence(std::memory_order_seq_cst);
    const std::size_t b = q.bottom.load(std::memory_order_acquire);
    int x = kEmpty;
    if (t < b) {
      // The bug: relaxed (deque.c); the bugfix: acquire.
      Array* a = q.array.load(q.fixed ? std::memory_order_acquire : std::memory_order_relaxed);
      const std::size_t sz = a->size.load(std::memory_order_relaxed);
      if (sz == 0) {
        size_zero = true;
        return kAbort;
      }
      x = a->buffer[t % sz].load(std::memory_order_relaxed);
      if (!q.top.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_relaxed)) {
        return kAbort;
      }
    }
    return x;
  }

  // main.c: one thief steals once while the owner pushes 1, 2, 4 (the third
  // push resizes) and takes twice.
  template <class C>
  static void chase_lev(C& c, bool fixed) {
    Deque q;
    q.fixed = fixed;
    create(q);
    int a = 0, b = 0, cc = 0;
    bool size_zero = false;
    typename E::Thread thief = E::start([&] { a = steal(q, size_zero); });
    push(q, 1);
    push(q, 2);
    push(q, 4);
    b = take(q);
    cc = take(q);
    E::join(thief);
    // The C program's end: its exit drains the store buffer before the deque
    // goes away (TSO would otherwise flush a store into the freed deque).
    P::fence(std::memory_order_seq_cst);
    c.check(!size_zero, "chase-lev: steal read the resized array's size before it was stored (size 0)");
    bool correct = true;
    if (a != 1 && a != 2 && a != 4 && a != kEmpty) correct = false;
    if (b != 1 && b != 2 && b != 4 && b != kEmpty) correct = false;
    if (cc != 1 && cc != 2 && cc != 4 && a != kEmpty) correct = false;  // sic: main.c tests `a` here
    if (a != kEmpty && b != kEmpty && cc != kEmpty && a + b + cc != 7) correct = false;
    c.check(size_zero || correct, [&] {
      return "chase-lev: MODEL_ASSERT(correct) failed: a=" + std::to_string(a) + " b=" + std::to_string(b) +
             " c=" + std::to_string(cc);
    });
    Progress::tick();
  }
};

}  // namespace wsstress::core
