// SPDX-License-Identifier: MIT OR Apache-2.0
// The live state of every worker thread: its pool, index, phase, idle rounds,
// the latch it waits on and the last gate of sleep() it reached - what a hang
// report prints. One function, apply_event, turns the pool's events into that
// state (as rayon-core's log.rs does for its own logger); the real-thread
// platform (noise.cpp) and the simulator (sim/scheduler.cpp) both call it.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>

#include "wsstress/pool/trace.hpp"

namespace wsstress::core {

enum class Phase : std::uint8_t { Active, Idle, Sleepy, Sleeping, Exited };
const char* phase_name(Phase p) noexcept;

// What one worker thread last reported about itself. Written only by that
// thread (relaxed atomics), read by the watchdog.
struct WorkerSlot {
  std::atomic<const void*> registry{nullptr};
  std::atomic<std::uint32_t> index{0};
  std::atomic<Phase> phase{Phase::Active};
  std::atomic<std::uint32_t> rounds{0};
  std::atomic<std::uintptr_t> latch{0};
  std::atomic<std::uint8_t> gate{0};
  std::atomic<bool> in_use{false};
};

// Every worker slot there is; slots are reused once their thread exits.
class WorkerTable {
 public:
  static WorkerTable& get();
  WorkerSlot* acquire(const void* registry, std::uint32_t index);
  void release(WorkerSlot* slot);
  // Calls f(slot) for each slot in use, under the table's lock.
  void for_each(const std::function<void(const WorkerSlot&)>& f);
  // Marks every slot free (the simulator, between runs).
  void clear();

 private:
  std::mutex m_;
  std::deque<WorkerSlot> slots_;  // a deque: slots never move
};

// Applies one event of the calling thread to its slot (nullptr outside a
// worker) and returns the thread's slot after it: ThreadStart takes a slot,
// ThreadTerminate gives it back.
WorkerSlot* apply_event(WorkerSlot* slot, const pool::Event& e);

}  // namespace wsstress::core
