// SPDX-License-Identifier: MIT OR Apache-2.0
// The scoreboard's cumulative plot as SVG (scoreboard_render.hpp): one panel
// per memory model, x the schedules on a log scale from 1 to the budget, y
// the share of (target, run) pairs over the targets expected to fail whose
// first failure came within x schedules, one step line per strategy, drawn
// from matrix::found_share at every schedule count where a run found one.
// Plain SVG 1.1 with no script or external reference, so the README shows it
// and the HTML page inlines it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "scoreboard_render.hpp"

namespace wsstress::cli {

namespace {

constexpr double kPanelW = 380, kPanelH = 250, kLeft = 56, kTop = 56, kGap = 44, kBottom = 70;
constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                    "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
constexpr const char* kDashes[] = {"", "7 3", "2 2", "9 3 2 3"};

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string svg_text(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

struct Axes {
  double x0, y0;   // the panel's top left corner
  double log_max;  // log10 of the x axis' end
  double x(double v) const { return x0 + kPanelW * (v <= 1 ? 0 : std::log10(v) / log_max); }
  double y(double share) const { return y0 + kPanelH * (1 - share); }
};

// The panel's frame, grid, ticks and labels.
std::string frame(const Axes& a, std::uint64_t budget, const std::string& title) {
  std::string s = "<text x=\"" + num(a.x0) + "\" y=\"" + num(a.y0 - 10) + "\" font-weight=\"bold\">" + svg_text(title) +
                  "</text>\n";
  s += "<rect x=\"" + num(a.x0) + "\" y=\"" + num(a.y0) + "\" width=\"" + num(kPanelW) + "\" height=\"" + num(kPanelH) +
       "\" fill=\"none\" stroke=\"#444\"/>\n";
  for (int i = 0; i <= 4; ++i) {
    const double y = a.y(i / 4.0);
    s += "<line x1=\"" + num(a.x0) + "\" y1=\"" + num(y) + "\" x2=\"" + num(a.x0 + kPanelW) + "\" y2=\"" + num(y) +
         "\" stroke=\"#ddd\"/>\n<text x=\"" + num(a.x0 - 6) + "\" y=\"" + num(y + 4) + "\" text-anchor=\"end\">" +
         std::to_string(25 * i) + "%</text>\n";
  }
  for (std::uint64_t p = 1; p <= budget; p *= 10) {
    const double x = a.x(static_cast<double>(p));
    s += "<line x1=\"" + num(x) + "\" y1=\"" + num(a.y0) + "\" x2=\"" + num(x) + "\" y2=\"" + num(a.y0 + kPanelH) +
         "\" stroke=\"#ddd\"/>\n<text x=\"" + num(x) + "\" y=\"" + num(a.y0 + kPanelH + 16) +
         "\" text-anchor=\"middle\">" + std::to_string(p) + "</text>\n";
    if (p > budget / 10) break;
  }
  s += "<text x=\"" + num(a.x0 + kPanelW / 2) + "\" y=\"" + num(a.y0 + kPanelH + 34) +
       "\" text-anchor=\"middle\">schedules (log scale; budget " + std::to_string(budget) + ")</text>\n";
  return s;
}

// One strategy's step line in a panel.
std::string curve(const matrix::ScoreboardReport& r, const Axes& a, sim::StrategyKind s, sim::MemoryModel m,
                  std::size_t index) {
  std::set<std::uint64_t> steps{r.spec.budget};
  for (const matrix::ScoreCell& c : r.cells) {
    if (c.strategy != s || c.memory != m || !r.spec.targets[c.target].expect_failure) continue;
    for (const matrix::ScoreRun& run : c.runs) {
      if (run.found) steps.insert(run.schedules);
    }
  }
  const std::vector<std::uint64_t> xs(steps.begin(), steps.end());
  const std::vector<double> ys = matrix::found_share(r, s, m, xs);
  std::string d = "M" + num(a.x(1)) + " " + num(a.y(0));
  for (std::size_t i = 0; i < xs.size(); ++i) {
    d += " H" + num(a.x(static_cast<double>(xs[i]))) + " V" + num(a.y(ys[i]));
  }
  const std::string dash = kDashes[index / std::size(kColours) % std::size(kDashes)];
  return "<path d=\"" + d + "\" fill=\"none\" stroke=\"" + kColours[index % std::size(kColours)] +
         "\" stroke-width=\"2\"" + (dash.empty() ? "" : " stroke-dasharray=\"" + dash + "\"") + "><title>" +
         svg_text(sim::strategy_name(s)) + ", " + sim::memory_name(m) + ": " +
         std::to_string(static_cast<int>(std::lround(100 * (ys.empty() ? 0 : ys.back())))) +
         "% within the budget</title></path>\n";
}

std::size_t failing_targets(const matrix::ScoreboardReport& r, sim::MemoryModel m) {
  std::set<std::size_t> ts;
  for (const matrix::ScoreCell& c : r.cells) {
    if (c.memory == m && r.spec.targets[c.target].expect_failure) ts.insert(c.target);
  }
  return ts.size();
}

}  // namespace

std::string scoreboard_svg(const matrix::ScoreboardReport& r) {
  const std::size_t panels = std::max<std::size_t>(1, r.spec.memories.size());
  const double width = kLeft + panels * (kPanelW + kGap), height = kTop + kPanelH + kBottom + 24;
  std::string s =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) +
      "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(width) + " " + num(height) +
      "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s += "<text x=\"" + num(kLeft) +
       "\" y=\"20\" font-size=\"14\">Share of (mutant, run) pairs found within x schedules: " +
       std::to_string(r.spec.runs) + " runs per cell, budget " + std::to_string(r.spec.budget) + "</text>\n";
  const double log_max = std::log10(static_cast<double>(std::max<std::uint64_t>(r.spec.budget, 10)));
  for (std::size_t p = 0; p < r.spec.memories.size(); ++p) {
    const sim::MemoryModel m = r.spec.memories[p];
    const Axes a{kLeft + static_cast<double>(p) * (kPanelW + kGap), kTop, log_max};
    s += frame(a, r.spec.budget,
               std::string("memory ") + sim::memory_name(m) + " (" + std::to_string(failing_targets(r, m)) +
                   " mutants)");
    for (std::size_t k = 0; k < r.spec.strategies.size(); ++k) s += curve(r, a, r.spec.strategies[k], m, k);
  }
  double x = kLeft;  // the legend, one entry per strategy
  const double y = kTop + kPanelH + 56;
  for (std::size_t k = 0; k < r.spec.strategies.size(); ++k) {
    const std::string dash = kDashes[k / std::size(kColours) % std::size(kDashes)];
    s += "<line x1=\"" + num(x) + "\" y1=\"" + num(y) + "\" x2=\"" + num(x + 24) + "\" y2=\"" + num(y) +
         "\" stroke=\"" + kColours[k % std::size(kColours)] + "\" stroke-width=\"2\"" +
         (dash.empty() ? "" : " stroke-dasharray=\"" + dash + "\"") + "/>\n<text x=\"" + num(x + 30) + "\" y=\"" +
         num(y + 4) + "\">" + svg_text(sim::strategy_name(r.spec.strategies[k])) + "</text>\n";
    x += 40 + 8.0 * std::string(sim::strategy_name(r.spec.strategies[k])).size();
  }
  return s + "</svg>\n";
}

}  // namespace wsstress::cli
