// SPDX-License-Identifier: MIT OR Apache-2.0
// The simulator's entry point and the functions SimPlatform's types call
// (sim.hpp's detail namespace), each forwarding to the scheduler in charge of
// the calling OS thread.
#include <cstdio>
#include <stdexcept>

#include "scheduler.hpp"
#include "wsstress/core/scenario.hpp"

namespace wsstress::sim {

const char* op_name(Op op) noexcept {
  switch (op) {
    case Op::Load: return "load";
    case Op::Store: return "store";
    case Op::Rmw: return "rmw";
    case Op::Fence: return "fence";
    case Op::Lock: return "lock";
    case Op::Unlock: return "unlock";
    case Op::Wait: return "wait";
    case Op::Notify: return "notify";
    case Op::Yield: return "yield";
    case Op::Start: return "start";
    case Op::Exit: return "exit";
    case Op::Join: return "join";
    case Op::Sleep: return "sleep";
    case Op::Flush: return "flush";
    case Op::Event: return "event";
    case Op::Wake: return "wake";
    case Op::Stale: return "stale read";
    case Op::Preempt: return "preempted";
  }
  return "?";
}

namespace {
thread_local Scheduler* t_sched = nullptr;
Scheduler& sched() { return *t_sched; }
}  // namespace

namespace {
// One run of `body` under a fresh scheduler; `keep` takes its strategy.
SimResult run_once(const SimConfig& config, const std::function<core::Verdict()>& body, const Strategy* taught,
                   bool trial, std::unique_ptr<Strategy>* keep) {
  core::WorkerTable::get().clear();
  core::LiveState::get().reset();
  Scheduler s(config, taught, trial);
  t_sched = &s;
  SimResult r = s.run(body);
  t_sched = nullptr;
  if (keep != nullptr) *keep = s.take_strategy();
  return r;
}
}  // namespace

// A strategy that learns from a trial run (SURW) gets one first: the same
// seed and program, no recorded schedule to follow, its verdict dropped. So
// the seed alone fixes what it learns, and a replay learns it again.
SimResult simulate(const SimConfig& config, const std::function<core::Verdict()>& body) {
  if (t_sched != nullptr) throw std::logic_error("simulate() is not reentrant");
  const StrategyEntry* e = find_strategy(resolve_strategy(config).strategy);
  std::unique_ptr<Strategy> trial;
  if (e != nullptr && e->after_trial != nullptr) {
    SimConfig tc = config;
    tc.forced.clear();
    tc.record_trace = false;
    run_once(tc, body, nullptr, /*trial=*/true, &trial);
  }
  return run_once(config, body, trial.get(), /*trial=*/false, nullptr);
}

bool SimMutex::try_lock(SrcLoc loc) {
  live.check(Op::Lock, this, loc);
  return sched().mutex_try_lock(this, loc);
}

namespace detail {
void point(Op op, const void* addr, SrcLoc loc) {
  if (t_sched) sched().point(op, addr, loc);
}
void on_event(const Event& e, SrcLoc loc) {
  if (t_sched) sched().event(e, loc);
}
void invariant_failed(const char* what, SrcLoc loc) {
  if (t_sched && sched().current()) sched().invariant(what, loc);
  std::fprintf(stderr, "wsstress sim: pool invariant violated at %s:%u: %s\n", loc.file, loc.line, what);
  std::abort();
}
void pool_aborted(const char* why, SrcLoc loc) {
  char line[640];
  std::snprintf(line, sizeof line, "wsstress pool: %s; aborting (at %s:%u)", why, loc.file, loc.line);
  if (t_sched && sched().current()) sched().fail_fiber(line);
  std::fprintf(stderr, "%s\n", line);
  std::abort();
}
void use_after_free(Op op, const void* addr, SrcLoc loc) {
  if (t_sched) {
    sched().use_after_free(op, addr, loc);
    return;
  }
  std::fprintf(stderr, "wsstress sim: use after free: %s on a destroyed pool object at %s:%u\n", op_name(op), loc.file,
               loc.line);
  std::abort();
}
MemoryModel memory() { return t_sched && sched().current() ? sched().memory() : MemoryModel::SC; }
bool tso() { return memory() == MemoryModel::TSO; }
bool cpp() { return memory() == MemoryModel::CPP; }
std::uint64_t cpp_load(History*& h, std::uint64_t latest, std::memory_order o) {
  return sched().cpp_load(h, latest, o);
}
void cpp_store(History*& h, std::uint64_t latest, std::uint64_t bits, std::memory_order o) {
  sched().cpp_store(h, latest, bits, o);
}
void cpp_rmw(History*& h, std::uint64_t latest, std::uint64_t bits, std::memory_order o, bool writes) {
  sched().cpp_rmw(h, latest, bits, o, writes);
}
void cpp_fence(std::memory_order o) { sched().cpp_fence(o); }
void cell_access(CellState*& c, bool write, SrcLoc loc) { sched().cell_access(c, write, loc); }
void free_history(History* h) noexcept { delete h; }
void free_cell(CellState* c) noexcept { delete c; }
bool buffered_load(const void* addr, std::uint64_t& bits) { return sched().buffer().load(addr, bits); }
void buffer_store(void* addr, std::uint64_t bits, void (*apply)(void*, std::uint64_t)) {
  sched().buffer().push(addr, bits, apply);
}
void drain() { sched().drain(); }
void mutex_lock(void* m, SrcLoc loc) { sched().mutex_lock(static_cast<SimMutex*>(m), loc); }
void mutex_unlock(void* m, SrcLoc loc) { sched().mutex_unlock(static_cast<SimMutex*>(m), loc); }
void cond_wait(void* cv, void* m, SrcLoc loc) {
  sched().cond_wait(static_cast<SimCondVar*>(cv), static_cast<SimMutex*>(m), loc);
}
void cond_notify(void* cv, bool all, SrcLoc loc) { sched().cond_notify(static_cast<SimCondVar*>(cv), all, loc); }
std::uint32_t spawn(std::string name, std::function<void()> body) {
  return sched().spawn(std::move(name), std::move(body));
}
void join(std::uint32_t fiber) { sched().join(fiber); }
void sleep_ns(std::uint64_t ns) { sched().sleep_ns(ns); }
void spin_wait(SrcLoc loc) { sched().spin_wait(loc); }
void* tls(const void* key, void* (*make)(), void (*destroy)(void*)) { return sched().tls(key, make, destroy); }
std::uint64_t next_seed() { return t_sched ? sched().next_seed() : 1; }
}  // namespace detail

}  // namespace wsstress::sim
