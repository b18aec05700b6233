// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rust Project Developers; The Rayon developers; The wsstress developers
// The processor's spin-wait hint, Rust's `core::hint::spin_loop()`: `pause` on
// x86, nothing elsewhere. One place for crossbeam's Backoff (backoff.hpp) and
// Rust std's futex Mutex (futex.hpp), which both spin on it.
#pragma once

namespace wsstress::pool {

inline void spin_loop() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace wsstress::pool
