// SPDX-License-Identifier: MIT OR Apache-2.0
// The scoreboard's renderings, from the one report run_scoreboard returns
// (engines/scoreboard.hpp) and its statistics: the table as text (a Markdown
// table, so the README takes it as printed), JSON, the cumulative plot as SVG
// (scoreboard_svg.cpp); html.hpp's scoreboard_html holds both in one page. They format; they
// never run anything.
#pragma once

#include <string>

#include "wsstress/matrix/scoreboard.hpp"

namespace wsstress::cli {

// What the board will run, one line.
std::string scoreboard_header_text(const matrix::ScoreboardSpec& spec, std::size_t total_runs);
// The schedules table, the seconds table, and a summary line per strategy and model.
std::string scoreboard_text(const matrix::ScoreboardReport& r);
// Schema wsstress.scoreboard/1: the spec, every cell's statistics and runs (with replay lines), the summaries.
std::string scoreboard_json(const matrix::ScoreboardReport& r);
// The cumulative plot: one panel per memory model, one line per strategy.
std::string scoreboard_svg(const matrix::ScoreboardReport& r);
// A cell of the schedules table: "median / p90 / misses"; a clean target's "pass" or "FAILED k/n".
std::string scoreboard_cell_text(const matrix::ScoreStats& s, bool expect_failure);
// 3 if a run could not be made (the tool failed), else 1 if a clean target
// failed, else 128 + the signal that stopped it, else 0.
int scoreboard_exit_code(const matrix::ScoreboardReport& r);

}  // namespace wsstress::cli
