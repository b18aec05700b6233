// SPDX-License-Identifier: MIT OR Apache-2.0
// The words of the simulator's memory models (sc, tso, cpp), as reproducers,
// reports and the CLI spell them. In the parsers library, apart from
// simulate.cpp, so that reproducers parse without the scheduler.
#include "wsstress/sim/sim.hpp"

namespace wsstress::sim {

const char* memory_name(MemoryModel m) noexcept {
  switch (m) {
    case MemoryModel::SC: return "sc";
    case MemoryModel::TSO: return "tso";
    case MemoryModel::CPP: return "cpp";
  }
  return "?";
}

std::vector<std::string> memory_names() {
  std::vector<std::string> out;
  for (MemoryModel m : kMemoryModels) out.emplace_back(memory_name(m));
  return out;
}

std::optional<MemoryModel> parse_memory(std::string_view word) noexcept {
  for (MemoryModel m : kMemoryModels) {
    if (word == memory_name(m)) return m;
  }
  return std::nullopt;
}

}  // namespace wsstress::sim
