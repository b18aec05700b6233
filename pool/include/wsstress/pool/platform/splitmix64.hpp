// SPDX-License-Identifier: MIT OR Apache-2.0
// The tree's one seeded generator: splitmix64 (Steele, Lea and Flood, "Fast
// splittable pseudorandom number generators", 2014). Every seeded choice the
// tools make (program shapes, noise, the simulator's schedules, test shapes)
// and StdPlatform's worker seeds come from it, so a seed means the same stream
// everywhere. rayon-core's own victim-choosing XorShift64Star stays in the
// registry, as in the original.
#pragma once

#include <cstdint>

namespace wsstress {

class SplitMix64 {
 public:
  static constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ull;

  // The output function: a bijection of a 64-bit word.
  static constexpr std::uint64_t mix(std::uint64_t z) noexcept {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  constexpr explicit SplitMix64(std::uint64_t seed = 0) noexcept : state_(seed) {}

  constexpr std::uint64_t next() noexcept { return mix(state_ += kGolden); }
  // Uniform enough below n for schedules and shapes (n is small); 0 for n == 0.
  constexpr std::uint64_t below(std::uint64_t n) noexcept { return n == 0 ? 0 : next() % n; }
  constexpr bool chance(unsigned one_in) noexcept { return below(one_in) == 0; }
  // An independent stream for a sub-task, drawn from this one.
  constexpr SplitMix64 fork() noexcept { return SplitMix64(next()); }

 private:
  std::uint64_t state_;
};

}  // namespace wsstress
