// The explanation of a stall (explain.hpp): the sleepers, their wakers, the
// pair of steps that lost the wake-up and the rule of sleep/README.md it breaks.
#include "explain.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

namespace wsstress::sim {

using pool::Event;
using pool::EventKind;

namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);
constexpr std::size_t kMaxWakerLines = 8;

std::string hex(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// A worker's way to sleep, from its announce to its registration.
struct Sleeper {
  const void* registry = nullptr;
  std::uint32_t worker = 0;
  std::uint32_t fiber = 0;
  std::uint64_t latch = 0;
  std::uint64_t terminate_latch = 0;  // from its ThreadStart
  std::size_t idle = kNone;  // its start_looking (ThreadIdle): injections and broadcasts count from here
  std::size_t announce = kNone, sleeping = kNone;
  std::size_t gate[6] = {kNone, kNone, kNone, kNone, kNone, kNone};
  std::size_t exited = kNone;  // its ThreadTerminate
};

// What a publisher or setter did right after its event: the counters it read
// and the wake-ups it tried.
struct Decision {
  bool counted = false;
  std::uint64_t idle = 0, sleepers = 0;
  std::vector<std::pair<std::size_t, bool>> attempts;  // (event, woke) per wake_specific_thread
};

bool is_publication(EventKind k) {
  return k == EventKind::JobPushed || k == EventKind::JobsInjected || k == EventKind::JobBroadcast ||
         k == EventKind::LatchSet || k == EventKind::CountLatchSet;
}

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

// The counters read and wake-ups tried by event i's fiber right after it.
Decision decision_after(const std::vector<RecordedEvent>& ev, std::size_t i) {
  Decision d;
  for (std::size_t k = i + 1; k < ev.size(); ++k) {
    if (ev[k].fiber != ev[i].fiber) continue;
    const Event& e = ev[k].event;
    if (e.kind == EventKind::JobThreadCounts && !d.counted) {
      d.counted = true;
      d.idle = e.idle();
      d.sleepers = e.sleepers();
    } else if (e.kind == EventKind::ThreadNotify || e.kind == EventKind::ThreadNotifyMissed) {
      d.attempts.emplace_back(k, e.kind == EventKind::ThreadNotify);
    } else {
      break;
    }
  }
  return d;
}

enum class Queue { Injector, Deque, Broadcast };

// Jobs still queued at event `upto` (exclusive) in the injector of `registry`
// (injected minus taken), worker w's deque (pushed minus popped and stolen) or
// its broadcast queue (broadcast minus taken): a publication whose job someone
// else took woke nobody in vain.
long long queued(const std::vector<RecordedEvent>& ev, std::size_t upto, const void* registry, Queue q,
                 std::uint32_t w) {
  long long n = 0;
  for (std::size_t i = 0; i < upto && i < ev.size(); ++i) {
    const Event& e = ev[i].event;
    if (e.registry != registry) continue;
    if (q == Queue::Injector) {
      if (e.kind == EventKind::JobsInjected) n += static_cast<long long>(e.count());
      if (e.kind == EventKind::JobUninjected) n = n > 0 ? n - 1 : 0;
    } else if (q == Queue::Broadcast) {
      if (e.kind == EventKind::JobBroadcast && w < e.count()) ++n;
      if (e.kind == EventKind::BroadcastJobTaken && e.worker == w) n = n > 0 ? n - 1 : 0;
    } else {
      if (e.kind == EventKind::JobPushed && e.worker == w) ++n;
      if ((e.kind == EventKind::JobPopped && e.worker == w) || (e.kind == EventKind::JobStolen && e.victim() == w)) {
        n = n > 0 ? n - 1 : 0;
      }
    }
  }
  return n;
}

// Whether the job of publication e (an injection or a push) is still queued
// at the end of the record.
bool still_queued(const std::vector<RecordedEvent>& ev, const Event& e, const Sleeper& s) {
  if (e.kind == EventKind::JobsInjected) return queued(ev, ev.size(), s.registry, Queue::Injector, 0) > 0;
  return e.kind == EventKind::JobPushed && queued(ev, ev.size(), s.registry, Queue::Deque, e.worker) > 0;
}

std::size_t first_candidate(const Sleeper& s) { return (s.idle != kNone ? s.idle : s.announce) + 1; }

// Whether event i could have woken sleeper s: a job published to its pool
// (an injection or a broadcast since it started looking, a push at any time
// whose deque still holds a job: each event precedes its push, which may land
// much later), or a set of its latch.
bool relevant(const std::vector<RecordedEvent>& ev, std::size_t i, const Sleeper& s) {
  const Event& e = ev[i].event;
  switch (e.kind) {
    case EventKind::JobPushed: return e.registry == s.registry;
    case EventKind::JobBroadcast:  // its job may land in the queue long after the event
      return e.registry == s.registry && queued(ev, ev.size(), s.registry, Queue::Broadcast, s.worker) > 0;
    case EventKind::JobsInjected: return e.registry == s.registry && i >= first_candidate(s);
    case EventKind::LatchSet:
    case EventKind::CountLatchSet: return e.latch() == s.latch && i >= first_candidate(s);
    default: return false;
  }
}


std::string what_happened(const Event& e, const Sleeper& s) {
  switch (e.kind) {
    case EventKind::JobPushed: return "pushed a job on worker " + std::to_string(e.worker) + "'s deque";
    case EventKind::JobsInjected: return "injected " + std::to_string(e.count()) + " job(s) from outside the pool";
    case EventKind::JobBroadcast: return "pushed a broadcast job into each of " + std::to_string(e.count()) + " broadcast queues";
    case EventKind::LatchSet:
    case EventKind::CountLatchSet:
      return std::string("set the sleeper's ") + (e.latch() == s.terminate_latch ? "terminate latch (" : "latch (") +
             (e.kind == EventKind::LatchSet ? "SpinLatch" : "CountLatch") + "), whose swap read it " +
             (e.owner_slept() ? "SLEEPING" : "not SLEEPING");
    default: return pool::to_string(e.kind);
  }
}

std::string decision_text(const std::vector<RecordedEvent>& ev, const Decision& d) {
  std::string t;
  if (d.counted) t = "; read " + std::to_string(d.sleepers) + " sleeping, " + std::to_string(d.idle) + " idle";
  for (const auto& [k, woke] : d.attempts) {
    t += "; wake_specific_thread(" + std::to_string(ev[k].event.worker) + "): " +
         (woke ? "notified it" : "is_blocked false, no notify");
  }
  if (d.attempts.empty()) t += "; woke nobody";
  return t;
}

std::string step_of(const std::vector<RecordedEvent>& ev, std::size_t i) { return "step " + std::to_string(ev[i].step); }

struct Diagnosis {
  std::string pair, rule;
  bool found = true;  // false: nothing recorded should have woken the sleeper
};

// The first loss the events show, in the order the rules of sleep/README.md
// are most specific: a wake-up that found the sleeper registered but not
// blocked; a set latch nobody woke for; a job gate 5 should have seen; a
// publication that read no sleeper after the sleeper registered.
Diagnosis diagnose(const std::vector<RecordedEvent>& ev, const Sleeper& s, const StallContext& ctx) {
  const auto who = [&](std::size_t i) { return ctx.fiber_name(ev[i].fiber); };
  const std::string sleeper = ctx.fiber_name(s.fiber);
  // From gate 3 on (its event follows gate 2's lock), a correct sleeper holds
  // is_blocked's lock until it waits: no waker can find is_blocked false.
  const std::size_t locked = s.gate[3] != kNone ? s.gate[3] : s.sleeping;
  for (std::size_t i = locked + 1; i < ev.size(); ++i) {
    const Event& e = ev[i].event;
    if (e.kind == EventKind::ThreadNotifyMissed && e.registry == s.registry && e.worker == s.worker) {
      return {"lost between " + step_of(ev, locked) + " (" + sleeper +
                  " at gate 3, past gate 2: from here it must hold is_blocked's lock until it waits) and " +
                  step_of(ev, i) + " (" + who(i) + "'s wake_specific_thread(" + std::to_string(s.worker) +
                  ") took that lock and found is_blocked false: the sleeper had not blocked yet)",
              "sleep/README.md §3 and §2 gate 2: the sleeper takes is_blocked's lock before it registers and holds it "
              "until it waits, so a waker never finds it on its way to sleep but not yet blocked"};
    }
  }
  for (std::size_t i = 0; i < ev.size(); ++i) {
    const Event& e = ev[i].event;
    if (!relevant(ev, i, s)) continue;
    const Decision d = decision_after(ev, i);
    const bool setter = e.kind == EventKind::LatchSet || e.kind == EventKind::CountLatchSet;
    const std::size_t g3 = s.gate[3], g4 = s.gate[4], g5 = s.gate[5];
    if (setter && e.owner_slept() && d.attempts.empty()) {
      const bool terminate = s.latch == s.terminate_latch;
      return {"lost at " + step_of(ev, i) + ": " + who(i) + " set " + (terminate ? "the terminate latch" : "the latch") +
                  ", its swap read SLEEPING (made so at gate 3, " +
                  (g3 != kNone ? step_of(ev, g3) : std::string("before the window")) + "), and it tried no wake-up",
              terminate ? "sleep/README.md §6: terminate sets each worker's terminate latch and wakes it as §3 says: "
                          "a setter whose swap returns SLEEPING must wake the owner"
                        : "sleep/README.md §3: a setter whose swap returns SLEEPING must wake the owner through "
                          "notify_worker_latch_is_set"};
    }
    if (setter && !e.owner_slept() && g3 != kNone && i < g3) {
      return {"lost between " + step_of(ev, i) + " (" + who(i) + " set the latch) and " + step_of(ev, g3) + " (" +
                  sleeper + "'s gate 3 did not see it set)",
              "sleep/README.md §3: gates 1 and 3 are CASes on the latch's word, so either the sleeper sees SET or "
              "the setter sees SLEEPING"};
    }
    if (e.kind == EventKind::JobBroadcast && g5 != kNone && i < g5) {
      return {"lost between " + step_of(ev, i) + " (" + who(i) + " pushed a job to " + sleeper +
                  "'s broadcast queue) and " + step_of(ev, g5) + " (" + sleeper + "'s gate 5 found no job)",
              "sleep/README.md §6: inject_broadcast bumps no JEC, so gate 5 must read the worker's broadcast queue"};
    }
    if (e.kind == EventKind::JobsInjected && g5 != kNone && i < g5 && queued(ev, g5, s.registry, Queue::Injector, 0) > 0) {
      return {"lost between " + step_of(ev, i) + " (" + who(i) + " injected a job) and " + step_of(ev, g5) + " (" +
                  sleeper + "'s gate 5 found the injector empty" +
                  (g4 != kNone && i < g4 ? ", after gate 4 at " + step_of(ev, g4) + " found the JEC it remembered"
                                         : std::string()) + ")",
              "sleep/README.md §4: the JEC can roll over or turn sleepy again, so gate 5 must look at the injector "
              "itself after its SeqCst fence"};
    }
    if ((e.kind == EventKind::JobsInjected || e.kind == EventKind::JobPushed) && i > s.sleeping && d.counted &&
        d.sleepers == 0) {
      return {"lost between " + step_of(ev, s.sleeping) + " (" + sleeper + " registered as sleeping) and " +
                  step_of(ev, i) + " (" + who(i) + " " + what_happened(e, s) + " and read 0 sleeping threads)",
              "sleep/README.md §4: the publisher's SeqCst fence and the sleeper's counter CAS order the push "
              "before the read of the sleeping count, or the registration before it"};
    }
    if ((e.kind == EventKind::JobsInjected || e.kind == EventKind::JobPushed) && i > s.sleeping && d.counted &&
        d.sleepers > 0 && d.attempts.empty() && still_queued(ev, e, s)) {
      return {"lost at " + step_of(ev, i) + ": " + who(i) + " " + what_happened(e, s) + ", read " +
                  std::to_string(d.sleepers) + " sleeping and " + std::to_string(d.idle) +
                  " idle but awake, and woke nobody, counting on the idle ones; none of them ran it (it is still queued)",
              "sleep/README.md §7: new_jobs wakes sleepers unless the idle-but-awake threads (inactive minus "
              "sleeping) cover the new jobs, so a thread it counts as idle but awake must really be searching"};
    }
    if (e.kind == EventKind::JobPushed && g4 != kNone && i < g4 && d.attempts.empty() &&
        queued(ev, ev.size(), s.registry, Queue::Deque, e.worker) > 0) {
      return {"lost between " + step_of(ev, i) + " (" + who(i) + " pushed a job and woke nobody) and " +
                  step_of(ev, g4) + " (" + sleeper + "'s gate 4 found the JEC it remembered at its announce)",
              "sleep/README.md §5 and §2 gate 4: new_jobs moves a sleepy JEC, so a sleeper that missed the push "
              "searches again instead of sleeping"};
    }
  }
  return {"nothing recorded after its announce should have woken it: no job was published to its pool and its "
          "latch was not set",
          "none: the sleeper waits for work or a latch that never came (a lost job, a panic that set no latch)",
          false};
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
                        !is_publication(ev[i - 1].event.kind) &&
                        ev[i - 1].event.kind != EventKind::JobThreadCounts;
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
      if (s.registry == registry) left += queued(ev, ev.size(), registry, Queue::Deque, s.worker);
    }
    if (left == 0) continue;
    out.push_back("every worker of a pool has exited (the last at " +
                  step_of(ev, exit.second) + ") with " + std::to_string(left) +
                  " job(s) still queued in it: nobody is left to run them");
    out.push_back("rule broken: sleep/README.md §6: spawn takes a terminate count for its job, so the pool outlives "
                  "its queued work (its workers exit only when the count reaches zero)");
  }
  return out;
}

}  // namespace

