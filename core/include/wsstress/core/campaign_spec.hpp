// SPDX-License-Identifier: MIT OR Apache-2.0
// What a campaign asks of any engine: one scenario over a range of seeds
// (optionally one shard of it), with one mutant, within a time budget. The
// real-thread engine (threads/campaign.hpp) and the simulator
// (sim/engine.hpp) each run it their way.
#pragma once

#include <cstdint>
#include <string>

#include "wsstress/core/scenario.hpp"
#include "wsstress/core/sweep.hpp"

namespace wsstress::core {

struct CampaignSpec {
  RunSpec run;
  SeedRange seeds;
  Shard shard;
  double max_seconds = 0;    // 0: no time budget
  std::uint64_t repeat = 1;  // runs per seed (real threads do not replay an interleaving)
  bool stop_on_failure = true;
  // After the sweep, run the clean pool over the same seeds and compare the
  // parallelism figures (only with a mutant, and only if the sweep passed).
  bool control = false;
  std::string program = "wsstress";  // how the replay command names the tool
};

}  // namespace wsstress::core
