// SPDX-License-Identifier: MIT OR Apache-2.0
// The blocking primitives of simulated threads: mutexes, condition variables
// (FIFO, with spurious wake-ups left to the strategy), joins, sleeps and
// spin-waits in virtual time, and thread-locals. Each operation is a
// scheduling point; under TSO each one that is a locked instruction or a
// system call drains the fiber's store buffer.
#include "scheduler.hpp"

namespace wsstress::sim {

// A mutex or condition variable may be freed while the fiber that uses it is
// off the processor (at its scheduling point, or blocked on it): check before
// touching it again.
void Scheduler::still_alive(const SimLiveness& live, const void* object, Op op, SrcLoc loc) {
  if (!live.alive()) use_after_free(op, object, loc);
}

void Scheduler::mutex_lock(SimMutex* m, SrcLoc loc) {
  point(Op::Lock, m, loc);
  still_alive(m->live, m, Op::Lock, loc);
  if (tso()) drain();
  while (m->owner != 0) {
    block(FiberState::BlockedMutex, m);
    still_alive(m->live, m, Op::Lock, loc);
  }
  m->owner = current_->id + 1;
  if (cpp()) mem_.acquire_from(current_->mem, m->clock);
}

bool Scheduler::mutex_try_lock(SimMutex* m, SrcLoc loc) {
  if (current_ == nullptr) return m->owner == 0;  // a state dump: never block
  point(Op::Lock, m, loc);
  still_alive(m->live, m, Op::Lock, loc);
  if (tso()) drain();
  if (m->owner != 0) return false;
  m->owner = current_->id + 1;
  if (cpp()) mem_.acquire_from(current_->mem, m->clock);
  return true;
}

void Scheduler::mutex_unlock(SimMutex* m, SrcLoc loc) {
  if (current_ == nullptr) {
    m->owner = 0;
    return;
  }
  point(Op::Unlock, m, loc);
  still_alive(m->live, m, Op::Unlock, loc);
  if (tso()) drain();
  if (cpp()) mem_.release_to(current_->mem, m->clock);
  m->owner = 0;
  wake_all(FiberState::BlockedMutex, m);
}

void Scheduler::cond_wait(SimCondVar* cv, SimMutex* m, SrcLoc loc) {
  point(Op::Wait, cv, loc);
  still_alive(cv->live, cv, Op::Wait, loc);
  still_alive(m->live, m, Op::Wait, loc);
  if (tso()) drain();
  if (cpp()) mem_.release_to(current_->mem, m->clock);
  m->owner = 0;
  wake_all(FiberState::BlockedMutex, m);
  current_->wait_seq = ++wait_counter_;
  block(FiberState::BlockedCond, cv);
  // Not the condvar: once every waiter is notified it may be destroyed before
  // they return ([thread.condition.condvar]); the mutex they relock may not.
  still_alive(m->live, m, Op::Wait, loc);
  while (m->owner != 0) {
    block(FiberState::BlockedMutex, m);
    still_alive(m->live, m, Op::Wait, loc);
  }
  m->owner = current_->id + 1;
  if (cpp()) mem_.acquire_from(current_->mem, m->clock);
}

void Scheduler::cond_notify(SimCondVar* cv, bool all, SrcLoc loc) {
  point(Op::Notify, cv, loc);
  still_alive(cv->live, cv, Op::Notify, loc);
  Fiber* first = nullptr;
  for (Fiber* f : live_) {
    if (f->state != FiberState::BlockedCond || f->wait_on != cv) continue;
    if (all) {
      make_runnable(f);
    } else if (first == nullptr || f->wait_seq < first->wait_seq) {
      first = f;
    }
  }
  if (first) make_runnable(first);
}

std::uint32_t Scheduler::spawn(std::string name, std::function<void()> body) {
  Fiber* f = spawn_fiber(std::move(name), std::move(body));
  if (current_ != nullptr) point(Op::Start, nullptr, SrcLoc::here());
  return f->id;
}

void Scheduler::join(std::uint32_t id) {
  point(Op::Join, nullptr, SrcLoc::here());
  while (fibers_.at(id)->state != FiberState::Done) block(FiberState::BlockedJoin, fibers_.at(id).get());
  if (cpp()) mem_.joined(current_->mem, fibers_.at(id)->mem);
}

void Scheduler::sleep_ns(std::uint64_t ns) {
  point(Op::Sleep, nullptr, SrcLoc::here());
  if (tso()) drain();
  current_->wake_at = vtime_ + ns;
  block(FiberState::Sleeping, nullptr);
}

// A spin-wait (pool/backoff.hpp): off the processor for one tick of virtual
// time, so every strategy runs some other fiber (perhaps the one awaited)
// before this one looks again. Unlike sleep_ns it keeps the store buffer: a
// pause instruction does not drain it.
void Scheduler::spin_wait(SrcLoc loc) {
  point(Op::Yield, nullptr, loc);
  current_->wake_at = vtime_ + 1;
  block(FiberState::Sleeping, nullptr);
}

// A fiber has a handful of slots: a linear search by address beats a map
// keyed by type (whose compares were strcmp of type names at every lookup).
void* Scheduler::tls(const void* key, void* (*make)(), void (*destroy)(void*)) {
  auto& slots = current_->tls;
  for (const TlsSlot& s : slots) {
    if (s.key == key) return s.value;
  }
  void* p = make();
  slots.push_back({key, p, destroy});
  return p;
}

// Gives up the processor until made runnable again.
void Scheduler::block(FiberState s, const void* on) {
  Fiber* f = current_;
  f->state = s;
  f->wait_on = on;
  to_scheduler();
}

void Scheduler::make_runnable(Fiber* f) {
  if (cfg_.record_trace && f->state != FiberState::Runnable && current_ != nullptr) {
    trace_.push_back({steps_, current_->id, Op::Wake, "", 0, f->id});
  }
  f->state = FiberState::Runnable;
  f->wait_on = nullptr;
}

void Scheduler::wake_all(FiberState s, const void* on) {
  for (Fiber* f : live_) {
    if (f->state == s && f->wait_on == on) make_runnable(f);
  }
}

}  // namespace wsstress::sim
