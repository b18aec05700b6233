// SPDX-License-Identifier: MIT OR Apache-2.0
// One fiber's x86-TSO store buffer: a FIFO of stores not yet in memory. The
// fiber's own loads see its newest buffered store to an address first; RMWs,
// SeqCst stores and fences, lock operations and blocking calls drain it; the
// strategy may flush its oldest store to memory at any scheduling point.
// A vector with a moving head, not a std::deque: a deque allocated a block
// each time its stores crossed one, several times per schedule_fuzzer run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace wsstress::sim {

class StoreBuffer {
 public:
  using Apply = void (*)(void* addr, std::uint64_t bits);

  bool empty() const noexcept { return head_ == stores_.size(); }

  void push(void* addr, std::uint64_t bits, Apply apply) {
    if (stores_.capacity() == 0) stores_.reserve(16);  // one allocation per fiber, not one per doubling
    stores_.push_back({addr, bits, apply});
  }

  // The newest buffered value of `addr`, if any (store-to-load forwarding).
  bool load(const void* addr, std::uint64_t& bits) const noexcept {
    for (std::size_t i = stores_.size(); i > head_; --i) {
      if (stores_[i - 1].addr == addr) {
        bits = stores_[i - 1].bits;
        return true;
      }
    }
    return false;
  }

  // Writes the oldest store to memory; returns its address (for the trace).
  void* flush_one() {
    const Store s = stores_[head_++];
    if (head_ == stores_.size()) {
      stores_.clear();  // keeps the capacity for the next stores
      head_ = 0;
    } else if (head_ >= 64 && 2 * head_ >= stores_.size()) {
      stores_.erase(stores_.begin(), stores_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    s.apply(s.addr, s.bits);
    return s.addr;
  }

  void drain() {
    while (!empty()) flush_one();
  }

 private:
  struct Store {
    void* addr;
    std::uint64_t bits;
    Apply apply;
  };
  std::vector<Store> stores_;
  std::size_t head_ = 0;  // the oldest store not yet flushed
};

}  // namespace wsstress::sim
