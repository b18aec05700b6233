// Unit tests of the CLI's small helpers (issue #39): the short source path that
// takes the last `wsstress/` (item 12).
#include <gtest/gtest.h>

#include <string>

#include "wsstress/source_path.hpp"

namespace {

TEST(ShortSource, TakesTheLastWsstress) {
  EXPECT_EQ(wsstress::short_source("/home/me/wsstress/pool/include/wsstress/pool/deque.hpp"), "wsstress/pool/deque.hpp");
  EXPECT_EQ(wsstress::short_source("pool/include/wsstress/pool/sleep/sleep.hpp"), "wsstress/pool/sleep/sleep.hpp");
  EXPECT_EQ(wsstress::short_source("/usr/include/c++/12/bits/unique_lock.h"), "unique_lock.h");
}

}  // namespace
