// SPDX-License-Identifier: MIT OR Apache-2.0
// LiveState: what the watchdog can read of a run in progress.
#include <cstdio>
#include <set>

#include "wsstress/core/scenario.hpp"

namespace wsstress::core {

const char* verdict_name(VerdictKind k) noexcept {
  switch (k) {
    case VerdictKind::Pass: return "pass";
    case VerdictKind::Bug: return "bug";
    case VerdictKind::Crash: return "crash";
    case VerdictKind::Hang: return "hang";
    case VerdictKind::Internal: return "internal";
  }
  return "?";
}

LiveState& LiveState::get() {
  // Leaked on purpose: stuck threads may still touch it while the process exits.
  static auto* s = new LiveState;
  return *s;
}

int LiveState::track_pool(std::string name, const void* registry, std::function<PoolDump()> dump) {
  std::lock_guard<std::mutex> g(m_);
  const int id = next_id_++;
  pools_.push_back({id, std::move(name), registry, std::move(dump)});
  tracked_any_ = true;
  return id;
}

bool LiveState::is_tracked(const void* registry) {
  std::lock_guard<std::mutex> g(m_);
  for (const Tracked& t : pools_) {
    if (t.registry == registry) return true;
  }
  return false;
}

void LiveState::untrack_pool(int id) {
  std::lock_guard<std::mutex> g(m_);
  for (auto it = pools_.begin(); it != pools_.end(); ++it) {
    if (it->id == id) {
      pools_.erase(it);
      return;
    }
  }
}

LiveState::ThreadSlot* LiveState::register_thread(std::string name) {
  std::lock_guard<std::mutex> g(m_);
  for (auto& t : threads_) {
    if (!t->in_use.load()) {
      t->name = std::move(name);
      t->what.store(nullptr);
      t->in_use.store(true);
      return t.get();
    }
  }
  threads_.push_back(std::make_unique<ThreadSlot>());
  ThreadSlot* t = threads_.back().get();
  t->name = std::move(name);
  t->in_use.store(true);
  return t;
}

void LiveState::set_status(ThreadSlot* slot, const char* what) noexcept {
  slot->what.store(what, std::memory_order_relaxed);
}

void LiveState::unregister_thread(ThreadSlot* slot) {
  std::lock_guard<std::mutex> g(m_);
  slot->in_use.store(false);
}

PoolDump LiveState::dump_pools() {
  std::lock_guard<std::mutex> g(m_);
  PoolDump out;
  bool missed = false, all_idle = !pools_.empty();
  for (const Tracked& t : pools_) {
    const PoolDump d = t.dump();
    out.text += "pool '" + t.name + "':\n" + d.text;
    missed = missed || d.stall == PoolStall::Missed;
    all_idle = all_idle && d.stall == PoolStall::Idle;
  }
  out.stall = missed ? PoolStall::Missed : all_idle ? PoolStall::Idle : PoolStall::Other;
  if (!tracked_any_) out.stall = PoolStall::NoPool;
  return out;
}

std::string LiveState::dump_threads() {
  std::lock_guard<std::mutex> g(m_);
  std::string out;
  for (const auto& t : threads_) {
    if (!t->in_use.load()) continue;
    const char* what = t->what.load(std::memory_order_relaxed);
    out += "  thread '" + t->name + "': " + (what ? std::string("blocked in ") + what : "running") + "\n";
  }
  return out;
}

void LiveState::reset() {
  std::lock_guard<std::mutex> g(m_);
  pools_.clear();
  tracked_any_ = false;
}

std::string dump_live_state() {
  LiveState& s = LiveState::get();
  std::string out = s.dump_pools().text;
  const std::string threads = s.dump_threads();
  if (!threads.empty()) out += "outside threads:\n" + threads;
  // Workers whose pool is no longer tracked (its handle was dropped). Copied
  // out first: the table's lock is never held while taking this one.
  struct Row {
    const void* registry;
    std::uint32_t index, rounds;
    Phase phase;
    unsigned gate;
  };
  std::vector<Row> rows;
  WorkerTable::get().for_each([&](const WorkerSlot& w) {
    rows.push_back(
        {w.registry.load(), w.index.load(), w.rounds.load(), w.phase.load(), static_cast<unsigned>(w.gate.load())});
  });
  std::string orphans;
  for (const Row& w : rows) {
    if (s.is_tracked(w.registry)) continue;
    char line[256];
    std::snprintf(line, sizeof line, "  worker %u of pool %p: %s, idle rounds %u, last gate %u\n", w.index, w.registry,
                  phase_name(w.phase), w.rounds, w.gate);
    orphans += line;
  }
  if (!orphans.empty()) out += "workers of pools whose handle is gone:\n" + orphans;
  return out;
}

}  // namespace wsstress::core
