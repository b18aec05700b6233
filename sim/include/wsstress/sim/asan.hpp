// SPDX-License-Identifier: MIT OR Apache-2.0
// What the simulator asks of AddressSanitizer, in one place: the fiber
// annotations (without them ASan takes a switch to a fiber's stack for a stack
// overflow and reports false errors), unpoisoning a reused fiber stack,
// whether memory is freed (so a liveness check reads no freed memory itself),
// and the objects a failed run leaks on purpose.
// Every function is a no-op in a build without ASan.
#pragma once

#include <cstddef>

#include "wsstress/pool/platform/sanitizers.hpp"

#if WSSTRESS_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/lsan_interface.h>
#endif

namespace wsstress::sim::asan {

// About to switch to the stack [bottom, bottom + size); `fake_stack_save`
// keeps the leaving side's fake stack (nullptr: the leaving fiber has ended).
inline void start_switch(void** fake_stack_save, const void* bottom, std::size_t size) noexcept {
#if WSSTRESS_ASAN
  __sanitizer_start_switch_fiber(fake_stack_save, bottom, size);
#else
  (void)fake_stack_save, (void)bottom, (void)size;
#endif
}

// Arrived on a stack; `bottom_old`/`size_old` receive the stack just left.
inline void finish_switch(void* fake_stack, const void** bottom_old, std::size_t* size_old) noexcept {
#if WSSTRESS_ASAN
  __sanitizer_finish_switch_fiber(fake_stack, bottom_old, size_old);
#else
  (void)fake_stack, (void)bottom_old, (void)size_old;
#endif
}

// True if `p` lies in memory ASan knows is not addressable (freed, in its
// quarantine): the object there is gone, and reading it would be the report.
inline bool is_poisoned(const volatile void* p) noexcept {
#if WSSTRESS_ASAN
  return __asan_address_is_poisoned(const_cast<const void*>(p)) != 0;
#else
  (void)p;
  return false;
#endif
}

// Marks [begin, begin + size) addressable again (a reused fiber stack).
inline void unpoison(void* begin, std::size_t size) noexcept {
#if WSSTRESS_ASAN
  __asan_unpoison_memory_region(begin, size);
#else
  (void)begin, (void)size;
#endif
}

// Tells LeakSanitizer that the heap object at `p` is kept on purpose (a
// stuck fiber's context and thread-locals, abandoned with a failed run), so
// an ASan-built tool does not end a finding with a leak report and exit 1.
inline void keep_on_purpose(const void* p) noexcept {
#if WSSTRESS_ASAN
  __lsan_ignore_object(p);
#else
  (void)p;
#endif
}

}  // namespace wsstress::sim::asan
