// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// Port of rayon-core 1.10.1 tests/scope_join.rs: quicksort through a join
// built from scope + spawn.
#include <algorithm>
#include <span>
#include <vector>

#include "rayon_support.hpp"

namespace rayon_test {

template <class F, class G>
void pseudo_join(F f, G g) {
  scope([&](Scope& s) {
    s.spawn([&](Scope&) { g(); });
    f();
  });
}

template <class T>
std::size_t partition(std::span<T> v) {
  const std::size_t pivot = v.size() - 1;
  std::size_t i = 0;
  for (std::size_t j = 0; j < pivot; ++j) {
    if (v[j] <= v[pivot]) {
      std::swap(v[i], v[j]);
      ++i;
    }
  }
  std::swap(v[i], v[pivot]);
  return i;
}

template <class T>
void quick_sort(std::span<T> v) {
  if (v.size() <= 1) return;
  const std::size_t mid = partition(v);
  auto lo = v.subspan(0, mid);
  auto hi = v.subspan(mid);
  pseudo_join([&] { quick_sort(lo); }, [&] { quick_sort(hi); });
}

TEST(scope_join, scope_join) {
  std::vector<int> v;
  for (int i = 255; i >= 0; --i) v.push_back(i);
  quick_sort(std::span<int>(v));
  EXPECT_TRUE(std::is_sorted(v.begin(), v.end()));
}

}  // namespace rayon_test
