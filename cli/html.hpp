// SPDX-License-Identifier: MIT OR Apache-2.0
// Offline HTML reports: one self-contained file, no
// network, that a browser opens from disk. A simulated run's report shows its
// verdict, how to replay it, a timeline of its interleaving drawn from the
// same Timeline as the Perfetto trace (one lane per fiber, runs, blocked spans,
// wake-ups, and the fibers nothing woke, in red), each worker's last event of
// the sleep module, and the state dump. Opened with #selftest, the page reads
// back the pixels it drew and says what it found (the headless-Chromium test).
#pragma once

#include <string>
#include <vector>

#include "wsstress/matrix/report.hpp"
#include "wsstress/matrix/scoreboard.hpp"
#include "wsstress/sim/sim.hpp"

namespace wsstress::cli {

struct HtmlRunHeader {
  std::string title;   // e.g. "sim: scenario join, mutant late_is_blocked_lock, seed 7"
  std::string replay;  // the command that replays the run
};

std::string sim_html(const sim::SimResult& r, const HtmlRunHeader& header);

// The mutant matrix as a table coloured by outcome, each catch with its replay command.
std::string matrix_html(const std::vector<matrix::MatrixReport>& per_engine);

// The scoreboard: its cumulative plot (inline SVG) and its table, each cell
// carrying the replay command of its median run.
std::string scoreboard_html(const matrix::ScoreboardReport& r);

}  // namespace wsstress::cli
