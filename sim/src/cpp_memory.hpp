// SPDX-License-Identifier: MIT OR Apache-2.0
// The C++ memory model of `--memory cpp`: per-location
// modification orders, happens-before as vector clocks, and for each atomic
// load the set of stores C++20 lets it read; which one it reads is a decision
// of the strategy, recorded like a scheduling choice, so replay, shrink, DFS
// and the schedule fuzzer work here as under SC and TSO.
//
// The model is operational, after tsan11 (Lidbury and Donaldson, PLDI 2017),
// C11Tester (Luo and Demsky, ASPLOS 2021) and Miri's weak_memory.rs: a store
// is appended to its location's modification order when it executes (so the
// order of execution is mo, and the order of SeqCst operations is S); a load
// walks mo from the newest store back and may read any store up to the first
// one that C++20 forbids it to read past:
//   - a store that happens before the load (write-read coherence),
//   - a store read by a load that happens before this one (read-read coherence),
//   - a store that happens before, or was read by a load that happens before,
//     a SeqCst fence earlier in S, when the load is SeqCst or sequenced after a
//     SeqCst fence of its own thread ([atomics.order] p4, its fence bullets,
//     with coherence-ordered-before including reads-from),
//   - a SeqCst store, or a store read by a SeqCst load, earlier in S than the
//     load (a SeqCst load) or than its thread's last SeqCst fence.
// An RMW reads the newest store. Release sequences are C++20's (RMWs only);
// release and acquire fences act through the clock at the fence and the
// clocks of the stores relaxed loads read. Mutexes, thread starts and joins
// synchronise. Plain memory (P::Cell) is checked against the same clocks: two
// accesses, one a write, neither happening before the other, are a data race.
//
// Left out, as tsan11, C11Tester and Relacy leave them out: load buffering
// (a load reading a store that executes after it: out-of-thin-air values
// need it, and LB's 11), and modification orders that differ from execution
// order (2+2W's weak outcome); a fence's constraint reaches the loads of its
// own thread, not those it happens before in others (that can only allow
// more outcomes than C++, never fewer); a failed compare-exchange reads the
// newest store; each location keeps its last kHistory stores.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace wsstress::sim {

namespace cppmem {

// A vector clock indexed by fiber id; missing entries are 0.
using Clock = std::vector<std::uint32_t>;
inline std::uint32_t at(const Clock& c, std::uint32_t i) noexcept { return i < c.size() ? c[i] : 0; }
// Joins `from` into `into`; true if `into` changed.
bool join(Clock& into, const Clock& from);

// What a store releases to an acquire that reads it: a clock, and the
// writer's own entry at the store (the clock may be a snapshot from before).
struct Release {
  std::shared_ptr<const Clock> clock;  // null: nothing
  std::uint32_t writer = 0, stamp = 0;
  explicit operator bool() const noexcept { return clock != nullptr; }
};

struct Store {
  std::uint64_t bits = 0;
  std::uint32_t writer = 0, stamp = 0;  // stamp 0: the initial value, before every access
  Release rel;
  std::uint64_t sc_seq = 0;                                      // its place in S, 0 if not SeqCst
  std::uint64_t sc_read_seq = UINT64_MAX;                        // the first SeqCst load that read it
  std::vector<std::pair<std::uint32_t, std::uint32_t>> readers;  // (fiber, its clock then), first read each
};

inline constexpr std::size_t kHistory = 8;

}  // namespace cppmem

namespace detail {
// One atomic's modification order, oldest first (at most kHistory stores).
struct History {
  std::vector<cppmem::Store> stores;
};
// One plain cell's last write and the reads since, for the race check.
struct CellState {
  std::uint32_t writer = 0, wstamp = 0;
  const char* wfile = "";
  unsigned wline = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> reads;
};
}  // namespace detail

namespace cppmem {

// A fiber's view: its clock, its last release fence, what its relaxed loads
// would acquire at an acquire fence, and what its last SeqCst fence saw.
struct Thread {
  std::uint32_t id = 0;
  Clock clock;
  std::shared_ptr<const Clock> snapshot;  // `clock` but the own entry, shared by release stores
  std::shared_ptr<const Clock> rel_fence;
  Clock acq_pending;
  Clock sc_fence;
  std::uint64_t sc_fence_seq = 0;
  std::uint32_t tick() { return ++clock[id]; }
};

// The choice of a load among `n` >= 2 stores (0: the newest in mo).
using ChooseRead = std::function<std::uint32_t(std::uint32_t n)>;

class Memory {
 public:
  // A fiber starts with its parent's clock (none for the first).
  void start(Thread& t, std::uint32_t id, const Thread* parent);
  void joined(Thread& joiner, const Thread& finished);
  // Mutexes: the unlocker's clock goes to the next locker.
  void release_to(Thread& t, std::shared_ptr<const Clock>& lock_clock);
  void acquire_from(Thread& t, const std::shared_ptr<const Clock>& lock_clock);

  // `latest` is the atomic's newest value: a history made at the first
  // access starts from it, a store before every access (stamp 0).
  std::uint64_t load(Thread& t, detail::History*& h, std::uint64_t latest, std::memory_order o,
                     const ChooseRead& choose);
  void store(Thread& t, detail::History*& h, std::uint64_t latest, std::uint64_t bits, std::memory_order o);
  void rmw(Thread& t, detail::History*& h, std::uint64_t latest, std::uint64_t bits, std::memory_order o, bool writes);
  void fence(Thread& t, std::memory_order o);
  // A plain access; false if it races with an earlier one (`other` says which).
  bool cell(Thread& t, detail::CellState*& c, bool write, const char* file, unsigned line, std::uint32_t& other_fiber,
            bool& other_write, const char*& other_file, unsigned& other_line);

 private:
  static detail::History& history(detail::History*& h, std::uint64_t latest);
  bool stops(const Store& w, const Thread& t, const Clock& fences, std::uint64_t sc_limit) const;
  void acquire(Thread& t, const Release& r);
  void acquire_or_pend(Thread& t, const Release& r, std::memory_order o);
  void note_read(Thread& t, Store& w, std::memory_order o, std::uint32_t ts);
  Release own_release(Thread& t, std::memory_order o, std::uint32_t stamp);
  static Release combine(const Release& a, const Release& b);
  static void push(detail::History& h, Store s);

  Clock sc_fences_;        // the join of the clocks at every SeqCst fence so far
  std::uint64_t seq_ = 0;  // SeqCst operations so far: S
};

}  // namespace cppmem
}  // namespace wsstress::sim
