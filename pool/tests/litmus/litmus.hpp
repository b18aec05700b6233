// SPDX-License-Identifier: MIT OR Apache-2.0
// Litmus programs that check the checkers (after loom's
// tests/litmus.rs): the classic two- and four-thread programs whose set of
// reachable outcomes is known for each memory model, written once over the
// platform policy so that the same text runs in Relacy (RelacyPlatform) and in
// the simulator (SimPlatform, under SC and under TSO). A checker whose
// exhaustive search reaches a different set than the model allows is wrong
// about that model: missing an outcome means it cannot show a bug that needs
// it, an extra one means it reports bugs the model rules out.
//
// Each litmus is a struct holding its atomics and the values its loads read:
// `thread(i)` is the body of thread i (0 <= i < kThreads), and `outcome()`
// encodes the reads as a small integer, bit k = read k (every variable starts
// at 0 and every store writes 1). `describe` prints a set of outcomes as
// strings of read values, "r0 r1 ...", so a test can state the exact set.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace wsstress::litmus {

inline constexpr std::memory_order kRlx = std::memory_order_relaxed;
inline constexpr std::memory_order kAcq = std::memory_order_acquire;
inline constexpr std::memory_order kRel = std::memory_order_release;
inline constexpr std::memory_order kSc = std::memory_order_seq_cst;

// Store buffering (Dekker): thread i stores 1 to its own variable, then loads
// the other's. Reads: r0 (thread 0's load of y), r1 (thread 1's load of x).
// "00" (both loads miss the other's store) is the store->load reordering;
// threads whose bit is set in FenceMask run a SeqCst fence in between.
template <class P, std::memory_order Store, std::memory_order Load, unsigned FenceMask>
struct StoreBuffering {
  static constexpr unsigned kThreads = 2;
  static constexpr unsigned kReads = 2;
  typename P::template Atomic<unsigned> x{0u}, y{0u};
  unsigned r[kReads] = {};

  void thread(unsigned i) {
    (i == 0 ? x : y).store(1u, Store);
    if ((FenceMask >> i & 1u) != 0) P::fence(kSc);
    r[i] = (i == 0 ? y : x).load(Load);
  }
  unsigned outcome() const { return r[0] | r[1] << 1; }
};

// Message passing: thread 0 writes data, then raises a flag; thread 1 reads
// the flag, then the data. Reads: r0 = flag, r1 = data. "10" is the stale
// read (flag seen, data not). With Fences, a release fence before the flag
// store and an acquire fence after the flag load (the accesses stay relaxed).
template <class P, std::memory_order FlagStore, std::memory_order FlagLoad, bool Fences>
struct MessagePassing {
  static constexpr unsigned kThreads = 2;
  static constexpr unsigned kReads = 2;
  typename P::template Atomic<unsigned> data{0u}, flag{0u};
  unsigned r[kReads] = {};

  void thread(unsigned i) {
    if (i == 0) {
      data.store(1u, kRlx);
      if (Fences) P::fence(kRel);
      flag.store(1u, FlagStore);
    } else {
      r[0] = flag.load(FlagLoad);
      if (Fences) P::fence(kAcq);
      r[1] = data.load(kRlx);
    }
  }
  unsigned outcome() const { return r[0] | r[1] << 1; }
};

// Load buffering: each thread loads the other's variable, then stores 1 to
// its own. Reads: r0 (thread 0's load of x), r1 (thread 1's load of y). "11"
// needs each load to read a store that comes later in its own thread's
// program order: allowed by C++ for relaxed accesses, impossible on x86.
template <class P>
struct LoadBuffering {
  static constexpr unsigned kThreads = 2;
  static constexpr unsigned kReads = 2;
  typename P::template Atomic<unsigned> x{0u}, y{0u};
  unsigned r[kReads] = {};

  void thread(unsigned i) {
    r[i] = (i == 0 ? x : y).load(kRlx);
    (i == 0 ? y : x).store(1u, kRlx);
  }
  unsigned outcome() const { return r[0] | r[1] << 1; }
};

