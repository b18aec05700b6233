// SPDX-License-Identifier: MIT OR Apache-2.0
// The crash journal: what a campaign's child process is doing, kept in memory
// it shares with the parent, so that a fatal signal in the pool under test (a
// SIGSEGV, an abort, a sanitizer's exit) still leaves the seed in flight and
// every decision of the execution it killed. The scheduler appends each
// decision with one store; nothing runs in a signal handler, and the parent,
// whose heap the crash never touched, writes the report (guard.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace wsstress::sim {

class CrashJournal {
 public:
  // What the child has done so far, and how it ended if it ended by itself.
  struct Header {
    std::uint64_t seed = 0;                             // the seed in flight
    std::uint64_t runs = 0, executions = 0, steps = 0;  // finished in this child
    bool dfs_exhausted = true, budget_exhausted = false;
    int stopped_by_signal = 0;
    bool failed = false;            // stopped at an ordinary failure: its schedule is below
    std::uint64_t n_decisions = 0;  // the execution in flight (or the failure's schedule)
    bool overflowed = false;        // more decisions than the journal holds
  };

  explicit CrashJournal(std::uint64_t capacity);  // a shared anonymous mapping
  ~CrashJournal();
  CrashJournal(const CrashJournal&) = delete;
  CrashJournal& operator=(const CrashJournal&) = delete;
  bool ok() const noexcept { return header_ != nullptr; }

  // The journal this process writes into (the child's), or null.
  static CrashJournal* active() noexcept { return active_; }
  void activate() noexcept { active_ = this; }

  Header& header() noexcept { return *header_; }
  const std::uint32_t* decisions() const noexcept { return decisions_; }
  void begin_execution() noexcept { header_->n_decisions = 0; }
  void decision(std::uint32_t code) noexcept {
    if (header_->n_decisions < capacity_) {
      decisions_[header_->n_decisions++] = code;
    } else {
      header_->overflowed = true;
    }
  }

 private:
  static inline CrashJournal* active_ = nullptr;
  Header* header_ = nullptr;
  std::uint32_t* decisions_ = nullptr;
  std::uint64_t capacity_ = 0;
  std::size_t bytes_ = 0;
};

}  // namespace wsstress::sim
