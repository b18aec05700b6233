// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Crossbeam Project Developers; The wsstress developers
// Backoff: crossbeam-utils 0.8.12's exponential backoff, which crossbeam-deque's
// Injector uses while another thread is half-way through a push or a block
// change (`spin` after a lost CAS, `snooze` while waiting for a write).
//
// On real hardware a step is a run of pause instructions, and past
// SPIN_LIMIT `snooze` yields the thread, as crossbeam does with `std`. A
// platform whose threads are scheduled by a model checker (Relacy, the fiber
// simulator) can define `spin_loop_hint()`; the pause then becomes that call,
// so a spin-wait is a scheduling point where the awaited writer gets to run
// (Relacy's context-bound search would otherwise spend its preemptions on it).
#pragma once

#include <algorithm>

#include "wsstress/pool/platform/spin_loop.hpp"

namespace wsstress::pool {

template <class P>
class Backoff {
 public:
  static constexpr unsigned SPIN_LIMIT = 6;
  static constexpr unsigned YIELD_LIMIT = 10;

  // After a failed CAS: spin 2^step times (capped), never yield.
  void spin() noexcept {
    pause(1u << std::min(step_, SPIN_LIMIT));
    if (step_ <= SPIN_LIMIT) ++step_;
  }

  // While waiting for another thread: spin, then yield the processor.
  void snooze() noexcept {
    if (kHinted || step_ <= SPIN_LIMIT) {
      pause(1u << step_);
    } else {
      P::yield_now();
    }
    if (step_ <= YIELD_LIMIT) ++step_;
  }

 private:
  static constexpr bool kHinted = requires { P::spin_loop_hint(); };

  // A model checker's platform gets one hint (one scheduling point) per step.
  static void pause(unsigned times) noexcept {
    if constexpr (kHinted) {
      P::spin_loop_hint();
    } else {
      for (unsigned i = 0; i < times; ++i) spin_loop();
    }
  }

  unsigned step_ = 0;
};

}  // namespace wsstress::pool
