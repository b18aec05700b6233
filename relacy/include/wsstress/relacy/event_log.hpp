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
#include <cstdio>

#include "wsstress/pool/platform/src_loc.hpp"
#include "wsstress/pool/trace.hpp"

namespace wsstress::relacy {

struct LoggedEvent {
  std::uint64_t seq;      // 1, 2, ... within the execution
  std::uint32_t thread;   // Relacy's thread index
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

// The history line of an event: "pool event ThreadSleepGate (worker 0): gate 3
// (under the lock, ...)". The text after "pool event" is what event_text says
// (wsstress/sim/explain.hpp), formatted here without allocating.
inline void format_history_line(char* buf, std::size_t size, const pool::Event& e) noexcept {
  char who[32] = "";
  if (e.worker != pool::Event::kNoWorker) std::snprintf(who, sizeof who, " (worker %u)", e.worker);
  const char* kind = pool::to_string(e.kind);
  const auto u = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
  switch (e.kind) {
    case pool::EventKind::ThreadSleepGate:
      std::snprintf(buf, size, "pool event %s%s: %s", kind, who, pool::gate_name(e.gate()));
      break;
    case pool::EventKind::ThreadSleepy: std::snprintf(buf, size, "pool event %s%s: JEC %llu", kind, who, u(e.jec())); break;
    case pool::EventKind::ThreadNotify:
      std::snprintf(buf, size, "pool event %s: wake_specific_thread(%u) notified it", kind, e.worker);
      break;
    case pool::EventKind::ThreadNotifyMissed:
      std::snprintf(buf, size, "pool event %s: wake_specific_thread(%u): is_blocked false, no notify", kind, e.worker);
      break;
    case pool::EventKind::JobThreadCounts:
      std::snprintf(buf, size, "pool event %s%s: %llu sleeping, %llu idle", kind, who, u(e.sleepers()), u(e.idle()));
      break;
    case pool::EventKind::LatchSet:
    case pool::EventKind::CountLatchSet:
      std::snprintf(buf, size, "pool event %s: latch 0x%llx, %s", kind, u(e.latch()),
                    e.owner_slept() ? "owner SLEEPING" : "owner not sleeping");
      break;
    case pool::EventKind::ThreadSleeping:
    case pool::EventKind::ThreadAwoken:
      std::snprintf(buf, size, "pool event %s%s: latch 0x%llx", kind, who, u(e.latch()));
      break;
    default: std::snprintf(buf, size, "pool event %s%s", kind, who); break;
  }
}

}  // namespace wsstress::relacy
