// SPDX-License-Identifier: MIT OR Apache-2.0
// Renderers: text and JSON from the one structure each engine returns. They
// format; they never run anything.
#pragma once

#include <string>
#include <vector>

#include "exit_codes.hpp"
#include "wsstress/matrix/report.hpp"
#include "wsstress/sim/engine.hpp"
#include "wsstress/threads/campaign.hpp"

namespace wsstress::cli {

// A sweep's verdict word and exit code (exit_codes.hpp), for text, JSON and exit alike.
SweepVerdict verdict_of(const threads::CampaignReport& r) noexcept;
SweepVerdict verdict_of(const sim::SimCampaignReport& r) noexcept;

std::string run_report_text(const threads::CampaignReport& r, bool with_dumps);
std::string run_report_json(const threads::CampaignReport& r);
// One table, a column per engine (the reports are in the same mutant order).
std::string matrix_text(const std::vector<matrix::MatrixReport>& per_engine);
// The matrix's exit code: 3 if an engine could not run a row, else 1 if a row
// is not as the catalog expects, else 128 + the signal that stopped it, else 0.
int matrix_exit_code(const std::vector<matrix::MatrixReport>& per_engine, int stopped_by_signal);
// One cell of the matrix (text, HTML): how the engine caught the mutant, or what it ran.
std::string matrix_cell(const std::string& engine, const matrix::MatrixRow& row);
std::string matrix_row_text(const std::string& engine, const matrix::MatrixRow& row);
std::string matrix_json(const std::vector<matrix::MatrixReport>& per_engine);
std::string catalog_text();

// `wsstress sim`: what ran (the header and the summary line), each failure
// with its state dump, where its reproducer went, and the JSON report
// (schema wsstress.sim/1; `repro_paths` in the order of the failures).
std::string sim_report_header_text(const sim::SimCampaignReport& rep);
std::string sim_failure_text(const sim::SimFailure& f);
std::string sim_reproducer_text(const std::string& path, const sim::Repro& repro);
std::string sim_report_json(const sim::SimCampaignReport& rep, const std::vector<std::string>& repro_paths);
// A stall's explanation (Verdict::explanation; a Relacy hang's
// ModelResult::explanation) as text: "why it was never woken:" and its
// lines, or nothing.
std::string explanation_text(const std::vector<std::string>& lines);
std::string explanation_text(const core::Verdict& v);
// A trace hash as reproducers and reports print it.
std::string hash_text(std::uint64_t h);

}  // namespace wsstress::cli
