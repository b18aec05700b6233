// `wsstress smoke`: a quick end-to-end run of the production pool.
#pragma once

#include <cstddef>

namespace wsstress::cli {

struct SmokeOptions {
  std::size_t threads = 0;
  int fib = 25;
  int rounds = 5;
  int timeout_seconds = 60;
};

int run_smoke(const SmokeOptions& options);

}  // namespace wsstress::cli
