// Support for the port of rayon-core 1.10.1's own test suite: small stand-ins
// for the Rust facilities those tests use (mpsc channels, Barrier, a seeded
// xorshift generator, panics), over the production API in wsstress/pool.hpp.
//
// A Rust `panic!("msg")` is `throw Panic("msg")`; `#[should_panic(expected =
// "msg")]` is `expect_panic(f, "msg")`, which passes when f throws an exception
// whose what() contains msg.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "wsstress/pool.hpp"

namespace rayon_test {

using namespace wsstress;

struct Panic : std::runtime_error {
  explicit Panic(const std::string& what) : std::runtime_error(what) {}
};

// Passes when f throws something whose what() contains `expected`.
template <class F>
::testing::AssertionResult panics_with(F&& f, const std::string& expected) {
  try {
    f();
  } catch (const std::exception& e) {
    if (std::string(e.what()).find(expected) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "panicked with '" << e.what() << "', expected '" << expected << "'";
  } catch (...) {
    return ::testing::AssertionFailure() << "panicked with a non-std exception";
  }
  return ::testing::AssertionFailure() << "did not panic";
}
#define EXPECT_PANIC(expr, expected) EXPECT_TRUE(::rayon_test::panics_with([&] { expr; }, expected))

// std::sync::mpsc::channel: unbounded, many senders, one receiver. Share it by
// reference or through a shared_ptr (Rust clones the Sender).
template <class T>
class Channel {
 public:
  void send(T value) {
    {
      std::lock_guard<std::mutex> g(m_);
      q_.push_back(std::move(value));
    }
    cv_.notify_one();
  }
  // Blocks until a value arrives.
  T recv() {
    std::unique_lock<std::mutex> g(m_);
    cv_.wait(g, [&] { return !q_.empty(); });
    T v = std::move(q_.front());
    q_.pop_front();
    return v;
  }
  std::optional<T> try_recv() {
    std::lock_guard<std::mutex> g(m_);
    if (q_.empty()) return std::nullopt;
    T v = std::move(q_.front());
    q_.pop_front();
    return v;
  }
  std::optional<T> recv_timeout(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> g(m_);
    if (!cv_.wait_for(g, timeout, [&] { return !q_.empty(); })) return std::nullopt;
    T v = std::move(q_.front());
    q_.pop_front();
    return v;
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<T> q_;
};

// std::sync::Barrier.
class Barrier {
 public:
  explicit Barrier(std::size_t n) : n_(n) {}
  void wait() {
    std::unique_lock<std::mutex> g(m_);
    const std::size_t gen = generation_;
    if (++count_ == n_) {
      count_ = 0;
      ++generation_;
      cv_.notify_all();
      return;
    }
    cv_.wait(g, [&] { return gen != generation_; });
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::size_t n_;
  std::size_t count_ = 0;
  std::size_t generation_ = 0;
};

// A seeded xorshift generator standing in for rand_xorshift::XorShiftRng; the
// tests use it only for arbitrary data, so the exact sequence does not matter.
class XorShiftRng {
 public:
  explicit XorShiftRng(std::uint64_t seed = 0x0123456789abcdefull) : s_(seed ? seed : 1) {}
  std::uint64_t next_u64() {
    s_ ^= s_ << 13;
    s_ ^= s_ >> 7;
    s_ ^= s_ << 17;
    return s_;
  }
  std::uint32_t next_u32() { return static_cast<std::uint32_t>(next_u64() >> 32); }
  // Uniform in [lo, hi).
  std::uint64_t gen_range(std::uint64_t lo, std::uint64_t hi) { return lo + next_u64() % (hi - lo); }

 private:
  std::uint64_t s_;
};

inline void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

}  // namespace rayon_test
