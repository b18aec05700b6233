// SPDX-License-Identifier: MIT OR Apache-2.0
// A program outside the project that uses the installed pool: a parallel
// quicksort with join, a nested install into a second pool, a scope of spawns
// and a panic handler. It prints "consumer: ok" only if every answer is right.
#include <wsstress/pool.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

static void quicksort(int* v, std::size_t n) {
  if (n <= 32) {
    std::sort(v, v + n);
    return;
  }
  const int pivot = v[n / 2];
  int* mid = std::partition(v, v + n, [pivot](int x) { return x < pivot; });
  int* hi = std::partition(mid, v + n, [pivot](int x) { return x == pivot; });
  wsstress::join([&] { quicksort(v, static_cast<std::size_t>(mid - v)); },
                 [&] { quicksort(hi, static_cast<std::size_t>(v + n - hi)); });
}

int main() {
  std::atomic<int> panics{0};
  wsstress::ThreadPool a(
      wsstress::ThreadPoolBuilder().num_threads(2).panic_handler([&](std::exception_ptr) { panics.fetch_add(1); }));
  wsstress::ThreadPool b(wsstress::ThreadPoolBuilder().num_threads(2));

  std::vector<int> v(100000);
  std::mt19937 rng(1);
  for (int& x : v) x = static_cast<int>(rng() % 1000);
  a.install([&] { quicksort(v.data(), v.size()); });
  const bool sorted = std::is_sorted(v.begin(), v.end());

  // From a worker of a into b and back: the cross-pool path.
  const int nested = a.install([&] { return b.install([] { return 20; }) + 22; });

  std::atomic<int> spawned{0};
  a.install([&] {
    wsstress::scope([&](wsstress::Scope& s) {
      for (int i = 1; i <= 100; ++i) s.spawn([&spawned, i](wsstress::Scope&) { spawned.fetch_add(i); });
    });
  });

  a.spawn([] { throw std::runtime_error("to the panic handler"); });
  while (panics.load() == 0) std::this_thread::yield();

  const bool ok = sorted && nested == 42 && spawned.load() == 5050 && panics.load() == 1;
  std::printf("consumer: %s (sorted %d, nested %d, spawned %d, panics %d)\n", ok ? "ok" : "WRONG", sorted, nested,
              spawned.load(), panics.load());
  return ok ? 0 : 1;
}
