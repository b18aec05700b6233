// SPDX-License-Identifier: MIT OR Apache-2.0
// What every model shares: the model knobs layered over a mutant policy, the
// per-iteration reset, and the call into Relacy's search (and, for a hang,
// the explanation of the failing execution).
#pragma once

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "crash_guard.hpp"
#include "explain_failure.hpp"
#include "wsstress/pool/mutant_list.hpp"
#include "wsstress/pool/mutants.hpp"
#include "wsstress/pool/thread_pool.hpp"
#include "wsstress/relacy/models.hpp"
#include "wsstress/relacy/platform.hpp"

namespace wsstress::relacy {

// The model configuration (documented per model in the README): one idle
// round before a worker turns sleepy, so a schedule reaches the sleep gates in
// a few steps, and a one-bit jobs event counter unless the mutant brings its
// own width, so that two publications roll the counter back to the value a
// sleepy worker remembered, the case gate 5 and the two fences exist for.
// The Injector's blocks hold three jobs instead of 63 (a lap of 4): the
// protocol is the same, a model's few injections cross a block boundary, and
// each block costs Relacy 7 atomics instead of 127.
template <class M>
struct ModelKnobs : M {
  static constexpr unsigned kRoundsUntilSleepy = 1;
  static constexpr unsigned kJecBits = M::kJecBits != 0 ? M::kJecBits : 1;
  static constexpr std::size_t kInjectorLap = 4;
};

using RP = RelacyPlatform;

template <class M>
using ModelPool = pool::BasicThreadPool<RP, ModelKnobs<M>>;

template <class M>
ModelPool<M>* make_pool(std::size_t threads) {
  pool::BasicThreadPoolBuilder<RP, ModelKnobs<M>> b;
  b.num_threads(threads);
  return new ModelPool<M>(std::move(b));
}

// Drops the pool as a user would (terminate, no join), then waits, as
// rayon's own tests do, until every worker has left its main loop: a worker
// that sleeps through its terminate latch leaves the model blocked, which
// Relacy reports as a deadlock instead of ending the test around it.
template <class M>
void drop_and_wait(ModelPool<M>* pool) {
  auto registry = pool->registry_ref();
  delete pool;
  registry->wait_until_stopped();
}

// How the harness's own threads wait for each other: a blocking one-shot
// signal rather than a spin, so that a thread stuck behind a lost wake-up
// shows as a deadlock (not a livelock) and full searches stay finite.
class Signal {
 public:
  Signal() { set_($) = false; }
  void set() {
    std::unique_lock<RP::Mutex> lock(m_);
    set_($) = true;
    cv_.notify_all();
  }
  void wait() {
    std::unique_lock<RP::Mutex> lock(m_);
    while (!set_($)) cv_.wait(lock);
  }

 private:
  RP::Mutex m_;
  RP::CondVar cv_;
  rl::var<bool> set_;
};

template <class Suite>
RawResult run_suite(const SearchSpec& s) {
  rl::test_params p;
  // Relacy replaces the global operator new and delete, and prints its
  // history while its context is still active: a growing string stream would
  // allocate through it from outside any simulated thread. A file stream's
  // buffer is allocated once, here, before the search starts.
  std::FILE* tmp = std::tmpfile();
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/fd/%d", tmp != nullptr ? fileno(tmp) : -1);
  std::ofstream out(path);
  p.output_stream = &out;
  p.progress_stream = &out;
  p.progress_output_period = 1000000;
  p.iteration_count = s.iterations;
  p.context_bound = s.context_bound;
  p.execution_depth_limit = 200000;
  // No history during the search: Relacy (2.4 as Debian ships it) never
  // clears the history between executions, so collecting it keeps every event
  // of every execution (~20-30 KB each: 10 GiB for a 250 000-execution
  // search, and a failure's report holds all of them). With it off, Relacy
  // saves the failing execution's scheduler state and runs that one execution
  // again with history on, for the report.
  p.collect_history = false;
  p.output_history = false;
  switch (s.kind) {
    case Search::Random: p.search_type = rl::random_scheduler_type; break;
    case Search::Bound: p.search_type = rl::fair_context_bound_scheduler_type; break;
    case Search::Full: p.search_type = rl::fair_full_search_scheduler_type; break;
  }
  RawResult r;
  {
    const CrashGuard guard;
    r.passed = rl::simulate<Suite>(p);
    r.relacy_result =
        *CrashGuard::crash() != '\0' && !r.passed ? CrashGuard::crash() : rl::test_result_str(p.test_result);
  }
  r.executions = p.stop_iteration;
  out.flush();
  if (tmp != nullptr) {
    std::rewind(tmp);
    char buf[65536];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, tmp)) > 0) r.output.append(buf, n);
    std::fclose(tmp);
  }
  // The last execution run was the failing one, replayed for the report: the
  // EventLog holds its events.
  if (!r.passed) r.explanation = explain_failure(r.relacy_result, r.output);
  return r;
}

// A model file's entry for one (model template, mutant) pair.
template <template <class> class Model, class M>
RawResult run_model(const SearchSpec& s) {
  return run_suite<Model<M>>(s);
}

// Every suite resets the platform's per-iteration state the same way. Relacy
// constructs the suite when an execution begins, and this base before the
// model's members, whose constructors may already report pool events (a rig
// making its JEC active): the execution's EventLog starts here.
template <class Derived, rl::thread_id_t Static>
struct ModelSuite : rl::test_suite<Derived, Static> {
  ModelSuite() { EventLog::get().clear(); }
  void before() { RP::begin_iteration(); }
  void after() { RP::end_iteration(); }
};

}  // namespace wsstress::relacy