// Independent reads of independent writes: threads 0 and 1 write x and y;
// thread 2 reads x then y (r0, r1), thread 3 reads y then x (r2, r3).
// "1010" is the readers disagreeing on the order of the two writes: only a
// memory that is not multi-copy atomic (or the C++ model below SeqCst) allows it.
template <class P, std::memory_order Store, std::memory_order Load>
struct Iriw {
  static constexpr unsigned kThreads = 4;
  static constexpr unsigned kReads = 4;
  typename P::template Atomic<unsigned> x{0u}, y{0u};
  unsigned r[kReads] = {};

  void thread(unsigned i) {
    switch (i) {
      case 0: x.store(1u, Store); break;
      case 1: y.store(1u, Store); break;
      case 2:
        r[0] = x.load(Load);
        r[1] = y.load(Load);
        break;
      default:
        r[2] = y.load(Load);
        r[3] = x.load(Load);
        break;
    }
  }
  unsigned outcome() const { return r[0] | r[1] << 1 | r[2] << 2 | r[3] << 3; }
};

// ---- the weak-memory shapes (sources: x86-TSO's outcomes from Owens,
// Sarkar and Sewell, "A better x86 memory model: x86-TSO", TPHOLs 2009, and
// Sewell et al., CACM 2010; C++'s from RC11, Lahav, Vafeiadis, Kang, Hur and
// Dreyer, "Repairing sequential consistency in C/C++11", PLDI 2017, with
// C++20's SeqCst fence rules (P0668R5, [atomics.order] p4); the test names are
// herd's, Alglave, Maranget and Tautschnig, TOPLAS 2014). Observation bits
// that are not plain reads of 0/1 say what they test. `last(a)` reads a
// location's final value: an RMW reads the newest store in modification
// order, so called by the last thread (after every store) it is that value.
template <class A>
unsigned last(A& a) {
  return a.fetch_add(0u, std::memory_order_relaxed);
}

// Write-to-read causality: T0 x=1; T1 r0=x, y=1; T2 r1=y, r2=x. "110": T2
// sees T1's store, which came after T1 saw x=1, and still reads x=0.
template <class P, std::memory_order Store, std::memory_order Load>
struct Wrc {
  static constexpr unsigned kThreads = 3;
  static constexpr unsigned kReads = 3;
  typename P::template Atomic<unsigned> x{0u}, y{0u};
  unsigned r[kReads] = {};
  void thread(unsigned i) {
    if (i == 0) {
      x.store(1u, kRlx);
    } else if (i == 1) {
      r[0] = x.load(kRlx);
      y.store(1u, Store);
    } else {
      r[1] = y.load(Load);
      r[2] = x.load(kRlx);
    }
  }
  unsigned outcome() const { return r[0] | r[1] << 1 | r[2] << 2; }
};

// Read-to-write causality: T0 x=1; T1 r0=x, r1=y; T2 y=1, r2=x. "100".
// With Fences, a SeqCst fence between the two accesses of T1 and of T2.
template <class P, std::memory_order Order, bool Fences>
struct Rwc {
  static constexpr unsigned kThreads = 3;
  static constexpr unsigned kReads = 3;
  typename P::template Atomic<unsigned> x{0u}, y{0u};
  unsigned r[kReads] = {};
  void thread(unsigned i) {
    if (i == 0) {
      x.store(1u, Order);
    } else if (i == 1) {
      r[0] = x.load(Order);
      if (Fences) P::fence(kSc);
      r[1] = y.load(Order);
    } else {
      y.store(1u, Order);
      if (Fences) P::fence(kSc);
      r[2] = x.load(Order);
    }
  }
  unsigned outcome() const { return r[0] | r[1] << 1 | r[2] << 2; }
};

// 2+2W: T0 x=1, y=2; T1 y=1, x=2. Bits: final x == 1, final y == 1; "11"
// needs both modification orders against both program orders.
template <class P, std::memory_order Order>
struct TwoPlusTwoW {
  static constexpr unsigned kThreads = 2;
  static constexpr unsigned kReads = 2;
  typename P::template Atomic<unsigned> x{0u}, y{0u};
  void thread(unsigned i) {
    (i == 0 ? x : y).store(1u, Order);
    (i == 0 ? y : x).store(2u, Order);
  }
  unsigned outcome() { return (last(x) == 1 ? 1u : 0u) | (last(y) == 1 ? 2u : 0u); }
};

