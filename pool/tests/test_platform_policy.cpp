// SPDX-License-Identifier: MIT OR Apache-2.0
// The platform policy contract, checked with a platform that is not std:
// atomics, mutex and condvar are wrapper classes that record the source
// location of every operation through SrcLoc default arguments, and events are
// traced. The unmodified pool must run on it, and the recorded locations must
// be the pool's own algorithm lines - the hook the simulator, Relacy and the
// noisy platform rely on. Also pins down that StdPlatform adds nothing.
#include <gtest/gtest.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "test_support.hpp"

namespace {
using namespace wsstress::pool;
using namespace wsstress::test;

struct Recorder {
  std::mutex m;
  std::map<std::string, std::set<unsigned>> lines;  // file -> lines
  std::map<EventKind, std::string> event_files;
  void hit(SrcLoc loc) {
    std::lock_guard<std::mutex> g(m);
    lines[loc.file].insert(loc.line);
  }
  // Leaked on purpose: detached workers may still record while the process
  // runs its static destructors.
  static Recorder& get() {
    static auto* r = new Recorder;
    return *r;
  }
};

template <class T>
class RecordingAtomic {
 public:
  RecordingAtomic() noexcept : a_() {}
  RecordingAtomic(T v) noexcept : a_(v) {}  // NOLINT: mirrors std::atomic
  T load(std::memory_order o, SrcLoc loc = SrcLoc::here()) const noexcept {
    Recorder::get().hit(loc);
    return a_.load(o);
  }
  void store(T v, std::memory_order o, SrcLoc loc = SrcLoc::here()) noexcept {
    Recorder::get().hit(loc);
    a_.store(v, o);
  }
  T exchange(T v, std::memory_order o, SrcLoc loc = SrcLoc::here()) noexcept {
    Recorder::get().hit(loc);
    return a_.exchange(v, o);
  }
  bool compare_exchange_strong(T& e, T d, std::memory_order s, std::memory_order f,
                               SrcLoc loc = SrcLoc::here()) noexcept {
    Recorder::get().hit(loc);
    return a_.compare_exchange_strong(e, d, s, f);
  }
  bool compare_exchange_weak(T& e, T d, std::memory_order s, std::memory_order f,
                             SrcLoc loc = SrcLoc::here()) noexcept {
    Recorder::get().hit(loc);
    return a_.compare_exchange_weak(e, d, s, f);
  }
  T fetch_add(T v, std::memory_order o, SrcLoc loc = SrcLoc::here()) noexcept {
    Recorder::get().hit(loc);
    return a_.fetch_add(v, o);
  }
  T fetch_sub(T v, std::memory_order o, SrcLoc loc = SrcLoc::here()) noexcept {
    Recorder::get().hit(loc);
    return a_.fetch_sub(v, o);
  }

 private:
  std::atomic<T> a_;
};

class RecordingMutex {
 public:
  void lock() { m_.lock(); }
  bool try_lock() { return m_.try_lock(); }
  void unlock() { m_.unlock(); }

