// The subcommands behind `wsstress`, each taking its parsed options. main.cpp
// owns all CLI11 parsing (one slow-to-compile translation unit).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wsstress/stress/campaign.hpp"
#include "wsstress/stress/matrix.hpp"

namespace wsstress::cli {

struct RunOptions {
  stress::CampaignSpec campaign;
  std::string json_path;  // empty: none
  bool quiet = false;
};
int run_command(const RunOptions& o);

int mutants_list_command();

struct CheckOptions {
  stress::MatrixSpec matrix;
  std::string json_path;
};
int mutants_check_command(const CheckOptions& o);

// "A..B" (inclusive) or "N"; false with a message on bad text.
bool parse_seed_range(const std::string& text, stress::SeedRange& out, std::string& error);
// "I/N" with 0 <= I < N.
bool parse_shard(const std::string& text, stress::Shard& out, std::string& error);

}  // namespace wsstress::cli