// Coherence of two reads (CoRR): T0 x=1; T1 r0=x, r1=x. "10" forbidden everywhere.
template <class P>
struct CoRR {
  static constexpr unsigned kThreads = 2;
  static constexpr unsigned kReads = 2;
  typename P::template Atomic<unsigned> x{0u};
  unsigned r[kReads] = {};
  void thread(unsigned i) {
    if (i == 0) {
      x.store(1u, kRlx);
    } else {
      r[0] = x.load(kRlx);
      r[1] = x.load(kRlx);
    }
  }
  unsigned outcome() const { return r[0] | r[1] << 1; }
};

// Write then read (CoWR): T0 x=1, r=x; T1 x=2. Bits: r == 1, r == 2; "00"
// (T0 reads the initial 0 after its own store) is forbidden everywhere.
template <class P>
struct CoWR {
  static constexpr unsigned kThreads = 2;
  static constexpr unsigned kReads = 2;
  typename P::template Atomic<unsigned> x{0u};
  unsigned r0 = 0;
  void thread(unsigned i) {
    if (i == 0) {
      x.store(1u, kRlx);
      r0 = x.load(kRlx);
    } else {
      x.store(2u, kRlx);
    }
  }
  unsigned outcome() const { return (r0 == 1 ? 1u : 0u) | (r0 == 2 ? 2u : 0u); }
};

// Read then write (CoRW): T0 r=x, x=1; T1 x=2. Bits: r == 2, final x == 2;
// "11" (T0 read 2 and its later store is mo-before 2) is forbidden.
template <class P>
struct CoRW {
  static constexpr unsigned kThreads = 2;
  static constexpr unsigned kReads = 2;
  typename P::template Atomic<unsigned> x{0u};
  unsigned r0 = 0;
  void thread(unsigned i) {
    if (i == 0) {
      r0 = x.load(kRlx);
      x.store(1u, kRlx);
    } else {
      x.store(2u, kRlx);
    }
  }
  unsigned outcome() { return (r0 == 2 ? 1u : 0u) | (last(x) == 2 ? 2u : 0u); }
};

// Two writes (CoWW) seen by a reader: T0 x=1, x=2; T1 r0=x, r1=x. Bits:
// r0 == 2, r1 == 1; "11" (2 then 1) is forbidden everywhere.
template <class P>
struct CoWW {
  static constexpr unsigned kThreads = 2;
  static constexpr unsigned kReads = 2;
  typename P::template Atomic<unsigned> x{0u};
  unsigned r[2] = {};
  void thread(unsigned i) {
    if (i == 0) {
      x.store(1u, kRlx);
      x.store(2u, kRlx);
    } else {
      r[0] = x.load(kRlx);
      r[1] = x.load(kRlx);
    }
  }
  unsigned outcome() const { return (r[0] == 2 ? 1u : 0u) | (r[1] == 1 ? 2u : 0u); }
};

// ISA2: T0 x=1, y=1; T1 r0=y, z=1; T2 r1=z, r2=x. "110": causality through
// two threads; forbidden once every flag is a release/acquire pair.
template <class P, std::memory_order Store, std::memory_order Load>
struct Isa2 {
  static constexpr unsigned kThreads = 3;
  static constexpr unsigned kReads = 3;
  typename P::template Atomic<unsigned> x{0u}, y{0u}, z{0u};
  unsigned r[kReads] = {};
  void thread(unsigned i) {
    if (i == 0) {
      x.store(1u, kRlx);
      y.store(1u, Store);
    } else if (i == 1) {
      r[0] = y.load(Load);
      z.store(1u, Store);
    } else {
      r[1] = z.load(Load);
      r[2] = x.load(kRlx);
    }
  }
  unsigned outcome() const { return r[0] | r[1] << 1 | r[2] << 2; }
};

