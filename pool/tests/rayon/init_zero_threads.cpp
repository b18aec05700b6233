// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// Port of rayon-core 1.10.1 tests/init_zero_threads.rs (own process).
#include "rayon_support.hpp"

namespace rayon_test {

TEST(init_zero_threads, init_zero_threads) { EXPECT_NO_THROW(ThreadPoolBuilder().num_threads(0).build_global()); }

}  // namespace rayon_test
