// SPDX-License-Identifier: MIT OR Apache-2.0
// The external family: programs nobody here wrote, each with its known bug
// and its fixed twin, ported over the platform policy (external_queues.hpp:
// SCTBench's CHESS WorkStealQueue and its interlocked variant, CDSChecker's
// Chase-Lev deque; external_go.hpp: GoKer blocking kernels). They run no pool
// code: they are the first check of the engines' detection on bugs this
// project did not plant. A scenario's name ends in `_fixed` for the twin.
// Their table (sources, expected verdicts): external_programs.hpp.
#pragma once

#include "wsstress/core/scenarios/common.hpp"
#include "wsstress/core/scenarios/external_go.hpp"
#include "wsstress/core/scenarios/external_programs.hpp"
#include "wsstress/core/scenarios/external_queues.hpp"

namespace wsstress::core {

// The family's scenarios: each runs its program `iterations` times (until one
// fails), and ignores the pool's policy M (it runs no pool code; the CLI
// refuses a mutant with it).
template <class P, class M>
struct ExternalScenarios {
  WSSTRESS_SCENARIO_TYPES(P, M)
  using Q = ExternalQueues<P>;
  using Go = GoKerKernels<P>;

  template <class F>
  static void repeat(C& c, F run) {
    for (std::size_t it = 0; it < c.spec.iterations && !c.failed(); ++it) run();
  }

  static void ext_wsq(C& c) {
    repeat(c, [&] { Q::work_steal_queue(c, false, false); });
  }
  static void ext_wsq_fixed(C& c) {
    repeat(c, [&] { Q::work_steal_queue(c, false, true); });
  }
  static void ext_iwsq(C& c) {
    repeat(c, [&] { Q::work_steal_queue(c, true, false); });
  }
  static void ext_iwsq_fixed(C& c) {
    repeat(c, [&] { Q::work_steal_queue(c, true, true); });
  }
  static void ext_chase_lev(C& c) {
    repeat(c, [&] { Q::chase_lev(c, false); });
  }
  static void ext_chase_lev_fixed(C& c) {
    repeat(c, [&] { Q::chase_lev(c, true); });
  }
  static void ext_kubernetes10182(C& c) {
    repeat(c, [&] { Go::kubernetes10182(c, false); });
  }
  static void ext_kubernetes10182_fixed(C& c) {
    repeat(c, [&] { Go::kubernetes10182(c, true); });
  }
  static void ext_etcd6873(C& c) {
    repeat(c, [&] { Go::etcd6873(c, false); });
  }
  static void ext_etcd6873_fixed(C& c) {
    repeat(c, [&] { Go::etcd6873(c, true); });
  }
  static void ext_moby25384(C& c) {
    repeat(c, [&] { Go::moby25384(c, false); });
  }
  static void ext_moby25384_fixed(C& c) {
    repeat(c, [&] { Go::moby25384(c, true); });
  }
  static void ext_kubernetes11298(C& c) {
    repeat(c, [&] { Go::kubernetes11298(c, false); });
  }
  static void ext_kubernetes11298_fixed(C& c) {
    repeat(c, [&] { Go::kubernetes11298(c, true); });
  }
};

}  // namespace wsstress::core