// R: T0 x=1, y=1; T1 y=2, r0=x. Bits: final y == 2, r0; "10" (T1's store of
// y is the later one, yet T1 reads x=0) is a store->load reordering in T1.
template <class P, std::memory_order Order, bool Fences>
struct R {
  static constexpr unsigned kThreads = 2;
  static constexpr unsigned kReads = 2;
  typename P::template Atomic<unsigned> x{0u}, y{0u};
  unsigned r0 = 0;
  void thread(unsigned i) {
    if (i == 0) {
      x.store(1u, Order);
      if (Fences) P::fence(kSc);
      y.store(1u, Order);
    } else {
      y.store(2u, Order);
      if (Fences) P::fence(kSc);
      r0 = x.load(Order);
    }
  }
  unsigned outcome() { return (last(y) == 2 ? 1u : 0u) | r0 << 1; }
};

// S: T0 x=2, y=1; T1 r0=y, x=1. Bits: r0, final x == 2; "11" (T1 saw y=1,
// yet its store of x is mo-before T0's).
template <class P, std::memory_order Store, std::memory_order Load>
struct S {
  static constexpr unsigned kThreads = 2;
  static constexpr unsigned kReads = 2;
  typename P::template Atomic<unsigned> x{0u}, y{0u};
  unsigned r0 = 0;
  void thread(unsigned i) {
    if (i == 0) {
      x.store(2u, kRlx);
      y.store(1u, Store);
    } else {
      r0 = y.load(Load);
      x.store(1u, kRlx);
    }
  }
  unsigned outcome() { return r0 | (last(x) == 2 ? 2u : 0u); }
};

// Store buffering with a SeqCst fence in T0 and SeqCst accesses in T1: "00"
// was allowed by C++11 and is forbidden by C++20's fence rules (P0668R5).
template <class P>
struct SbFenceAndSeqCst {
  static constexpr unsigned kThreads = 2;
  static constexpr unsigned kReads = 2;
  typename P::template Atomic<unsigned> x{0u}, y{0u};
  unsigned r[kReads] = {};
  void thread(unsigned i) {
    if (i == 0) {
      x.store(1u, kRlx);
      P::fence(kSc);
      r[0] = y.load(kRlx);
    } else {
      y.store(1u, kSc);
      r[1] = x.load(kSc);
    }
  }
  unsigned outcome() const { return r[0] | r[1] << 1; }
};

// IRIW with a SeqCst fence between each reader's loads: "1010" forbidden by
// C++20 (the readers' fences are ordered in S), allowed without the fences.
template <class P>
struct IriwFences {
  static constexpr unsigned kThreads = 4;
  static constexpr unsigned kReads = 4;
  typename P::template Atomic<unsigned> x{0u}, y{0u};
  unsigned r[kReads] = {};
  void thread(unsigned i) {
    switch (i) {
      case 0: x.store(1u, kRlx); break;
      case 1: y.store(1u, kRlx); break;
      case 2:
        r[0] = x.load(kRlx);
        P::fence(kSc);
        r[1] = y.load(kRlx);
        break;
      default:
        r[2] = y.load(kRlx);
        P::fence(kSc);
        r[3] = x.load(kRlx);
        break;
    }
  }
  unsigned outcome() const { return r[0] | r[1] << 1 | r[2] << 2 | r[3] << 3; }
};

// Load buffering with release stores and acquire loads: "11" forbidden (a
// cycle of happens-before).
template <class P>
struct LoadBufferingRelAcq {
  static constexpr unsigned kThreads = 2;
  static constexpr unsigned kReads = 2;
  typename P::template Atomic<unsigned> x{0u}, y{0u};
  unsigned r[kReads] = {};
  void thread(unsigned i) {
    r[i] = (i == 0 ? x : y).load(kAcq);
    (i == 0 ? y : x).store(1u, kRel);
  }
  unsigned outcome() const { return r[0] | r[1] << 1; }
};

