// Litmus programs that check the checkers (issue #15, after loom's
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

// The variants the tests run.
template <class P> using SbRelaxed = StoreBuffering<P, kRlx, kRlx, 0>;
template <class P> using SbFences = StoreBuffering<P, kRlx, kRlx, 3>;      // SeqCst fence in both threads
template <class P> using SbOneFence = StoreBuffering<P, kRlx, kRlx, 1>;    // in thread 0 only
template <class P> using SbSeqCst = StoreBuffering<P, kSc, kSc, 0>;
template <class P> using MpRelaxed = MessagePassing<P, kRlx, kRlx, false>;
template <class P> using MpRelAcq = MessagePassing<P, kRel, kAcq, false>;
template <class P> using MpFences = MessagePassing<P, kRlx, kRlx, true>;
template <class P> using LbRelaxed = LoadBuffering<P>;
template <class P> using IriwRelaxed = Iriw<P, kRlx, kRlx>;
template <class P> using IriwAcquire = Iriw<P, kRel, kAcq>;               // release stores, acquire loads
template <class P> using IriwSeqCst = Iriw<P, kSc, kSc>;

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
