// Renderers: text and JSON from the one structure each engine returns. They
// format; they never run anything.
#pragma once

#include <string>

#include "wsstress/stress/campaign.hpp"
#include "wsstress/stress/matrix.hpp"

namespace wsstress::cli {

std::string run_report_text(const stress::CampaignReport& r, bool with_dumps);
std::string run_report_json(const stress::CampaignReport& r);
std::string matrix_text(const stress::MatrixReport& m);
std::string matrix_row_text(const stress::MatrixRow& row);
std::string matrix_json(const stress::MatrixReport& m);
std::string catalog_text();

// Writes `text` to `path` atomically (a temporary file in the same folder,
// then rename). Returns an error message, or empty on success.
std::string write_atomically(const std::string& path, const std::string& text);

}  // namespace wsstress::cli
