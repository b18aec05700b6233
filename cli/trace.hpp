// Renderings of a simulated run's trace: plain text (one scheduling point a
// line, with source locations) and Chrome trace-event JSON for Perfetto (one
// lane per fiber, runs and blocked spans as slices, wake-ups as flows, pool
// events as instants).
#pragma once

#include <string>

#include "wsstress/sim/sim.hpp"

namespace wsstress::cli {

std::string trace_text(const sim::SimResult& r);
std::string trace_perfetto(const sim::SimResult& r);

}  // namespace wsstress::cli
