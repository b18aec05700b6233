// SPDX-License-Identifier: MIT OR Apache-2.0
// The pool's events of the current Relacy execution, for the explanation of a
// failure (relacy/src/explain_failure.cpp, which hands them to the
// simulator's explainer, wsstress/sim/explain.hpp). RelacyPlatform::on_event
// appends each event here, with the Relacy thread that reported it, and while
// Relacy replays a failing execution for its report (history on) also writes
// it into Relacy's history as a line of its own ("pool event ..."), so the
// explanation's steps can be the history's numbers.
//
// Fixed storage and no allocation: Relacy counts memory allocated inside an
// execution as the model's (a leak if it outlives it), and an allocation
// during the replay would draw on its scheduler and change the replay. The
// log is cleared when an execution begins (the constructor of a model's
// suite, ModelSuite in relacy/src/harness.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "wsstress/pool/platform/src_loc.hpp"
#include "wsstress/pool/trace.hpp"

namespace wsstress::relacy {

struct LoggedEvent {
  std::uint64_t seq;     // 1, 2, ... within the execution
  std::uint32_t thread;  // Relacy's thread index
  pool::Event event;
  pool::SrcLoc loc;
};

class EventLog {
 public:
  static constexpr std::size_t kCapacity = 8192;

  static EventLog& get() {
    static EventLog log;
    return log;
  }
  void clear() noexcept { n_ = 0; }
  void add(std::uint32_t thread, const pool::Event& e, pool::SrcLoc loc) noexcept {
    ring_[n_ % kCapacity] = LoggedEvent{n_ + 1, thread, e, loc};
    ++n_;
  }
  // Events reported in this execution (the log keeps the last kCapacity).
  std::uint64_t total() const noexcept { return n_; }
  std::size_t kept() const noexcept { return n_ < kCapacity ? static_cast<std::size_t>(n_) : kCapacity; }
  // The i-th kept event, oldest first.
  const LoggedEvent& at(std::size_t i) const noexcept { return ring_[(n_ - kept() + i) % kCapacity]; }

 private:
  std::array<LoggedEvent, kCapacity> ring_{};
  std::uint64_t n_ = 0;
};

}  // namespace wsstress::relacy
