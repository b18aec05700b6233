// SPDX-License-Identifier: MIT OR Apache-2.0
// Unit tests of the CLI's small helpers: the bounded echo of a user
// value (item 9), the per-seed output names of `sim --keep-going` (item 3), the
// short source path that takes the last `wsstress/` (item 12).
#include <gtest/gtest.h>

#include <string>

#include "../sim_outputs.hpp"
#include "wsstress/core/shown.hpp"
#include "wsstress/core/source_path.hpp"

namespace {

TEST(Shown, ShortValueIsQuotedWhole) { EXPECT_EQ(wsstress::shown("5 "), "'5 '"); }

TEST(Shown, HugeValueIsCutAndMeasured) {
  const std::string huge(100 * 1024 * 1024, 'x');
  const std::string s = wsstress::shown(huge);
  EXPECT_LT(s.size(), 200u);
  EXPECT_NE(s.find("(104857600 bytes)"), std::string::npos) << s;
}

TEST(Shown, ControlCharactersKeepOneLine) { EXPECT_EQ(wsstress::shown("a\nb"), "'a?b'"); }

TEST(Shown, CutsAtACharacterBoundary) {
  std::string v(wsstress::kShownBytes - 1, 'a');
  v += "\xc3\xa9tail";  // a two-byte character across the cut
  for (int i = 0; i < 100; ++i) v += 'z';
  const std::string s = wsstress::shown(v);
  EXPECT_EQ(s.substr(0, wsstress::kShownBytes + 1), "'" + std::string(wsstress::kShownBytes - 1, 'a') + ".");
}

TEST(Shown, BoundedLineCutsLongWordsOnly) {
  const std::string line = "The following argument was not expected: " + std::string(100000, 'y');
  const std::string b = wsstress::bounded_line(line);
  EXPECT_LT(b.size(), 250u);
  EXPECT_EQ(b.rfind("The following argument was not expected: yyy", 0), 0u);
  EXPECT_EQ(wsstress::bounded_line(wsstress::shown(std::string(500, 'q'))), wsstress::shown(std::string(500, 'q')));
}

TEST(PerSeedPath, SeedBeforeTheExtension) {
  using wsstress::cli::per_seed_path;
  EXPECT_EQ(per_seed_path("one.repro", 17), "one.seed-17.repro");
  EXPECT_EQ(per_seed_path("out.d/trace.json", 3), "out.d/trace.seed-3.json");
  EXPECT_EQ(per_seed_path("out.d/notes", 3), "out.d/notes.seed-3");
  EXPECT_EQ(per_seed_path(".hidden", 3), ".hidden.seed-3");
  EXPECT_EQ(per_seed_path("-", 3), "-");
}

TEST(ShortSource, TakesTheLastWsstress) {
  EXPECT_EQ(wsstress::short_source("/home/me/wsstress/pool/include/wsstress/pool/deque.hpp"),
            "wsstress/pool/deque.hpp");
  EXPECT_EQ(wsstress::short_source("pool/include/wsstress/pool/sleep/sleep.hpp"), "wsstress/pool/sleep/sleep.hpp");
  EXPECT_EQ(wsstress::short_source("/usr/include/c++/12/bits/unique_lock.h"), "unique_lock.h");
}

}  // namespace
