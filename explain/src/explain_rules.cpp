// SPDX-License-Identifier: MIT OR Apache-2.0
// What could have woken a sleeper, and which rule of sleep/README.md its loss
// breaks (explain_detail.hpp): the queues' contents, each waker's decision,
// and the diagnosis explain.cpp prints under each sleeper's story.
#include <functional>
#include <optional>

#include "explain_detail.hpp"

namespace wsstress::explain::detail {

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

namespace {

// Whether the job of publication e (an injection or a push) is still queued
// at the end of the record.
bool still_queued(const std::vector<RecordedEvent>& ev, const Event& e, const Sleeper& s) {
  if (e.kind == EventKind::JobsInjected) return queued(ev, ev.size(), s.registry, Queue::Injector, 0) > 0;
  return e.kind == EventKind::JobPushed && queued(ev, ev.size(), s.registry, Queue::Deque, e.worker) > 0;
}

}  // namespace

std::size_t first_candidate(const Sleeper& s) { return (s.idle != kNone ? s.idle : s.announce) + 1; }

// Whether event i could have woken sleeper s: a job published to its pool
// (a broadcast since it started looking, a push or an injection at any time
// whose queue still holds a job: each event precedes its push, which may land
// much later, and under weak memory a push made before it started looking may
// still be out of its sight; an injection since it started looking), or a set
// of its latch.
bool relevant(const std::vector<RecordedEvent>& ev, std::size_t i, const Sleeper& s) {
  const Event& e = ev[i].event;
  switch (e.kind) {
    case EventKind::JobPushed: return e.registry == s.registry;
    case EventKind::JobBroadcast:  // its job may land in the queue long after the event
      return e.registry == s.registry && queued(ev, ev.size(), s.registry, Queue::Broadcast, s.worker) > 0;
    case EventKind::JobsInjected:
      return e.registry == s.registry &&
             (i >= first_candidate(s) || queued(ev, ev.size(), s.registry, Queue::Injector, 0) > 0);
    case EventKind::LatchSet:
    case EventKind::CountLatchSet: return e.latch() == s.latch && i >= first_candidate(s);
    default: return false;
  }
}

std::string what_happened(const Event& e, const Sleeper& s) {
  switch (e.kind) {
    case EventKind::JobPushed: return "pushed a job on worker " + std::to_string(e.worker) + "'s deque";
    case EventKind::JobsInjected: return "injected " + std::to_string(e.count()) + " job(s) from outside the pool";
    case EventKind::JobBroadcast:
      return "pushed a broadcast job into each of " + std::to_string(e.count()) + " broadcast queues";
    case EventKind::LatchSet:
    case EventKind::CountLatchSet:
      return std::string("set the sleeper's ") + (e.latch() == s.terminate_latch ? "terminate latch (" : "latch (") +
             (e.kind == EventKind::LatchSet ? "SpinLatch" : "CountLatch") + "), whose swap read it " +
             (e.owner_slept() ? "SLEEPING" : "not SLEEPING");
    default: return pool::event_kind_name(e.kind);
  }
}

std::string decision_text(const std::vector<RecordedEvent>& ev, const Decision& d) {
  std::string t;
  if (d.counted) t = "; read " + std::to_string(d.sleepers) + " sleeping, " + std::to_string(d.idle) + " idle";
  for (const auto& [k, woke] : d.attempts) {
    t += "; wake_specific_thread(" + std::to_string(ev[k].event.worker) +
         "): " + (woke ? "notified it" : "is_blocked false, no notify");
  }
  if (d.attempts.empty()) t += "; woke nobody";
  return t;
}

std::string step_of(const std::vector<RecordedEvent>& ev, std::size_t i) {
  return "step " + std::to_string(ev[i].step);
}

namespace {

using Who = std::function<std::string(std::size_t)>;

// A waker that took is_blocked's lock after gate 3 and found is_blocked false:
// a correct sleeper holds that lock from gate 2 until it waits.
std::optional<Diagnosis> missed_wake_up(const std::vector<RecordedEvent>& ev, const Sleeper& s, const Who& who,
                                        const std::string& sleeper) {
  const std::size_t locked = s.gate[3] != kNone ? s.gate[3] : s.sleeping;
  for (std::size_t i = locked + 1; i < ev.size(); ++i) {
    const Event& e = ev[i].event;
    if (e.kind == EventKind::ThreadNotifyMissed && e.registry == s.registry && e.worker == s.worker) {
      return Diagnosis{
          "lost between " + step_of(ev, locked) + " (" + sleeper +
              " at gate 3, past gate 2: from here it must hold is_blocked's lock until it waits) and " +
              step_of(ev, i) + " (" + who(i) + "'s wake_specific_thread(" + std::to_string(s.worker) +
              ") took that lock and found is_blocked false: the sleeper had not blocked yet)",
          "sleep/README.md §3 and §2 gate 2: the sleeper takes is_blocked's lock before it registers and holds it "
          "until it waits, so a waker never finds it on its way to sleep but not yet blocked"};
    }
  }
  return std::nullopt;
}

// Whether a waker's decision tried wake_specific_thread on worker w.
bool tried(const std::vector<RecordedEvent>& ev, const Decision& d, std::uint32_t w) {
  for (const auto& [k, woke] : d.attempts) {
    if (ev[k].event.worker == w) return true;
  }
  return false;
}

// The workers a decision tried to wake ("worker 1 (is_blocked false)").
std::string others_tried(const std::vector<RecordedEvent>& ev, const Decision& d) {
  std::string t;
  for (const auto& [k, woke] : d.attempts) {
    t += (t.empty() ? "worker " : " and worker ") + std::to_string(ev[k].event.worker) +
         (woke ? " (notified it)" : " (is_blocked false)");
  }
  return t;
}

bool woke_someone(const Decision& d) {
  for (const auto& [k, woke] : d.attempts) {
    if (woke) return true;
  }
  return false;
}

// Event i, a latch set, lost the wake-up: its swap read SLEEPING and it woke
// nobody, or it set the latch before a gate 3 that did not see it.
std::optional<Diagnosis> lost_latch(const std::vector<RecordedEvent>& ev, std::size_t i, const Sleeper& s,
                                    const Who& who, const std::string& sleeper) {
  const Event& e = ev[i].event;
  const std::size_t g3 = s.gate[3];
  if (e.owner_slept() && decision_after(ev, i).attempts.empty()) {
    const bool terminate = s.latch == s.terminate_latch;
    return Diagnosis{
        "lost at " + step_of(ev, i) + ": " + who(i) + " set " + (terminate ? "the terminate latch" : "the latch") +
            ", its swap read SLEEPING (made so at gate 3, " +
            (g3 != kNone ? step_of(ev, g3) : std::string("before the window")) + "), and it tried no wake-up",
        terminate ? "sleep/README.md §6: terminate sets each worker's terminate latch and wakes it as §3 says: "
                    "a setter whose swap returns SLEEPING must wake the owner"
                  : "sleep/README.md §3: a setter whose swap returns SLEEPING must wake the owner through "
                    "notify_worker_latch_is_set"};
  }
  if (e.owner_slept() && !tried(ev, decision_after(ev, i), s.worker)) {
    return Diagnosis{"lost at " + step_of(ev, i) + ": " + who(i) +
                         " set the latch, its swap read SLEEPING, and it tried to wake " +
                         others_tried(ev, decision_after(ev, i)) + ", not the latch's owner (worker " +
                         std::to_string(s.worker) + ")",
                     "sleep/README.md §3: a setter whose swap returns SLEEPING must wake the owner: "
                     "notify_worker_latch_is_set(owner) calls wake_specific_thread on the owner's index"};
  }
  if (!e.owner_slept() && g3 != kNone && i < g3) {
    return Diagnosis{"lost between " + step_of(ev, i) + " (" + who(i) + " set the latch) and " + step_of(ev, g3) +
                         " (" + sleeper + "'s gate 3 did not see it set)",
                     "sleep/README.md §3: gates 1 and 3 are CASes on the latch's word, so either the sleeper sees SET "
                     "or the setter sees SLEEPING"};
  }
  return std::nullopt;
}

// Event i, a broadcast whose job still waits in s's queue, and whose
// wake loop never tried s: inject_broadcast must notify every worker, since
// no counter tells a sleeper a broadcast came (a bug written blind
// A, which the gate-5 rule below blamed: the event precedes the pushes, so a
// gate 5 after it may still find the queue empty).
std::optional<Diagnosis> broadcast_skipped(const std::vector<RecordedEvent>& ev, std::size_t i, const Sleeper& s,
                                           const Who& who, const std::string& sleeper) {
  const Decision d = decision_after(ev, i);
  if (tried(ev, d, s.worker)) return std::nullopt;
  const std::string tries =
      d.attempts.empty() ? std::string("tried to wake nobody") : "tried to wake " + others_tried(ev, d);
  return Diagnosis{"lost at " + step_of(ev, i) + ": " + who(i) + " pushed a broadcast job into each of " +
                       std::to_string(ev[i].event.count()) + " broadcast queues and " + tries + ", not " + sleeper +
                       " (worker " + std::to_string(s.worker) + "), whose queue still holds its job",
                   "sleep/README.md §6: inject_broadcast bumps no JEC, so it wakes every worker through "
                   "notify_worker_latch_is_set, one call per worker's queue"};
}

// Another worker's announce in s's pool between events `from` and `to`: it
// turns the JEC sleepy again, which can roll it back to the value s remembered.
std::size_t other_announce(const std::vector<RecordedEvent>& ev, const Sleeper& s, std::size_t from, std::size_t to) {
  for (std::size_t k = from + 1; k < to && k < ev.size(); ++k) {
    const Event& e = ev[k].event;
    if (e.kind == EventKind::ThreadSleepy && e.registry == s.registry && e.worker != s.worker) return k;
  }
  return kNone;
}

// Event i, an injection whose job was still queued when gate 5 looked.
Diagnosis injection_gate5_missed(const std::vector<RecordedEvent>& ev, std::size_t i, const Sleeper& s, const Who& who,
                                 const std::string& sleeper) {
  const std::size_t g4 = s.gate[4], g5 = s.gate[5];
  const std::size_t roll = other_announce(ev, s, i, s.sleeping);
  const std::string pair =
      "lost between " + step_of(ev, i) + " (" + who(i) + " injected a job) and " + step_of(ev, g5) + " (" + sleeper +
      "'s gate 5 found the injector empty" +
      (g4 != kNone && i < g4 ? ", after gate 4 at " + step_of(ev, g4) + " found the JEC it remembered"
                             : std::string()) +
      ")";
  if (roll != kNone) {
    return {pair, "sleep/README.md §4: gate 4 alone is not enough: " + who(roll) + "'s announce at " +
                      step_of(ev, roll) +
                      " turned the JEC sleepy again, back to the value the sleeper remembered, so "
                      "its registration passed; gate 5 must look at the injector itself after its SeqCst fence"};
  }
  return {pair, "sleep/README.md §4: gate 5 must look at the injector itself after its SeqCst fence, and see a job "
                "pushed before it: the publisher's SeqCst fence (after its push, in new_injected_jobs) pairs with the "
                "sleeper's, or the Injector's own SeqCst accesses order the two; a gate 5 that does not look, or a "
                "missing fence with an Injector weakened to Acquire/Release, reads it empty"};
}

// The workers of s's pool registered as sleeping before event i and never
// taken off the count afterwards (no wake-up found them blocked, gate 5 did
// not undo the registration): each stays counted from its gate-4 CAS to the
// end of the record, so a read of the counters at i must include them all.
std::vector<std::pair<std::uint32_t, std::size_t>> asleep_for_good(const std::vector<RecordedEvent>& ev, std::size_t i,
                                                                   const Sleeper& s) {
  std::vector<std::pair<std::uint32_t, std::size_t>> out;  // (worker, its ThreadSleeping)
  for (std::size_t k = 0; k < i; ++k) {
    const Event& e = ev[k].event;
    if (e.kind != EventKind::ThreadSleeping || e.registry != s.registry) continue;
    bool undone = false;
    for (std::size_t j = k + 1; j < ev.size() && !undone; ++j) {
      const Event& f = ev[j].event;
      undone = f.registry == s.registry && f.worker == e.worker &&
               (f.kind == EventKind::ThreadNotify || f.kind == EventKind::ThreadSleepInterruptedByInjected ||
                f.kind == EventKind::ThreadAwoken || f.kind == EventKind::ThreadSleeping);
    }
    if (!undone) out.emplace_back(e.worker, k);
  }
  return out;
}

// Event i's publisher read fewer sleeping threads than the workers asleep for
// good by then: one of them sleeps uncounted (its gate-4 CAS failed and it
// slept anyway), so no wake rule will ever pick it (a blind-written
// bug A, which the rules below filed under §7).
std::optional<Diagnosis> uncounted_sleeper(const std::vector<RecordedEvent>& ev, std::size_t i, const Sleeper& s,
                                           const Who& who) {
  const Decision d = decision_after(ev, i);
  if (!d.counted || i < s.sleeping) return std::nullopt;
  const auto asleep = asleep_for_good(ev, i, s);
  if (d.sleepers >= asleep.size()) return std::nullopt;
  std::string list;
  for (const auto& [w, k] : asleep) {
    list += (list.empty() ? "worker " : ", worker ") + std::to_string(w) + " since " + step_of(ev, k);
  }
  return Diagnosis{"lost at " + step_of(ev, i) + ": " + who(i) + " " + what_happened(ev[i].event, s) + " and read " +
                       std::to_string(d.sleepers) + " sleeping, but " + std::to_string(asleep.size()) +
                       " workers were asleep for good by then (" + list +
                       "): at least one sleeps without being "
                       "counted, so no wake rule will ever choose it",
                   "sleep/README.md §2 gate 4: a sleeper registers by the CAS that adds one sleeping thread; if the "
                   "CAS fails (the counters moved) it must search again, never block uncounted, because §7's wake "
                   "rules wake only the sleepers the counters hold"};
}

// Event i, a push or an injection, lost the wake-up after the sleeper
// registered: its publisher read no sleeper, or counted on idle threads.
std::optional<Diagnosis> lost_publication(const std::vector<RecordedEvent>& ev, std::size_t i, const Sleeper& s,
                                          const Who& who, const std::string& sleeper) {
  const Event& e = ev[i].event;
  const Decision d = decision_after(ev, i);
  if (auto u = uncounted_sleeper(ev, i, s, who)) return u;
  if (i > s.sleeping && d.counted && d.sleepers == 0) {
    return Diagnosis{"lost between " + step_of(ev, s.sleeping) + " (" + sleeper + " registered as sleeping) and " +
                         step_of(ev, i) + " (" + who(i) + " " + what_happened(e, s) + " and read 0 sleeping threads)",
                     "sleep/README.md §4: the publisher's SeqCst fence and the sleeper's counter CAS order the push "
                     "before the read of the sleeping count, or the registration before it"};
  }
  if (i > s.sleeping && d.counted && d.sleepers > 0 && d.attempts.empty() && still_queued(ev, e, s)) {
    return Diagnosis{
        "lost at " + step_of(ev, i) + ": " + who(i) + " " + what_happened(e, s) + ", read " +
            std::to_string(d.sleepers) + " sleeping and " + std::to_string(d.idle) +
            " idle but awake, and woke nobody, counting on the idle ones; none of them ran it (it is still queued)",
        "sleep/README.md §7: new_jobs wakes sleepers unless the idle-but-awake threads (inactive minus "
        "sleeping) cover the new jobs, so a thread it counts as idle but awake must really be searching"};
  }
  if (i > s.sleeping && d.counted && d.sleepers > 0 && !d.attempts.empty() && !woke_someone(d) &&
      !tried(ev, d, s.worker) && still_queued(ev, e, s)) {
    return Diagnosis{
        "lost at " + step_of(ev, i) + ": " + who(i) + " " + what_happened(e, s) + ", read " +
            std::to_string(d.sleepers) + " sleeping, tried " + others_tried(ev, d) + " and stopped before " + sleeper +
            " (worker " + std::to_string(s.worker) + "), having woken nobody; the job is still queued",
        "sleep/README.md §7: wake_any_threads tries workers from index 0 up until it has woken as many as it "
        "needs, and only a wake_specific_thread that found is_blocked true counts as a wake-up"};
  }
  const std::size_t g4 = s.gate[4];
  if (e.kind == EventKind::JobPushed && g4 != kNone && i < g4 && d.attempts.empty() &&
      queued(ev, ev.size(), s.registry, Queue::Deque, e.worker) > 0) {
    return Diagnosis{"lost between " + step_of(ev, i) + " (" + who(i) + " pushed a job and woke nobody) and " +
                         step_of(ev, g4) + " (" + sleeper + "'s gate 4 found the JEC it remembered at its announce)",
                     "sleep/README.md §5 and §2 gate 4: new_jobs moves a sleepy JEC, so a sleeper that missed the push "
                     "searches again instead of sleeping"};
  }
  return std::nullopt;
}

// A set of the sleeper's latch before its announce, made while it waited on
// that latch (its ThreadIdle on it came first) and never seen (no
// ThreadSawLatchSet after it): the latch left SET, which a CoreLatch never
// does, so the sleeper's gates found it not set again (the blind study's bug
// C: wake_up storing UNSET over a set that came after its probe).
std::optional<Diagnosis> undone_set(const std::vector<RecordedEvent>& ev, const Sleeper& s, const Who& who,
                                    const std::string& sleeper) {
  const auto mine = [&](const Event& e, EventKind k) {
    return e.kind == k && e.registry == s.registry && e.worker == s.worker && e.latch() == s.latch;
  };
  const std::size_t end = s.announce != kNone ? s.announce : ev.size();
  std::size_t waiting = kNone;
  for (std::size_t k = 0; k < end; ++k) {
    const Event& e = ev[k].event;
    if (mine(e, EventKind::ThreadIdle)) waiting = k;
    if (mine(e, EventKind::ThreadSawLatchSet)) waiting = kNone;
    const bool set = (e.kind == EventKind::LatchSet || e.kind == EventKind::CountLatchSet) && e.latch() == s.latch;
    if (!set || waiting == kNone) continue;
    bool seen = false;
    for (std::size_t j = k + 1; j < ev.size() && !seen; ++j) seen = mine(ev[j].event, EventKind::ThreadSawLatchSet);
    if (seen) continue;
    return Diagnosis{"lost between " + step_of(ev, k) + " (" + who(k) + " set the latch " + sleeper +
                         " was waiting on, since " + step_of(ev, waiting) + ") and " + step_of(ev, end) + " (" +
                         sleeper +
                         " announced sleepy again and its gates found the latch not set): the set was "
                         "undone",
                     "sleep/README.md §3: SET is final: the owner's CASes (gates 1 and 3, wake_up) move the latch "
                     "only between UNSET, SLEEPY and SLEEPING, so a set can never be erased"};
  }
  return std::nullopt;
}

}  // namespace

// The first loss the events show, in the order the rules of sleep/README.md
// are most specific: a wake-up that found the sleeper registered but not
// blocked; a set latch nobody woke for; a job gate 5 should have seen; a
// publication that read no sleeper after the sleeper registered.
Diagnosis diagnose(const std::vector<RecordedEvent>& ev, const Sleeper& s, const StallContext& ctx) {
  const Who who = [&](std::size_t i) { return ctx.fiber_name(ev[i].fiber); };
  const std::string sleeper = ctx.fiber_name(s.fiber);
  if (auto d = missed_wake_up(ev, s, who, sleeper)) return *d;
  for (std::size_t i = 0; i < ev.size(); ++i) {
    const Event& e = ev[i].event;
    if (!relevant(ev, i, s)) continue;
    const std::size_t g5 = s.gate[5];
    if (e.kind == EventKind::LatchSet || e.kind == EventKind::CountLatchSet) {
      if (auto d = lost_latch(ev, i, s, who, sleeper)) return *d;
    }
    if (e.kind == EventKind::JobBroadcast) {
      if (auto d = broadcast_skipped(ev, i, s, who, sleeper)) return *d;
    }
    if (e.kind == EventKind::JobBroadcast && g5 != kNone && i < g5) {
      return {"lost between " + step_of(ev, i) + " (" + who(i) + " pushed a job to " + sleeper +
                  "'s broadcast queue) and " + step_of(ev, g5) + " (" + sleeper + "'s gate 5 found no job)",
              "sleep/README.md §6: inject_broadcast bumps no JEC, so gate 5 must read the worker's broadcast queue"};
    }
    if (e.kind == EventKind::JobsInjected && g5 != kNone && i < g5 &&
        queued(ev, g5, s.registry, Queue::Injector, 0) > 0) {
      return injection_gate5_missed(ev, i, s, who, sleeper);
    }
    if (e.kind == EventKind::JobsInjected || e.kind == EventKind::JobPushed) {
      if (auto d = lost_publication(ev, i, s, who, sleeper)) return *d;
    }
  }
  if (auto d = undone_set(ev, s, who, sleeper)) return *d;
  return {"nothing recorded after its announce should have woken it: no job was published to its pool and its "
          "latch was not set",
          "none: the sleeper waits for work or a latch that never came (a lost job, a panic that set no latch)", false};
}

}  // namespace wsstress::explain::detail