// The variants the tests run.
template <class P>
using SbRelaxed = StoreBuffering<P, kRlx, kRlx, 0>;
template <class P>
using SbRelAcq = StoreBuffering<P, kRel, kAcq, 0>;
template <class P>
using SbFences = StoreBuffering<P, kRlx, kRlx, 3>;  // SeqCst fence in both threads
template <class P>
using SbOneFence = StoreBuffering<P, kRlx, kRlx, 1>;  // in thread 0 only
template <class P>
using SbSeqCst = StoreBuffering<P, kSc, kSc, 0>;
template <class P>
using SbScStores = StoreBuffering<P, kSc, kRlx, 0>;  // SeqCst stores, relaxed loads
template <class P>
using SbScLoads = StoreBuffering<P, kRlx, kSc, 0>;  // relaxed stores, SeqCst loads
template <class P>
using SbFenceSc = SbFenceAndSeqCst<P>;
template <class P>
using MpRelaxed = MessagePassing<P, kRlx, kRlx, false>;
template <class P>
using MpRelAcq = MessagePassing<P, kRel, kAcq, false>;
template <class P>
using MpFences = MessagePassing<P, kRlx, kRlx, true>;
template <class P>
using MpRelRlx = MessagePassing<P, kRel, kRlx, false>;  // no acquire
template <class P>
using MpRlxAcq = MessagePassing<P, kRlx, kAcq, false>;  // no release
template <class P>
using LbRelaxed = LoadBuffering<P>;
template <class P>
using LbRelAcq = LoadBufferingRelAcq<P>;
template <class P>
using IriwRelaxed = Iriw<P, kRlx, kRlx>;
template <class P>
using IriwAcquire = Iriw<P, kRel, kAcq>;  // release stores, acquire loads
template <class P>
using IriwSeqCst = Iriw<P, kSc, kSc>;
template <class P>
using IriwFence = IriwFences<P>;
template <class P>
using WrcRelaxed = Wrc<P, kRlx, kRlx>;
template <class P>
using WrcRelAcq = Wrc<P, kRel, kAcq>;
template <class P>
using RwcRelaxed = Rwc<P, kRlx, false>;
template <class P>
using RwcSeqCst = Rwc<P, kSc, false>;
template <class P>
using RwcFences = Rwc<P, kRlx, true>;
template <class P>
using W2Relaxed = TwoPlusTwoW<P, kRlx>;
template <class P>
using W2SeqCst = TwoPlusTwoW<P, kSc>;
template <class P>
using CoRRRelaxed = CoRR<P>;
template <class P>
using CoWRRelaxed = CoWR<P>;
template <class P>
using CoRWRelaxed = CoRW<P>;
template <class P>
using CoWWRelaxed = CoWW<P>;
template <class P>
using Isa2Relaxed = Isa2<P, kRlx, kRlx>;
template <class P>
using Isa2RelAcq = Isa2<P, kRel, kAcq>;
template <class P>
using RRelaxed = R<P, kRlx, false>;
template <class P>
using RSeqCst = R<P, kSc, false>;
template <class P>
using RFences = R<P, kRlx, true>;
template <class P>
using SRelaxed = S<P, kRlx, kRlx>;
template <class P>
using SRelAcq = S<P, kRel, kAcq>;

// A set of outcomes (bit o = outcome o reached) as space-separated strings of
// read values in outcome order, e.g. "01 10 11" for r0r1 in {01, 10, 11}.
inline std::string describe(std::uint64_t set, unsigned reads) {
  std::string s;
  for (unsigned o = 0; o < (1u << reads); ++o) {
    if ((set >> o & 1u) == 0) continue;
    if (!s.empty()) s += ' ';
    for (unsigned k = 0; k < reads; ++k) s += (o >> k & 1u) != 0 ? '1' : '0';
  }
  return s;
}

// Every outcome of `reads` reads (up to 5) but those listed: the set a model
// that forbids only them allows. `except` holds outcomes as describe prints them.
inline std::string all_outcomes_except(unsigned reads, const std::string& except = "") {
  std::uint64_t set = (reads >= 6 ? 0 : std::uint64_t{1} << (1u << reads)) - 1;
  for (std::size_t at = 0; at + reads <= except.size(); at += reads + 1) {
    unsigned o = 0;
    for (unsigned k = 0; k < reads; ++k) o |= (except[at + k] == '1' ? 1u : 0u) << k;
    set &= ~(std::uint64_t{1} << o);
  }
  return describe(set, reads);
}

}  // namespace wsstress::litmus
