// Which sanitizer this translation unit is built under, for the few places
// where the pool must spell an operation the way the sanitizer understands it
// (WSSTRESS_TSAN: ThreadSanitizer, under g++ or clang).
#pragma once

#if defined(__SANITIZE_THREAD__)
#define WSSTRESS_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WSSTRESS_TSAN 1
#endif
#endif
