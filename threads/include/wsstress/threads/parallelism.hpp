// SPDX-License-Identifier: MIT OR Apache-2.0
// The real-thread parallelism figure: how often a worker
// sleeps while a job waits in its pool's deques or injector. rayon-core allows
// such windows - a sleepy worker that misses an internal push costs "one
// helper fewer" (sleep/README.md §5, kind 2) - so on real threads they are a
// measured rate, not a verdict; a mutant that loses wake-ups shows as a rate
// above the clean pool's over the same seeds (`wsstress run --control`).
//
// The pool's events keep a count per pool of queued jobs and of workers
// asleep (parallelism_event, from the noisy platform's event hook); a sampler
// thread looks at every pool once a millisecond while a campaign runs.
#pragma once

#include <cstdint>
#include <memory>

#include "wsstress/pool/trace.hpp"

namespace wsstress::threads {

// The real-thread engine speaks core's vocabulary: specs, verdicts, seeds, dumps.
using namespace core;

struct ParallelismFigure {
  std::uint64_t samples = 0;             // sampler ticks (one every ~1 ms) while the campaign ran
  std::uint64_t asleep_beside_work = 0;  // ticks at which some pool had a worker asleep and a job queued
  std::uint64_t windows = 0;             // maximal runs of such ticks
  std::uint64_t longest = 0;             // the longest run, in ticks
  double rate() const noexcept { return samples == 0 ? 0 : static_cast<double>(asleep_beside_work) / samples; }
};

// Is `run`'s rate of windows per sample above `control`'s? A one-sided Poisson
// test at level `alpha` of run's window count against the count the control's
// rate predicts (with one window added to the control, so a control that saw
// none does not make every single window significant). `p` gets the p-value.
bool rate_above(const ParallelismFigure& run, const ParallelismFigure& control, double alpha, double* p = nullptr);

// Feeds one pool event into the per-pool counts (the kinds that move a job in
// or out of a queue, or a worker into or out of its condvar wait).
void parallelism_event(const pool::Event& e) noexcept;

// Whether some pool has, right now, a worker asleep and a job queued.
bool asleep_beside_work_now() noexcept;

// Forgets every pool's counts (between campaigns, and for tests).
void reset_parallelism_counts() noexcept;

// Samples asleep_beside_work_now() once every `period_us` on a thread of its
// own from construction to finish().
class ParallelismSampler {
 public:
  explicit ParallelismSampler(unsigned period_us = 1000);
  ~ParallelismSampler();
  ParallelismSampler(const ParallelismSampler&) = delete;
  ParallelismSampler& operator=(const ParallelismSampler&) = delete;
  ParallelismFigure finish();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace wsstress::threads
