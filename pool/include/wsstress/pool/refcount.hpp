// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rust Project Developers; The Rayon developers; The wsstress developers
// RefCount: the orders of Rust's Arc, for every keep-alive in the pool (the
// Registry's references, ArcJob's).
//
// Arc increments with Relaxed (a new reference is made from one the caller
// already holds, so nothing needs ordering) and decrements with Release; only
// the thread that drops the last reference runs an Acquire fence, so that
// every other owner's use of the object happens before it is freed. A single
// AcqRel decrement would be stronger than rayon-core's and could hide exactly
// the keep-alive races the cross-pool mutants are about.
//
// ThreadSanitizer does not model fences, so under it the fence becomes an
// Acquire load of the count, as Rust's own Arc does (its `acquire!` macro).
#pragma once

#include <atomic>
#include <climits>
#include <cstddef>

#include <cstdlib>

#include "wsstress/pool/platform/sanitizers.hpp"

namespace wsstress::pool {

template <class P>
class RefCount {
 public:
  explicit RefCount(std::size_t initial) noexcept : count_(initial) {}
  RefCount(const RefCount&) = delete;
  RefCount& operator=(const RefCount&) = delete;

  // Arc::clone: Relaxed; aborts past isize::MAX as Arc does.
  void increment() noexcept {
    if (count_.fetch_add(1, std::memory_order_relaxed) > static_cast<std::size_t>(LLONG_MAX)) {
      std::abort();  // as Arc does, without a message
    }
  }

  // Arc::drop: true when this dropped the last reference (free the object).
  [[nodiscard]] bool decrement() noexcept {
    if (count_.fetch_sub(1, std::memory_order_release) != 1) return false;
#ifdef WSSTRESS_TSAN
    (void)count_.load(std::memory_order_acquire);
#else
    P::fence(std::memory_order_acquire);
#endif
    return true;
  }

  std::size_t load_relaxed() const noexcept { return count_.load(std::memory_order_relaxed); }

 private:
  typename P::template Atomic<std::size_t> count_;
};

}  // namespace wsstress::pool