 private:
  std::mutex m_;
};

struct RecordingPlatform : StdPlatform {
  template <class T>
  using Atomic = RecordingAtomic<T>;
  using Mutex = RecordingMutex;
  using CondVar = std::condition_variable_any;
  template <class T>
  using Cell = PlainCell<T>;
  static constexpr bool kTraced = true;
  static constexpr bool kCheckInvariants = true;
  static void fence(std::memory_order o, SrcLoc loc = SrcLoc::here()) noexcept {
    Recorder::get().hit(loc);
    std::atomic_thread_fence(o);
  }
  static void on_event(const Event& e, SrcLoc loc) noexcept {
    Recorder& r = Recorder::get();
    std::lock_guard<std::mutex> g(r.m);
    r.event_files.emplace(e.kind, loc.file);
  }
};
static_assert(Platform<RecordingPlatform>);

using RP = RecordingPlatform;

std::uint64_t fib(unsigned n) {
  if (n < 2) return n;
  auto [a, b] = join<RP, M>([&] { return fib(n - 1); }, [&] { return fib(n - 2); });
  return a + b;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

TEST(PlatformPolicy, UnmodifiedPoolRunsOverWrapperTypes) {
  BasicThreadPool<RP, M> pool(BasicThreadPoolBuilder<RP, M>().num_threads(2));
  EXPECT_EQ(pool.install([] { return fib(16); }), 987u);
  // Let the workers fall asleep, so the sleep path is recorded too.
  ASSERT_TRUE(eventually([&] { return pool.registry().sleep().counters_snapshot().sleeping_threads() == 2; }));
  EXPECT_EQ(pool.broadcast([](BroadcastContext<RP, M> c) { return c.index(); }).size(), 2u);
}

// A location's path from its last "wsstress/pool/" on: a checkout in a folder
// named wsstress has one more before it.
std::string pool_path(const std::string& file) {
  const auto at = file.rfind("wsstress/pool/");
  return at == std::string::npos ? file : file.substr(at);
}

TEST(PlatformPolicy, PoolPathTakesTheLastWsstressPool) {
  EXPECT_EQ(pool_path("/home/me/wsstress/pool/include/wsstress/pool/deque.hpp"), "wsstress/pool/deque.hpp");
  EXPECT_EQ(pool_path("pool/include/wsstress/pool/sleep/sleep.hpp"), "wsstress/pool/sleep/sleep.hpp");
}

TEST(PlatformPolicy, LocationsPointIntoThePoolsAlgorithms) {
  {
    BasicThreadPool<RP, M> pool(BasicThreadPoolBuilder<RP, M>().num_threads(2));
    pool.install([] { return fib(12); });
    ASSERT_TRUE(eventually([&] { return pool.registry().sleep().counters_snapshot().sleeping_threads() == 2; }));
  }
  Recorder& r = Recorder::get();
  std::lock_guard<std::mutex> g(r.m);
  std::set<std::string> files;
  for (auto& [file, lines] : r.lines) {
    EXPECT_FALSE(ends_with(file, "test_platform_policy.cpp")) << "a location inside the wrapper itself";
    files.insert(pool_path(file));
  }
  EXPECT_TRUE(files.count("wsstress/pool/deque.hpp"));
  EXPECT_TRUE(files.count("wsstress/pool/latch.hpp"));
  EXPECT_TRUE(files.count("wsstress/pool/sleep/counters.hpp"));
  EXPECT_TRUE(files.count("wsstress/pool/sleep/sleep.hpp"));  // the fences of new_injected_jobs / gate 5
  // Events carry the line that reported them.
  ASSERT_TRUE(r.event_files.count(EventKind::ThreadSleepy));
  EXPECT_TRUE(ends_with(r.event_files[EventKind::ThreadSleepy], "wsstress/pool/sleep/sleep.hpp"));
  ASSERT_TRUE(r.event_files.count(EventKind::JobPushed));
  EXPECT_TRUE(ends_with(r.event_files[EventKind::JobPushed], "wsstress/pool/registry.hpp"));
}

// Production carries nothing: its types are the std ones (its locks, on Linux,
// rayon-core's own: Rust std's futex Mutex and Condvar) and its hooks are off.
static_assert(std::is_same_v<StdPlatform::Atomic<std::size_t>, std::atomic<std::size_t>>);
#if defined(__linux__)
static_assert(std::is_same_v<StdPlatform::Mutex, FutexMutex>);
static_assert(std::is_same_v<StdPlatform::CondVar, FutexCondVar>);
#else
static_assert(std::is_same_v<StdPlatform::Mutex, std::mutex>);
static_assert(std::is_same_v<StdPlatform::CondVar, std::condition_variable>);
#endif
static_assert(!StdPlatform::kTraced && !StdPlatform::kCheckInvariants);
static_assert(std::is_same_v<wsstress::ThreadPool, BasicThreadPool<StdPlatform, NoMutants>>);
static_assert(sizeof(CoreLatch<StdPlatform>) == sizeof(std::size_t), "CoreLatch is one word, as in rayon");
static_assert(sizeof(JobRef) == sizeof(void*), "a JobRef is one pointer");

}  // namespace
