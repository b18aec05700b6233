// SPDX-License-Identifier: MIT OR Apache-2.0
// The hang dump of one pool: its sleep counters (JEC and parity, inactive,
// sleeping), its queues, and per worker what the worker last reported (phase,
// idle rounds, the gate of sleep() it reached, the latch it waits on and that
// latch's state, whether it is blocked on its condvar). Read without stopping
// anything: the dump is taken when nothing has moved for seconds. The dump
// ends with the pool's reading of the stall: a missed wake-up (a worker asleep
// with its latch set, or asleep beside a queued job), or nothing left to wake
// for (no job queued, no sleeper's latch set: whoever waits on the pool waits
// for a job or a latch that never came, such as a job lost with its panic).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "wsstress/core/worker_state.hpp"
#include "wsstress/pool/thread_pool.hpp"

namespace wsstress::core {

inline const char* latch_state_name(std::size_t s) {
  switch (s) {
    case 0: return "UNSET";
    case 1: return "SLEEPY";
    case 2: return "SLEEPING (a setter must wake it)";
    case 3: return "SET";
  }
  return "?";
}

// How a stalled pool reads (see the file's comment); Other: a worker is
// blocked outside its sleep or still running, so the pool alone cannot say;
// NoPool: the run built no pool (an external program), so a stall is its own
// threads' deadlock.
enum class PoolStall { Missed, Idle, Other, NoPool };
struct PoolDump {
  std::string text;
  PoolStall stall = PoolStall::Other;
};

template <class P, class M>
PoolDump dump_registry(pool::Registry<P, M>& r) {
  char line[512];
  std::string out;
  std::size_t queued = r.injector_len(), asleep = 0, others = 0;
  std::string missed;
  const auto c = r.sleep().counters_snapshot();
  const std::uint64_t jec = c.jobs_counter().as_u64();
  std::snprintf(line, sizeof line,
                "  pool %p: %zu threads, terminate count %zu, injector %zu job(s)\n"
                "    counters: JEC %llu (%s), inactive %llu, sleeping %llu\n",
                static_cast<const void*>(&r), r.num_threads(), r.terminate_count(), r.injector_len(),
                static_cast<unsigned long long>(jec),
                (jec & 1) == 0 ? "even: last bumped by a sleepy thread" : "odd: last bumped by a publisher",
                static_cast<unsigned long long>(c.inactive_threads()),
                static_cast<unsigned long long>(c.sleeping_threads()));
  out += line;
  for (std::size_t i = 0; i < r.num_threads(); ++i) {
    Phase phase = Phase::Exited;
    std::uint32_t rounds = 0;
    std::uint8_t gate = 0;
    std::uintptr_t latch = 0;
    bool found = false;
    WorkerTable::get().for_each([&](const WorkerSlot& s) {
      if (s.registry.load(std::memory_order_relaxed) == &r && s.index.load(std::memory_order_relaxed) == i) {
        found = true;
        phase = s.phase.load(std::memory_order_relaxed);
        rounds = s.rounds.load(std::memory_order_relaxed);
        gate = s.gate.load(std::memory_order_relaxed);
        latch = s.latch.load(std::memory_order_relaxed);
      }
    });
    std::string latch_text = "-";
    bool latch_set = false;
    if (found && phase != Phase::Active && latch != 0) {
      // The worker is inside wait_until on this latch, so the latch is alive.
      const std::size_t state = reinterpret_cast<const pool::CoreLatch<P, M>*>(latch)->state_relaxed();
      latch_set = state == 3;
      std::snprintf(line, sizeof line, "%#llx %s", static_cast<unsigned long long>(latch), latch_state_name(state));
      latch_text = line;
    }
    const auto blocked = r.sleep().try_is_blocked(i);
    const bool sleeps = blocked && *blocked;
    queued += r.deque(i).len_relaxed() + r.broadcast_queue(i).len_relaxed();
    asleep += sleeps ? 1 : 0;
    others += !sleeps && found && phase != Phase::Exited ? 1 : 0;
    if (sleeps && latch_set && missed.empty()) {
      missed = "worker " + std::to_string(i) + " sleeps with its latch set";
    }
    std::snprintf(line, sizeof line,
                  "    worker %zu: %s, idle rounds %u, last gate %u, waits on latch %s, blocked on condvar: %s,"
                  " deque %zu, broadcast queue %zu\n",
                  i, found ? phase_name(phase) : "not started or exited", rounds, gate, latch_text.c_str(),
                  !blocked   ? "(lock held)"
                  : *blocked ? "yes"
                             : "no",
                  r.deque(i).len_relaxed(), r.broadcast_queue(i).len_relaxed());
    out += line;
  }
  if (missed.empty() && asleep > 0 && queued > 0) {
    missed = std::to_string(queued) + " job(s) queued while " + std::to_string(asleep) + " worker(s) sleep";
  }
  if (!missed.empty()) {
    return {out + "    reading: a wake-up was missed: " + missed + "\n", PoolStall::Missed};
  }
  if (others == 0 && queued == 0) {
    return {out + "    reading: nothing to wake for: no job queued and no sleeping worker's latch set; a thread "
                  "waiting on this pool waits for a job or a latch that never came (a lost job, or a panic that "
                  "set no latch)\n",
            PoolStall::Idle};
  }
  return {out, PoolStall::Other};
}

}  // namespace wsstress::core
