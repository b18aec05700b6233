// SPDX-License-Identifier: MIT OR Apache-2.0
// The worker table and the one mapping from pool events to worker state.
// See worker_state.hpp.
#include "wsstress/core/worker_state.hpp"

namespace wsstress::core {

using pool::EventKind;

const char* phase_name(Phase p) noexcept {
  switch (p) {
    case Phase::Active: return "active";
    case Phase::Idle: return "idle";
    case Phase::Sleepy: return "sleepy";
    case Phase::Sleeping: return "sleeping";
    case Phase::Exited: return "exited";
  }
  return "?";
}

// ---- worker table ----

WorkerTable& WorkerTable::get() {
  // Leaked on purpose: detached workers report until the process ends.
  static auto* table = new WorkerTable;
  return *table;
}

WorkerSlot* WorkerTable::acquire(const void* registry, std::uint32_t index) {
  std::lock_guard<std::mutex> g(m_);
  WorkerSlot* slot = nullptr;
  for (WorkerSlot& s : slots_) {
    if (!s.in_use.load(std::memory_order_relaxed)) {
      slot = &s;
      break;
    }
  }
  if (slot == nullptr) slot = &slots_.emplace_back();
  slot->registry.store(registry, std::memory_order_relaxed);
  slot->index.store(index, std::memory_order_relaxed);
  slot->phase.store(Phase::Active, std::memory_order_relaxed);
  slot->rounds.store(0, std::memory_order_relaxed);
  slot->latch.store(0, std::memory_order_relaxed);
  slot->gate.store(0, std::memory_order_relaxed);
  slot->in_use.store(true, std::memory_order_release);
  return slot;
}

void WorkerTable::release(WorkerSlot* slot) {
  std::lock_guard<std::mutex> g(m_);
  slot->phase.store(Phase::Exited, std::memory_order_relaxed);
  slot->in_use.store(false, std::memory_order_release);
}

void WorkerTable::clear() {
  std::lock_guard<std::mutex> g(m_);
  for (WorkerSlot& s : slots_) s.in_use.store(false, std::memory_order_relaxed);
}

void WorkerTable::for_each(const std::function<void(const WorkerSlot&)>& f) {
  std::lock_guard<std::mutex> g(m_);
  for (const WorkerSlot& s : slots_) {
    if (s.in_use.load(std::memory_order_acquire)) f(s);
  }
}

// ---- events to state ----

WorkerSlot* apply_event(WorkerSlot* slot, const pool::Event& e) {
  constexpr auto relaxed = std::memory_order_relaxed;
  if (e.kind == EventKind::ThreadStart) return WorkerTable::get().acquire(e.registry, e.worker);
  if (slot == nullptr) return nullptr;
  switch (e.kind) {
    case EventKind::ThreadTerminate: WorkerTable::get().release(slot); return nullptr;
    case EventKind::ThreadIdle:
      slot->latch.store(e.latch(), relaxed);
      slot->rounds.store(0, relaxed);
      slot->gate.store(0, relaxed);
      slot->phase.store(Phase::Idle, relaxed);
      break;
    case EventKind::ThreadIdleRound: slot->rounds.store(static_cast<std::uint32_t>(e.rounds()), relaxed); break;
    case EventKind::ThreadSleepy: slot->phase.store(Phase::Sleepy, relaxed); break;
    case EventKind::ThreadSleepGate: slot->gate.store(static_cast<std::uint8_t>(e.gate()), relaxed); break;
    case EventKind::ThreadSleeping: slot->phase.store(Phase::Sleeping, relaxed); break;
    case EventKind::ThreadAwoken:
    case EventKind::ThreadSleepInterruptedByLatch:
    case EventKind::ThreadSleepInterruptedByJob:
    case EventKind::ThreadSleepInterruptedByInjected:
      slot->phase.store(Phase::Idle, relaxed);
      slot->gate.store(0, relaxed);
      break;
    case EventKind::ThreadFoundWork:
    case EventKind::ThreadSawLatchSet: slot->phase.store(Phase::Active, relaxed); break;
    default: break;  // job and latch events do not change a worker's phase
  }
  return slot;
}

}  // namespace wsstress::core
