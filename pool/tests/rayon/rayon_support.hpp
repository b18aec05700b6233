// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
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
#include <utility>
#include <vector>

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

// std::sync::mpsc::channel (and crossbeam's unbounded channel): copies of a
// Sender are Sender::clone; once every Sender is destroyed the channel is
// disconnected, so recv() throws (Rust's `recv().unwrap()` panics) and
// collect() (Rust's `rx.iter().collect()`) ends. Thread-safe on both ends.
template <class T>
struct MpscState {
  std::mutex m;
  std::condition_variable cv;
  std::deque<T> q;
  std::size_t senders = 1;
};

template <class T>
class Sender {
 public:
  explicit Sender(std::shared_ptr<MpscState<T>> s) : s_(std::move(s)) {}
  // Copying is Sender::clone.
  Sender(const Sender& o) : s_(o.s_) {
    if (s_) {
      std::lock_guard<std::mutex> g(s_->m);
      ++s_->senders;
    }
  }
  Sender(Sender&& o) noexcept : s_(std::move(o.s_)) {}
  Sender& operator=(const Sender&) = delete;
  Sender& operator=(Sender&&) = delete;
  ~Sender() {
    if (s_) {
      std::lock_guard<std::mutex> g(s_->m);
      if (--s_->senders == 0) s_->cv.notify_all();
    }
  }
  void send(T value) const {
    std::lock_guard<std::mutex> g(s_->m);
    s_->q.push_back(std::move(value));
    s_->cv.notify_one();
  }

 private:
  std::shared_ptr<MpscState<T>> s_;
};

template <class T>
class Receiver {
 public:
  explicit Receiver(std::shared_ptr<MpscState<T>> s) : s_(std::move(s)) {}
  // nullopt once the channel is empty and every Sender is gone.
  std::optional<T> try_recv_blocking() {
    std::unique_lock<std::mutex> g(s_->m);
    s_->cv.wait(g, [&] { return !s_->q.empty() || s_->senders == 0; });
    if (s_->q.empty()) return std::nullopt;
    T v = std::move(s_->q.front());
    s_->q.pop_front();
    return v;
  }
  // rx.recv().unwrap()
  T recv() {
    std::optional<T> v = try_recv_blocking();
    if (!v) throw Panic("called `Result::unwrap()` on an `Err` value: RecvError");
    return std::move(*v);
  }
  // rx.iter().collect()
  std::vector<T> collect() {
    std::vector<T> out;
    while (std::optional<T> v = try_recv_blocking()) out.push_back(std::move(*v));
    return out;
  }

 private:
  std::shared_ptr<MpscState<T>> s_;
};

template <class T>
std::pair<Sender<T>, Receiver<T>> mpsc_channel() {
  auto s = std::make_shared<MpscState<T>>();
  return {Sender<T>(s), Receiver<T>(s)};
}

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
