// SPDX-License-Identifier: MIT OR Apache-2.0
// The scheduler's side of the C++ memory model (cpp_memory.hpp): the calling
// fiber's accesses go to the model, a load's choice among the stores it may
// read is a decision of the strategy (recorded, replayed, shown in traces),
// and a data race on plain memory fails the run.
#include <cstdio>

#include "scheduler.hpp"

namespace wsstress::sim {

std::uint32_t Scheduler::choose_read(std::uint32_t n) {
  strategy_->observe_read(n);
  const std::optional<std::uint32_t> k = strategy_->choose_read(n, schedule_.size());
  if (!k) {
    fail(core::Verdict{core::VerdictKind::Internal, strategy_->divergence(), {}});
    give_up_processor();
  }
  const std::uint32_t code = Action{*k, Action::Read}.code();
  schedule_.push_back(code);
  if (journal_ != nullptr) journal_->decision(code);
  if (*k != 0) {
    mix(0x57a1e ^ *k);
    if (cfg_.record_trace)
      trace_.push_back({steps_, current_->id, Op::Stale, current_->loc.file, current_->loc.line, *k});
  }
  return *k;
}

std::uint64_t Scheduler::cpp_load(detail::History*& h, std::uint64_t latest, std::memory_order o) {
  return mem_.load(current_->mem, h, latest, o, [this](std::uint32_t n) { return choose_read(n); });
}

void Scheduler::cpp_store(detail::History*& h, std::uint64_t latest, std::uint64_t bits, std::memory_order o) {
  mem_.store(current_->mem, h, latest, bits, o);
}

void Scheduler::cpp_rmw(detail::History*& h, std::uint64_t latest, std::uint64_t bits, std::memory_order o,
                        bool writes) {
  mem_.rmw(current_->mem, h, latest, bits, o, writes);
}

void Scheduler::cpp_fence(std::memory_order o) { mem_.fence(current_->mem, o); }

void Scheduler::cell_access(detail::CellState*& c, bool write, SrcLoc loc) {
  std::uint32_t other = 0;
  bool other_write = false;
  const char* other_file = "";
  unsigned other_line = 0;
  if (mem_.cell(current_->mem, c, write, loc.file, loc.line, other, other_write, other_file, other_line)) return;
  char line[768];
  const std::string other_name = other < fibers_.size() ? fibers_[other]->name : "?";
  if (other_write) {
    std::snprintf(line, sizeof line,
                  "data race: %s of a pool cell at %s:%u by %s, and a write of it at %s:%u by %s, neither happening "
                  "before the other",
                  write ? "a write" : "a read", loc.file, loc.line, current_->name.c_str(), other_file, other_line,
                  other_name.c_str());
  } else {
    std::snprintf(line, sizeof line,
                  "data race: a write of a pool cell at %s:%u by %s, and a read of it by %s, neither happening "
                  "before the other",
                  loc.file, loc.line, current_->name.c_str(), other_name.c_str());
  }
  fail_fiber(line);
}

}  // namespace wsstress::sim