std::string event_text(const Event& e) {
  std::string t = pool::to_string(e.kind);
  switch (e.kind) {
    case EventKind::ThreadSleepGate: return t + ": " + pool::gate_name(e.gate());
    case EventKind::ThreadSleepy: return t + ": JEC " + std::to_string(e.jec());
    case EventKind::ThreadNotify: return t + ": wake_specific_thread(" + std::to_string(e.worker) + ") notified it";
    case EventKind::ThreadNotifyMissed:
      return t + ": wake_specific_thread(" + std::to_string(e.worker) + "): is_blocked false, no notify";
    case EventKind::JobThreadCounts:
      return t + ": " + std::to_string(e.sleepers()) + " sleeping, " + std::to_string(e.idle()) + " idle";
    case EventKind::LatchSet:
    case EventKind::CountLatchSet:
      return t + ": latch " + hex(e.latch()) + (e.owner_slept() ? ", owner SLEEPING" : ", owner not sleeping");
    case EventKind::ThreadSleeping:
    case EventKind::ThreadAwoken: return t + ": latch " + hex(e.latch());
    default: return t;
  }
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
                  ctx.where(s.fiber) + ": while it waits it runs none of its pool's jobs (sleep/README.md §8: a "
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
  if (!out.empty() && !ctx.window_complete) out.push_back("(from the last " + std::to_string(events.size()) + " pool events)");
  return out;
}

}  // namespace wsstress::sim
