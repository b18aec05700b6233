// One fiber's x86-TSO store buffer: a FIFO of stores not yet in memory. The
// fiber's own loads see its newest buffered store to an address first; RMWs,
// SeqCst stores and fences, lock operations and blocking calls drain it; the
// strategy may flush its oldest store to memory at any scheduling point.
#pragma once

#include <cstdint>
#include <deque>

namespace wsstress::sim {

class StoreBuffer {
 public:
  using Apply = void (*)(void* addr, std::uint64_t bits);

  bool empty() const noexcept { return stores_.empty(); }

  void push(void* addr, std::uint64_t bits, Apply apply) { stores_.push_back({addr, bits, apply}); }

  // The newest buffered value of `addr`, if any (store-to-load forwarding).
  bool load(const void* addr, std::uint64_t& bits) const noexcept {
    for (auto it = stores_.rbegin(); it != stores_.rend(); ++it) {
      if (it->addr == addr) {
        bits = it->bits;
        return true;
      }
    }
    return false;
  }

  // Writes the oldest store to memory; returns its address (for the trace).
  void* flush_one() {
    const Store s = stores_.front();
    stores_.pop_front();
    s.apply(s.addr, s.bits);
    return s.addr;
  }

  void drain() {
    while (!stores_.empty()) flush_one();
  }

 private:
  struct Store {
    void* addr;
    std::uint64_t bits;
    Apply apply;
  };
  std::deque<Store> stores_;
};

}  // namespace wsstress::sim
