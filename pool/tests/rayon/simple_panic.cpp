// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// Port of rayon-core 1.10.1 tests/simple_panic.rs (own process).
#include "rayon_support.hpp"

namespace rayon_test {

// #[should_panic(expected = "should panic")]
TEST(simple_panic, simple_panic) {
  EXPECT_PANIC(join([] {}, [] { throw Panic("should panic"); }), "should panic");
}

}  // namespace rayon_test
