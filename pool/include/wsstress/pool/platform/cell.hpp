// SPDX-License-Identifier: MIT OR Apache-2.0
// PlainCell: the pool's plain (non-atomic) memory that crosses threads.
//
// A job's closure and its result slot are written by one thread and read by
// another with no atomic of their own: a latch's Release/Acquire pair, a
// deque's or the injector's publication orders them (job.rs's UnsafeCell). A
// platform names the cell type it wants as `P::Cell<T>`; production and the
// real-thread and fiber platforms use this one, which is the T itself with two
// inline accessors, so the pool pays nothing for it. Relacy's platform
// (relacy/platform.hpp) pairs the T with an `rl::var` that each access goes
// through, so that its happens-before race detector sees an access no release
// and acquire order: a weakened latch or queue order becomes a DATA RACE there.
#pragma once

#include <utility>

namespace wsstress::pool {

template <class T>
class PlainCell {
 public:
  template <class... A>
  explicit PlainCell(A&&... args) : value_(std::forward<A>(args)...) {}
  PlainCell(const PlainCell&) = delete;
  PlainCell& operator=(const PlainCell&) = delete;

  // The caller is about to write (or move into) the value.
  T& write() noexcept { return value_; }
  // The caller reads (or moves out of) the value.
  T& read() noexcept { return value_; }

 private:
  T value_;
};

}  // namespace wsstress::pool
