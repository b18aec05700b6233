// SPDX-License-Identifier: MIT OR Apache-2.0
// How a simulated run fails: a broken pool invariant, a use after free, a
// lost wake-up or a livelock, each with the state dump a report prints.
#include <cstdio>

#include "scheduler.hpp"
#include "wsstress/core/scenario.hpp"
#include "wsstress/sim/asan.hpp"

namespace wsstress::sim {

using core::Verdict;
using core::VerdictKind;

const char* fiber_state_name(FiberState s) noexcept {
  switch (s) {
    case FiberState::Runnable: return "runnable";
    case FiberState::BlockedMutex: return "blocked on a mutex";
    case FiberState::BlockedCond: return "blocked on a condvar";
    case FiberState::BlockedJoin: return "joining a fiber";
    case FiberState::Sleeping: return "sleeping (virtual time)";
    case FiberState::Done: return "finished";
  }
  return "?";
}

void Scheduler::fail(Verdict v) {
  if (!failure_) failure_ = std::move(v);
}

// The run has failed: the current fiber (inside the pool, perhaps in a
// noexcept function) gives up the processor for good; the loop stops.
void Scheduler::give_up_processor() {
  to_scheduler();
  std::fprintf(stderr, "wsstress sim: a failed fiber was resumed\n");
  std::abort();
}

void Scheduler::invariant(const char* what, SrcLoc loc) {
  char line[512];
  std::snprintf(line, sizeof line, "pool invariant violated at %s:%u: %s", loc.file, loc.line, what);
  fail_fiber(line);
}

void Scheduler::fail_fiber(const char* message) {
  fail(Verdict{VerdictKind::Bug, message, state_dump()});
  give_up_processor();
}

// An operation on a destroyed pool object. A fiber gives up the processor for
// good, as for a broken invariant; the scheduler itself (a dump, a
// store-buffer flush) only records the failure, which ends the run at the
// next decision.
void Scheduler::use_after_free(Op op, const void* addr, SrcLoc loc) {
  char line[640];
  Fiber* f = current_;
  const int n = std::snprintf(line, sizeof line, "use after free: %s on a destroyed pool object at %s:%u", op_name(op),
                              loc.file, loc.line);
  if (f != nullptr && n > 0 && static_cast<std::size_t>(n) < sizeof line) {
    std::snprintf(line + n, sizeof line - n, " (%s, whose last pool operation was at %s:%u)", f->name.c_str(),
                  f->pool_loc.file, f->pool_loc.line);
  }
  if (f == nullptr) {
    fail(Verdict{VerdictKind::Bug, line, {}});
    return;
  }
  record(f->id, op, loc, reinterpret_cast<std::uintptr_t>(addr));
  fail(Verdict{VerdictKind::Bug, line, state_dump()});
  give_up_processor();
}

// At the end of a failed run some fibers are suspended inside the pool.
// Unwinding them would run the pool's destructors against a scheduler that
// is gone, so their stacks and thread-locals are kept (leaked) instead,
// which LeakSanitizer is told (what the stacks hold stays reachable).
void Scheduler::abandon_stuck_fibers() {
  for (auto& f : fibers_) {
    if (f->state != FiberState::Done && f->ctx) {
      asan::keep_on_purpose(new boost::context::fiber(std::move(f->ctx)));
      for (const TlsSlot& s : f->tls) asan::keep_on_purpose(s.value);
    }
  }
}

// A run out of steps is a livelock, unless every fiber not sleeping in
// virtual time is blocked for good: then the sleepers are only polling (e.g.
// waiting for workers to exit) and the real finding is the wake-up that the
// blocked ones never got.
std::string Scheduler::livelock_message() const {
  int blocked = 0, polling = 0, runnable = 0;
  for (auto& f : fibers_) {
    switch (f->state) {
      case FiberState::BlockedMutex:
      case FiberState::BlockedCond:
      case FiberState::BlockedJoin: ++blocked; break;
      case FiberState::Sleeping: ++polling; break;
      // Just woken from a sleep in virtual time: a poller between two polls.
      case FiberState::Runnable: ++(f->last_op == Op::Sleep ? polling : runnable); break;
      case FiberState::Done: break;
    }
  }
  const std::string steps = std::to_string(steps_) + " scheduling points";
  if (blocked > 0 && runnable == 0) {
    return "lost wake-up: " + std::to_string(blocked) + " fiber(s) blocked for good while " + std::to_string(polling) +
           " poll in virtual time (" + steps + " without finishing)";
  }
  return "livelock: " + steps + " without finishing";
}

// No fiber can run. A lost wake-up unless every tracked pool read "nothing to
// wake for" in the last state_dump(): then the blocked fibers wait for
// something no pool holds. In a run that built no pool (an external program)
// it is that program's deadlock: no pool's wake-up was there to lose.
std::string Scheduler::stall_message(int alive) const {
  const std::string stuck = "no fiber can run, and " + std::to_string(alive) + " have not finished";
  if (last_stall_ == core::PoolStall::NoPool) {
    return "deadlock: " + stuck + "; the run built no pool, so its threads wait on each other for good";
  }
  if (last_stall_ != core::PoolStall::Idle) return "lost wake-up: " + stuck;
  return "nothing to wake for: " + stuck +
         "; no job is queued and no sleeping worker's latch is set, so what they "
         "wait for never came (a lost job, or a panic that set no latch)";
}

std::vector<RecordedEvent> Scheduler::events_in_order() const {
  if (n_events_ <= kEventRing) return events_;
  std::vector<RecordedEvent> out;
  out.reserve(kEventRing);
  for (std::uint64_t i = n_events_ - kEventRing; i < n_events_; ++i) out.push_back(events_[i % kEventRing]);
  return out;
}

// Why the blocked workers sleep (explain.hpp), for a stall's verdict.
std::vector<std::string> Scheduler::explain() const {
  StallContext ctx;
  ctx.fiber_name = [this](std::uint32_t id) {
    return id < fibers_.size() ? fibers_[id]->name : "fiber#" + std::to_string(id);
  };
  ctx.blocked = [this](std::uint32_t id) {
    if (id >= fibers_.size()) return false;
    const FiberState s = fibers_[id]->state;
    return s == FiberState::BlockedCond || s == FiberState::BlockedMutex || s == FiberState::BlockedJoin;
  };
  ctx.where = [this](std::uint32_t id) {
    const Fiber& f = *fibers_[id];
    const SrcLoc at = f.pool_loc.line != 0 ? f.pool_loc : f.loc;
    return std::string(fiber_state_name(f.state)) + " at " + at.file + ":" + std::to_string(at.line);
  };
  ctx.window_complete = n_events_ <= kEventRing;
  return explain_stall(events_in_order(), ctx);
}

int Scheduler::unfinished() const { return static_cast<int>(live_.size()); }

std::string Scheduler::state_dump() {
  Fiber* saved = current_;
  current_ = nullptr;  // dumps read pool state without scheduling
  std::string out = "fibers:\n";
  char line[512];
  for (auto& f : fibers_) {
    if (f->state == FiberState::Done) continue;
    std::snprintf(line, sizeof line, "  %s: %s at %s:%u (%s)\n", f->name.c_str(), fiber_state_name(f->state),
                  f->loc.file, f->loc.line, op_name(f->last_op));
    out += line;
  }
  const core::PoolDump pools = core::LiveState::get().dump_pools();
  out += pools.text;
  last_stall_ = pools.stall;
  out += "last events:\n";
  const std::vector<RecordedEvent> events = events_in_order();
  const std::size_t first = events.size() > kDumpEvents ? events.size() - kDumpEvents : 0;
  for (std::size_t i = first; i < events.size(); ++i) {
    const RecordedEvent& e = events[i];
    out += "  " + fibers_[e.fiber]->name + ": " + event_text(e.event) + " at " + e.loc.file + ":" +
           std::to_string(e.loc.line) + "\n";
  }
  current_ = saved;
  return out;
}

}  // namespace wsstress::sim
