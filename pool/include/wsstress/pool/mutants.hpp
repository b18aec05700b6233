// The mutant policy: the second compile-time parameter of every pool template.
//
// Production uses NoMutants, whose members are all constants that leave the
// algorithms exactly as rayon-core 1.10.1 wrote them. Non-production builds
// instantiate the pool with a policy that flips one of these switches to put a
// real historical rayon-core bug back (the catalog grows with `wsstress run`), or
// turns a model knob such as the width of the jobs event counter.
#pragma once

namespace wsstress::pool {

struct NoMutants {
  // Width of the jobs event counter in bits. 0 means "every bit above the two
  // thread counters" (32 bits on 64-bit targets), as in rayon-core. A narrow JEC
  // is not a bug by itself: gate 5 and the two SeqCst fences exist precisely so
  // that a JEC which rolls over to the value a sleepy thread remembered cannot
  // lose an injected job. Models narrow it to make that case reachable.
  static constexpr unsigned kJecBits = 0;
};

}  // namespace wsstress::pool
