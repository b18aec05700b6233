// SPDX-License-Identifier: MIT OR Apache-2.0
// The offline HTML reports (see html.hpp). The page is static HTML and CSS
// with the timeline's data as JSON in a script element and a small script that
// draws it on a canvas: no external resource, so it opens without a network.
#include "html.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "report.hpp"
#include "scoreboard_render.hpp"
#include "timeline.hpp"
#include "wsstress/matrix/engine.hpp"

namespace wsstress::cli {

namespace {

std::string escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// JSON inside <script>: "</" would end the element early.
std::string script_json(const nlohmann::json& j) {
  std::string s = j.dump();
  for (std::size_t at = 0; (at = s.find("</", at)) != std::string::npos; at += 3) s.replace(at, 2, "<\\/");
  return s;
}

// The steps a page draws at most: the last ones, where a run ended (a
// livelock's trace can hold millions).
constexpr std::uint64_t kMaxSteps = 20000;

nlohmann::json timeline_json(const Timeline& t) {
  using nlohmann::json;
  const std::uint64_t start = t.end > kMaxSteps ? t.end - kMaxSteps : 0;
  json lanes = json::array(), runs = json::array(), blocked = json::array(), wakes = json::array();
  for (const auto& l : t.lanes) lanes.push_back({{"name", l.name}, {"sleep", l.sleep_state}});
  for (const auto& r : t.runs) {
    if (r.step >= start) runs.push_back({r.fiber, r.step});
  }
  for (const auto& b : t.blocked) {
    if (b.to >= start) blocked.push_back({b.fiber, std::max(b.from, start), b.to, b.op, b.to_end});
  }
  for (const auto& w : t.wakes) {
    if (w.arrived && w.step >= start) wakes.push_back({w.from, w.to, w.step, w.arrives});
  }
  json missed = json::array(), preempted = json::array();
  for (const auto& m : t.missed_wakes) {
    if (m.step >= start) missed.push_back({m.fiber, m.step});
  }
  for (const auto& m : t.preemptions) {
    if (m.step >= start) preempted.push_back({m.fiber, m.step});
  }
  return {{"lanes", lanes},   {"runs", runs},           {"blocked", blocked}, {"wakes", wakes},
          {"missed", missed}, {"preempted", preempted}, {"start", start},     {"end", t.end}};
}

const char* kStyle = R"(body{font:14px system-ui,sans-serif;margin:24px;color:#222}
h1{font-size:20px}h1.pass{color:#1a7f37}h1.fail{color:#b3261e}
code,pre{font:12px ui-monospace,monospace;background:#f5f5f5;padding:2px 4px}
pre{padding:8px;overflow-x:auto;max-height:480px}
.legend span{display:inline-block;margin-right:16px}.sw{width:12px;height:12px;display:inline-block;vertical-align:middle;margin-right:4px}
#wrap{overflow-x:auto;border:1px solid #ddd}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;font-size:13px;text-align:left}
td.caught{background:#d7f5dd}td.clean{background:#eee}td.unexpected{background:#f9c9c5}td.error{background:#fde2b8}td.nm{color:#999}
td.incomplete{background:#fff3c4}
)";

// Draws the timeline; with #selftest, reads its own pixels back into #selftest.
const char* kScript = R"(
const T = JSON.parse(document.getElementById('timeline').textContent);
const LANE = 24, LABEL = 170, RIGHT = 360, steps = T.end - T.start + 2;
const scale = Math.min(6, 780 / steps);  // the whole run fits a 1400-pixel window, labels included
const cv = document.getElementById('tl');
cv.width = Math.min(32000, Math.ceil(LABEL + steps * scale + RIGHT));
cv.height = T.lanes.length * LANE + 10;
const g = cv.getContext('2d');
const x = s => LABEL + (s - T.start) * scale, y = f => 5 + f * LANE;
const COL = {lane: '#f3f3f3', run: '#1f6feb', blocked: '#e3a008', stuck: '#d93025', wake: '#1a7f37', preempt: '#8250df', missed: '#b3261e'};
g.font = '12px sans-serif';
T.lanes.forEach((l, i) => {
  if (i % 2 === 0) { g.fillStyle = COL.lane; g.fillRect(0, y(i), cv.width, LANE); }
  g.fillStyle = '#222'; g.fillText(l.name, 6, y(i) + 16);
});
T.blocked.forEach(([f, from, to, op, end]) => {
  g.fillStyle = end ? COL.stuck : COL.blocked;
  // A fiber nothing woke is marked at least 8 pixels wide: it is the finding.
  g.fillRect(x(from), y(f) + (end ? 5 : 9), Math.max(end ? 8 : 2, (to - from) * scale), end ? 14 : 5);
});
T.runs.forEach(([f, s]) => { g.fillStyle = COL.run; g.fillRect(x(s), y(f) + 4, Math.max(1.5, scale), LANE - 8); });
g.strokeStyle = COL.wake; g.lineWidth = 1;
T.wakes.forEach(([from, to, s, a]) => {
  g.beginPath(); g.moveTo(x(s), y(from) + LANE / 2); g.lineTo(x(a), y(to) + LANE / 2); g.stroke();
});
// A preemption: a purple tick above the lane; a wake-up that found nobody blocked: a red cross.
g.fillStyle = COL.preempt;
T.preempted.forEach(([f, s]) => { g.beginPath(); g.moveTo(x(s), y(f) + 1); g.lineTo(x(s) + 4, y(f) + 1); g.lineTo(x(s) + 2, y(f) + 5); g.fill(); });
g.strokeStyle = COL.missed; g.lineWidth = 2;
T.missed.forEach(([f, s]) => {
  g.beginPath(); g.moveTo(x(s) - 4, y(f) + 8); g.lineTo(x(s) + 4, y(f) + 16); g.moveTo(x(s) + 4, y(f) + 8); g.lineTo(x(s) - 4, y(f) + 16); g.stroke();
});
const right = LABEL + steps * scale + 8;
T.lanes.forEach((l, i) => {
  const stuck = T.blocked.some(b => b[0] === i && b[4]);
  g.fillStyle = stuck ? COL.stuck : '#555';
  const gate = l.sleep.replace(/ at .*\//, ' at ');  // the file's name, not its folders
  g.fillText((stuck ? 'never woken' : '') + (stuck && gate ? ' - ' : '') + gate, right, y(i) + 16);
});
if (location.hash === '#selftest') {
  const px = g.getImageData(0, 0, cv.width, cv.height).data;
  const is = (i, r, gg, b) => Math.abs(px[i] - r) < 8 && Math.abs(px[i + 1] - gg) < 8 && Math.abs(px[i + 2] - b) < 8;
  let lanes = 0, red = 0;
  for (let f = 0; f < T.lanes.length; ++f) {
    const row = (y(f) + LANE / 2) * cv.width * 4;
    let seen = false;
    for (let c = LABEL; c < right && !seen; ++c) seen = is(row + c * 4, 0x1f, 0x6f, 0xeb);
    if (seen) ++lanes;
  }
  for (let i = 0; i < px.length; i += 4) if (is(i, 0xd9, 0x30, 0x25)) ++red;
  const withRuns = new Set(T.runs.map(r => r[0])).size;
  const stuck = new Set(T.blocked.filter(b => b[4]).map(b => b[0])).size;
  document.getElementById('selftest').textContent =
    `selftest: lanes drawn ${lanes} of ${withRuns}; never woken ${stuck}; red pixels ${red}`;
}
)";

std::string page(const std::string& title, const std::string& body) {
  return "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + escape(title) +
         "</title>\n<style>" + kStyle + "</style></head>\n<body>\n" + body + "</body></html>\n";
}

}  // namespace

std::string sim_html(const sim::SimResult& r, const HtmlRunHeader& h) {
  const bool pass = r.verdict.kind == core::VerdictKind::Pass;
  const Timeline t = build_timeline(r);
  std::string body = std::string("<h1 class=\"") + (pass ? "pass" : "fail") +
                     "\">verdict: " + core::verdict_name(r.verdict.kind) +
                     (r.verdict.message.empty() ? "" : ": " + escape(r.verdict.message)) + "</h1>\n<p>" +
                     escape(h.title) + "; " + std::to_string(r.steps) + " scheduling points</p>\n";
  if (!h.replay.empty()) body += "<p>replay: <code>" + escape(h.replay) + "</code></p>\n";
  body += "<h2>Timeline</h2>\n";
  if (t.end > kMaxSteps)
    body += "<p>the last " + std::to_string(kMaxSteps) + " of " + std::to_string(t.end) + " steps</p>\n";
  body +=
      "<p class=\"legend\"><span><i class=\"sw\" style=\"background:#1f6feb\"></i>runs</span>"
      "<span><i class=\"sw\" style=\"background:#e3a008\"></i>blocked (wait, join, sleep)</span>"
      "<span><i class=\"sw\" style=\"background:#1a7f37\"></i>wake-up</span>"
      "<span><i class=\"sw\" style=\"background:#d93025\"></i>blocked to the end: never woken (a lost wake-up)</span>"
      "<span><i class=\"sw\" style=\"background:#8250df\"></i>preempted (the strategy switched away)</span>"
      "<span><i class=\"sw\" style=\"background:#b3261e\"></i>&times; a wake-up that found nobody blocked</span>"
      "<span>right: each fiber's last sleep-module event (the gate of sleep() it reached)</span></p>\n"
      "<div id=\"wrap\"><canvas id=\"tl\"></canvas></div>\n<p id=\"selftest\"></p>\n";
  if (!r.verdict.explanation.empty()) {
    std::string why;
    for (const std::string& line : r.verdict.explanation) why += line + "\n";
    body += "<h2>Why it was never woken</h2>\n<pre class=\"why\">" + escape(why) + "</pre>\n";
  }
  if (!r.verdict.dump.empty())
    body += "<h2>State when it was detected</h2>\n<pre>" + escape(r.verdict.dump) + "</pre>\n";
  body += "<script type=\"application/json\" id=\"timeline\">" + script_json(timeline_json(t)) + "</script>\n<script>" +
          kScript + "</script>\n";
  return page("wsstress: " + std::string(core::verdict_name(r.verdict.kind)) + " - " + h.title, body);
}

std::string matrix_html(const std::vector<matrix::MatrixReport>& per_engine) {
  std::string body = "<h1>wsstress mutant matrix</h1>\n";
  if (per_engine.empty()) return page("wsstress mutant matrix", body);
  const auto& first = per_engine.front();
  char budget[32];
  std::snprintf(budget, sizeof budget, "%g", first.spec.budget_s);
  body += std::string("<p>budget ") + budget +
          " s per mutant and engine; green caught, grey clean, "
          "red not as the catalog expects, orange an engine error, yellow incomplete (a search stopped at its "
          "limit)</p>\n<table>\n<tr><th>mutant</th><th>scenario</th>";
  for (const auto& m : per_engine) body += "<th>" + escape(m.spec.engine) + "</th>";
  body += "</tr>\n";
  for (std::size_t i = 0; i < first.rows.size(); ++i) {
    body += "<tr><td>" + escape(first.rows[i].mutant.name) + "</td><td>" + escape(first.rows[i].scenario) + "</td>";
    for (const auto& m : per_engine) {
      if (i >= m.rows.size()) {
        body += "<td></td>";
        continue;
      }
      const auto& row = m.rows[i];
      const char* cls = row.outcome.rfind("error", 0) == 0 ? "error"
                        : !row.as_expected                 ? "unexpected"
                        : row.outcome == "not modelled"    ? "nm"
                        : matrix::is_incomplete(row)       ? "incomplete"
                        : row.caught                       ? "caught"
                                                           : "clean";
      body += std::string("<td class=\"") + cls + "\">" + escape(matrix_cell(m.spec.engine, row));
      if (row.caught && !row.replay.empty()) body += "<br><code>" + escape(row.replay) + "</code>";
      body += "</td>";
    }
    body += "</tr>\n";
  }
  return page("wsstress mutant matrix", body + "</table>\n");
}

std::string scoreboard_html(const matrix::ScoreboardReport& r) {
  std::string body = "<h1>wsstress scoreboard</h1>\n<p>" +
                     escape(scoreboard_header_text(r.spec, r.cells.size() * r.spec.runs)) + "; " +
                     std::to_string(r.cells.size()) + " cells in " + std::to_string(static_cast<long>(r.elapsed_s)) +
                     " s</p>\n";
  std::string svg = scoreboard_svg(r);
  svg.erase(0, svg.find("<svg"));  // inline: no XML prolog
  body += svg + "<p>Each cell: median / 90th percentile of the schedules to the first failure / runs that missed "
                "within the budget (-: beyond it); hover for the median run's replay command.</p>\n<table>\n"
                "<tr><th>target</th><th>memory</th>";
  for (auto s : r.spec.strategies) body += "<th>" + escape(sim::strategy_name(s)) + "</th>";
  body += "</tr>\n";
  for (std::size_t t = 0; t < r.spec.targets.size(); ++t) {
    const matrix::ScoreTarget& target = r.spec.targets[t];
    for (sim::MemoryModel m : r.spec.memories) {
      std::string row;
      for (sim::StrategyKind s : r.spec.strategies) {
        const matrix::ScoreCell* c = matrix::find_cell(r, t, s, m);
        if (c == nullptr) {
          row += "<td></td>";
          continue;
        }
        const matrix::ScoreStats st = matrix::score_stats(*c, target);
        std::string replay;  // the run at the median, if it found one
        for (const matrix::ScoreRun& run : c->runs) {
          if (run.found && st.median && run.schedules == *st.median) replay = run.replay;
        }
        const char* cls = !st.unexpected.empty() ? "unexpected" : st.misses == st.runs ? "clean" : "caught";
        row += std::string("<td class=\"") + cls + "\" title=\"" + escape(replay) + "\">" +
               escape(scoreboard_cell_text(st, target.expect_failure)) + "</td>";
      }
      if (row.find("<td class") == std::string::npos) continue;
      body += "<tr><td>" + escape(target.name) + "</td><td>" + sim::memory_name(m) + "</td>" + row + "</tr>\n";
    }
  }
  body += "</table>\n<h2>Summary (targets expected to fail)</h2>\n<pre>";
  for (const matrix::StrategySummary& s : matrix::strategy_summaries(r)) {
    body +=
        escape(std::string(sim::memory_name(s.memory)) + " " + sim::strategy_name(s.strategy) + ": found " +
               std::to_string(s.found) + "/" + std::to_string(s.runs) + " runs, " + std::to_string(s.always_found) +
               "/" + std::to_string(s.targets) + " targets in every run, best median on " + std::to_string(s.best)) +
        "\n";
  }
  return page("wsstress scoreboard", body + "</pre>\n");
}

}  // namespace wsstress::cli
