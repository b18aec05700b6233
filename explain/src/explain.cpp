// SPDX-License-Identifier: MIT OR Apache-2.0
// The explanation of a stall (explain.hpp): the sleepers, their wakers, the
// pair of steps that lost the wake-up and the rule of sleep/README.md it breaks.
#include "wsstress/explain/explain.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

#include "explain_detail.hpp"

namespace wsstress::explain {

using pool::Event;
using pool::EventKind;

using detail::decision_after;
using detail::decision_text;
using detail::Diagnosis;
using detail::first_candidate;
using detail::is_publication;
using detail::kNone;
using detail::Queue;
using detail::queued;
using detail::relevant;
using detail::Sleeper;
using detail::step_of;
using detail::what_happened;

namespace {

constexpr std::size_t kMaxWakerLines = 8;

using WorkerKey = std::pair<const void*, std::uint32_t>;

// Each worker's state at the end of the record, from its own events: where it
// is on its way to sleep (a sleeper's last word is ThreadSleeping), its
// terminate latch, whether it exited.
std::map<WorkerKey, Sleeper> worker_states(const std::vector<RecordedEvent>& ev) {
  std::map<WorkerKey, Sleeper> by_worker;
  for (std::size_t i = 0; i < ev.size(); ++i) {
    const Event& e = ev[i].event;
    if (e.worker == Event::kNoWorker || e.kind == EventKind::ThreadNotify || e.kind == EventKind::ThreadNotifyMissed ||
        e.kind == EventKind::LatchSet) {
      continue;  // these name the worker woken, not the one reporting
    }
    Sleeper& s = by_worker[{e.registry, e.worker}];
    // A new way to sleep (or none): only the terminate latch carries over.
    const auto restart = [&] {
      Sleeper fresh{e.registry, e.worker, ev[i].fiber};
      fresh.terminate_latch = s.terminate_latch;
      s = fresh;
    };
    switch (e.kind) {
      case EventKind::ThreadStart:
        restart();
        s.terminate_latch = e.a;
        break;
      case EventKind::ThreadIdle:
        restart();
        s.idle = i;
        break;
      case EventKind::ThreadSleepy: {
        const std::size_t idle = s.idle;
        restart();
        s.idle = idle;
        s.announce = i;
        break;
      }
      case EventKind::ThreadSleepGate:
        if (s.announce != kNone && e.gate() >= 1 && e.gate() <= 5) s.gate[e.gate()] = i;
        break;
      case EventKind::ThreadSleeping:
        s.sleeping = i;
        s.latch = e.latch();
        s.fiber = ev[i].fiber;
        break;
      case EventKind::ThreadAwoken:
      case EventKind::ThreadFoundWork:
      case EventKind::ThreadSawLatchSet:
      case EventKind::ThreadSleepInterruptedByLatch:
      case EventKind::ThreadSleepInterruptedByJob:
      case EventKind::ThreadSleepInterruptedByInjected: restart(); break;
      case EventKind::ThreadTerminate:
        restart();
        s.exited = i;
        break;
      default: s.fiber = ev[i].fiber; break;
    }
  }
  return by_worker;
}

std::vector<std::string> explain_one(const std::vector<RecordedEvent>& ev, const Sleeper& s, const Diagnosis& d,
                                     const StallContext& ctx) {
  std::vector<std::string> out;
  const std::string sleeper = ctx.fiber_name(s.fiber);
  out.push_back(sleeper + " (worker " + std::to_string(s.worker) + ") sleeps for good on " +
                (s.latch == s.terminate_latch ? "its terminate latch" : "the latch it waits for") + ":");
  out.push_back("  " + step_of(ev, s.announce) + "  announced sleepy, remembering JEC " +
                std::to_string(ev[s.announce].event.jec()));
  for (unsigned g = 1; g <= 5; ++g) {
    if (g == 5 && s.gate[5] != kNone && s.gate[5] > s.sleeping) {
      out.push_back("  " + step_of(ev, s.sleeping) + "  counted as sleeping, about to block (ThreadSleeping)");
    }
    if (s.gate[g] != kNone) out.push_back("  " + step_of(ev, s.gate[g]) + "  passed " + pool::gate_name(g));
  }
  if (s.gate[5] == kNone || s.gate[5] < s.sleeping) {
    out.push_back("  " + step_of(ev, s.sleeping) + "  counted as sleeping, about to block (ThreadSleeping)");
  }
  out.push_back("what should have woken it:");
  std::size_t shown = 0, more = 0;
  for (std::size_t i = 0; i < ev.size(); ++i) {
    const Event& e = ev[i].event;
    const bool notify = (e.kind == EventKind::ThreadNotifyMissed || e.kind == EventKind::ThreadNotify) &&
                        e.registry == s.registry && e.worker == s.worker && i >= first_candidate(s) &&
                        !is_publication(ev[i - 1].event.kind) && ev[i - 1].event.kind != EventKind::JobThreadCounts;
    if (!relevant(ev, i, s) && !notify) continue;
    // A job someone else took could not have been this sleeper's to run.
    if (e.kind == EventKind::JobPushed && queued(ev, ev.size(), s.registry, Queue::Deque, e.worker) == 0) continue;
    if (e.kind == EventKind::JobsInjected && queued(ev, ev.size(), s.registry, Queue::Injector, 0) == 0) continue;
    if (shown == kMaxWakerLines) {
      ++more;
      continue;
    }
    ++shown;
    out.push_back("  " + step_of(ev, i) + "  " + ctx.fiber_name(ev[i].fiber) + ": " +
                  (notify ? event_text(e) : what_happened(e, s) + decision_text(ev, decision_after(ev, i))));
  }
  if (shown == 0) out.push_back("  nothing: no job published to its pool, its latch never set");
  if (more > 0) out.push_back("  (and " + std::to_string(more) + " more)");
  out.push_back(d.pair);
  out.push_back("rule broken: " + d.rule);
  return out;
}

// The workers in the order of their fibers (ids are the same every run;
// the registries' addresses are not).
std::vector<Sleeper> in_fiber_order(const std::map<WorkerKey, Sleeper>& by_worker) {
  std::vector<Sleeper> out;
  for (const auto& [key, s] : by_worker) out.push_back(s);
  std::sort(out.begin(), out.end(), [](const Sleeper& a, const Sleeper& b) {
    return a.fiber != b.fiber ? a.fiber < b.fiber : a.worker < b.worker;
  });
  return out;
}

// A pool whose every worker has exited while jobs were still queued in it:
// nobody is left to run them.
std::vector<std::string> abandoned_work(const std::vector<RecordedEvent>& ev, const std::vector<Sleeper>& workers) {
  // registry -> (all exited, last exit), in the order the pools first appear
  std::vector<std::pair<const void*, std::pair<bool, std::size_t>>> pools;
  for (const Sleeper& s : workers) {
    auto at = std::find_if(pools.begin(), pools.end(), [&](const auto& p) { return p.first == s.registry; });
    if (at == pools.end()) at = pools.insert(pools.end(), {s.registry, {true, 0}});
    auto& [all, last] = at->second;
    all = all && s.exited != kNone;
    if (s.exited != kNone) last = std::max(last, s.exited);
  }
  std::vector<std::string> out;
  for (const auto& [registry, exit] : pools) {
    if (!exit.first) continue;
    long long left = queued(ev, ev.size(), registry, Queue::Injector, 0);
    for (const Sleeper& s : workers) {
      if (s.registry != registry) continue;
      left += queued(ev, ev.size(), registry, Queue::Deque, s.worker);
      left += queued(ev, ev.size(), registry, Queue::Broadcast, s.worker);
    }
    if (left == 0) continue;
    out.push_back("every worker of a pool has exited (the last at " + step_of(ev, exit.second) + ") with " +
                  std::to_string(left) + " job(s) still queued in it: nobody is left to run them");
    out.push_back("rule broken: sleep/README.md §6: spawn takes a terminate count for its job and spawn_broadcast one "
                  "for each worker's job, so the pool outlives its queued work (its workers exit only when the count "
                  "reaches zero)");
  }
  return out;
}

}  // namespace

void format_event(char* buf, std::size_t size, const Event& e, bool with_worker) noexcept {
  char who[32] = "";
  if (with_worker && e.worker != Event::kNoWorker) std::snprintf(who, sizeof who, " (worker %u)", e.worker);
  const char* kind = pool::event_kind_name(e.kind);
  const auto u = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
  switch (e.kind) {
    case EventKind::ThreadSleepGate: std::snprintf(buf, size, "%s%s: %s", kind, who, pool::gate_name(e.gate())); return;
    case EventKind::ThreadSleepy: std::snprintf(buf, size, "%s%s: JEC %llu", kind, who, u(e.jec())); return;
    case EventKind::ThreadNotify:
      std::snprintf(buf, size, "%s: wake_specific_thread(%u) notified it", kind, e.worker);
      return;
    case EventKind::ThreadNotifyMissed:
      std::snprintf(buf, size, "%s: wake_specific_thread(%u): is_blocked false, no notify", kind, e.worker);
      return;
    case EventKind::JobThreadCounts:
      std::snprintf(buf, size, "%s%s: %llu sleeping, %llu idle", kind, who, u(e.sleepers()), u(e.idle()));
      return;
    case EventKind::LatchSet:
    case EventKind::CountLatchSet:
      std::snprintf(buf, size, "%s: latch 0x%llx, %s", kind, u(e.latch()),
                    e.owner_slept() ? "owner SLEEPING" : "owner not sleeping");
      return;
    case EventKind::ThreadSleeping:
    case EventKind::ThreadAwoken: std::snprintf(buf, size, "%s%s: latch 0x%llx", kind, who, u(e.latch())); return;
    default: std::snprintf(buf, size, "%s%s", kind, who); return;
  }
}

std::string event_text(const Event& e) {
  char buf[256];
  format_event(buf, sizeof buf, e, false);
  return buf;
}

std::vector<std::string> explain_stall(const std::vector<RecordedEvent>& events, const StallContext& ctx) {
  std::vector<std::string> out;
  const std::vector<Sleeper> workers = in_fiber_order(worker_states(events));
  // A worker blocked outside sleep() runs nothing while it waits: its pool's
  // jobs wait for it (sleep/README.md §8: a worker entering another pool, or
  // its own, must keep working instead).
  for (const Sleeper& s : workers) {
    if (s.sleeping != kNone || !ctx.blocked(s.fiber)) continue;
    out.push_back(ctx.fiber_name(s.fiber) + " (worker " + std::to_string(s.worker) + ") is blocked outside sleep(), " +
                  ctx.where(s.fiber) +
                  ": while it waits it runs none of its pool's jobs (sleep/README.md §8: a "
                  "worker that calls into a pool keeps working while it waits)");
  }
  // Each sleeper's story; when some sleeper's loss is found, the others (idle
  // workers asleep with nothing to do, as they should be) get one line.
  std::vector<std::pair<Sleeper, Diagnosis>> sleepers;
  bool any_found = false;
  // A sleeper's last word is ThreadSleeping: its fiber may be blocked, or
  // between two spurious wake-ups of its wait loop (a livelock's polls).
  for (const Sleeper& s : workers) {
    if (s.sleeping == kNone) continue;
    if (s.announce == kNone) {
      out.push_back(ctx.fiber_name(s.fiber) + " (worker " + std::to_string(s.worker) +
                    ") sleeps for good; its announce is older than the events kept");
      continue;
    }
    sleepers.emplace_back(s, diagnose(events, s, ctx));
    any_found = any_found || sleepers.back().second.found;
  }
  std::string idle;
  for (const auto& [s, d] : sleepers) {
    if (any_found && !d.found) {
      idle += (idle.empty() ? "" : ", ") + ctx.fiber_name(s.fiber) + " (worker " + std::to_string(s.worker) + ")";
      continue;
    }
    for (std::string& line : explain_one(events, s, d, ctx)) out.push_back(std::move(line));
  }
  if (!idle.empty()) out.push_back("also asleep, with nothing recorded that should have woken them: " + idle);
  // Jobs left in a pool whose workers all exited: the story when no worker
  // sleeps or blocks (the scenario polls for work nobody will run).
  if (out.empty()) {
    for (std::string& line : abandoned_work(events, workers)) out.push_back(std::move(line));
  }
  if (!out.empty() && !ctx.window_complete)
    out.push_back("(from the last " + std::to_string(events.size()) + " pool events)");
  return out;
}

}  // namespace wsstress::explain
