// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// Port of rayon-core 1.10.1 tests/double_init_fail.rs (own process: it builds
// the global pool).
#include "rayon_support.hpp"

namespace rayon_test {

TEST(double_init_fail, double_init_fail) {
  EXPECT_NO_THROW(ThreadPoolBuilder().build_global());
  try {
    ThreadPoolBuilder().build_global();
    ADD_FAILURE() << "second build_global succeeded";
  } catch (const ThreadPoolBuildError& err) {
    EXPECT_FALSE(err.code());  // err.source().is_none()
    EXPECT_STREQ(err.what(), "The global thread pool has already been initialized.");
  }
}

}  // namespace rayon_test
