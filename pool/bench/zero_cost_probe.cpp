// SPDX-License-Identifier: MIT OR Apache-2.0
// Probe for the zero-cost check (check_zero_cost.sh): join's fast path in the
// production instantiation. The check disassembles this object and requires
// that no tracing or invariant-check symbol is referenced anywhere in it.
#include "wsstress/pool.hpp"

extern "C" int wsstress_probe_join() {
  auto [a, b] = wsstress::join([] { return 1; }, [] { return 2; });
  return a + b;
}

extern "C" int wsstress_probe_install(wsstress::ThreadPool& pool) {
  return pool.install([] { return 3; });
}
