// The subcommands behind `wsstress`, each taking its parsed options. main.cpp
// owns all CLI11 parsing (one slow-to-compile translation unit).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wsstress/sim/engine.hpp"
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

struct SimOptions {
  sim::SimCampaignSpec campaign;
  std::string json_path, repro_path, trace_out;
  bool trace = false, shrink = false, quiet = false;
};
int sim_command(const SimOptions& o);

struct ReplayOptions {
  std::string file, trace_out;
  bool trace = false, shrink = false;
};
int replay_command(const ReplayOptions& o);

struct CheckOptions {
  stress::MatrixSpec matrix;        // its engine is set per engine below
  std::vector<std::string> engines; // stress, sim-sc, sim-tso
  std::string json_path;
};
int mutants_check_command(const CheckOptions& o);

struct RelacyOptions {
  std::vector<std::string> models;          // empty: every model
  std::string mutant;                       // empty or "none": the clean pool; "all": every targeted mutant
  std::optional<std::string> search;        // random, bound, full (default: each model's own)
  std::optional<unsigned> bound;
  std::optional<std::uint64_t> iterations;
  double time_limit = 300;                  // per search
  double memory_limit = 8;                  // GiB per search
  std::string json_path, trace_out;
  bool list = false, quiet = false, full_trace = false;
};
int relacy_command(const RelacyOptions& o);

struct FuzzOptions {
  std::string target = "schedule";  // program | schedule
  double time_s = 60;
  double hang_timeout_s = 10;        // program_fuzzer's watchdog
  unsigned jobs = 1;
  std::string mutant = "none";
  std::string convert;               // a crash file to turn into a reproducer instead of fuzzing
  std::string repro_path;            // --convert: where (default: FILE.repro)
  std::string fuzz_bin;              // the fuzz targets' folder (default: ../fuzz from this wsstress)
  std::string out_dir = "wsstress-fuzz";
  std::string json_path;
  std::uint64_t runs = 0, seed = 0;
  bool quiet = false;
  std::string self;
};
int fuzz_command(const FuzzOptions& o);

// "A..B" (inclusive) or "N"; false with a message on bad text.
bool parse_seed_range(const std::string& text, stress::SeedRange& out, std::string& error);
// "I/N" with 0 <= I < N.
bool parse_shard(const std::string& text, stress::Shard& out, std::string& error);

}  // namespace wsstress::cli
