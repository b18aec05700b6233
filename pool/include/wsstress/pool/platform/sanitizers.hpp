// SPDX-License-Identifier: MIT OR Apache-2.0
// Which sanitizer this translation unit is built under, in one place (g++
// defines __SANITIZE_*__, clang 14 only answers __has_feature), for the few
// places that must spell an operation the way the sanitizer understands it:
// WSSTRESS_TSAN is defined under ThreadSanitizer; WSSTRESS_ASAN is 1 under
// AddressSanitizer, else 0, unless the build sets it to 1 for code compiled
// without ASan's checks that still calls its runtime (stress/CMakeLists.txt).
#pragma once

#if defined(__SANITIZE_THREAD__)
#define WSSTRESS_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WSSTRESS_TSAN 1
#endif
#endif

#if defined(__SANITIZE_ADDRESS__)
#define WSSTRESS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WSSTRESS_ASAN 1
#endif
#endif
#ifndef WSSTRESS_ASAN
#define WSSTRESS_ASAN 0
#endif
