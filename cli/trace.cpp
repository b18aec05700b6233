// Trace renderers (see trace.hpp). Timestamps are scheduling steps, shown in
// Perfetto as microseconds.
#include "trace.hpp"

#include <cstdio>
#include <map>
#include <set>
#include <vector>
#include <nlohmann/json.hpp>

#include "wsstress/pool/trace.hpp"

namespace wsstress::cli {

namespace {
std::string short_file(const char* f) {
  std::string s = f ? f : "";
  const auto at = s.find("wsstress/");
  if (at != std::string::npos) return s.substr(at);
  const auto slash = s.rfind('/');
  return slash == std::string::npos ? s : s.substr(slash + 1);
}
std::string fiber_name(const sim::SimResult& r, std::uint32_t id) {
  return id < r.fiber_names.size() ? r.fiber_names[id] : "fiber#" + std::to_string(id);
}
}  // namespace

std::string trace_text(const sim::SimResult& r) {
  std::string out;
  char line[512];
  for (const sim::TracePoint& p : r.trace) {
    if (p.op == sim::Op::Event) {
      std::snprintf(line, sizeof line, "%8llu  %-14s   event %s  (%s:%u)\n", static_cast<unsigned long long>(p.step),
                    fiber_name(r, p.fiber).c_str(), pool::to_string(static_cast<pool::EventKind>(p.detail)),
                    short_file(p.file).c_str(), p.line);
    } else if (p.op == sim::Op::Wake) {
      std::snprintf(line, sizeof line, "%8llu  %-14s   wakes %s\n", static_cast<unsigned long long>(p.step),
                    fiber_name(r, p.fiber).c_str(), fiber_name(r, static_cast<std::uint32_t>(p.detail)).c_str());
    } else {
      std::snprintf(line, sizeof line, "%8llu  %-14s %-7s %s:%u\n", static_cast<unsigned long long>(p.step),
                    fiber_name(r, p.fiber).c_str(), sim::to_string(p.op), short_file(p.file).c_str(), p.line);
    }
    out += line;
  }
  return out;
}

std::string trace_perfetto(const sim::SimResult& r) {
  using nlohmann::json;
  json events = json::array();
  events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"args", {{"name", "wsstress sim"}}}});
  for (std::uint32_t i = 0; i < r.fiber_names.size(); ++i) {
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", i}, {"args", {{"name", r.fiber_names[i]}}}});
  }
  // Runs: consecutive points of one fiber form one slice. Blocking ops open a
  // "blocked" span that ends at the fiber's next point.
  std::map<std::uint32_t, std::uint64_t> last_step;
  std::map<std::uint32_t, sim::Op> last_op;
  std::uint64_t flow_id = 1;
  // Woken fiber -> the flows (wake arrows) waiting for its next run: a fiber
  // can be woken twice before it runs (a notify, then the mutex's release).
  std::map<std::uint32_t, std::vector<std::uint64_t>> pending_flow;
  for (const sim::TracePoint& p : r.trace) {
    const double ts = static_cast<double>(p.step);
    if (p.op == sim::Op::Event) {
      events.push_back({{"name", pool::to_string(static_cast<pool::EventKind>(p.detail))},
                        {"ph", "i"}, {"s", "t"}, {"pid", 1}, {"tid", p.fiber}, {"ts", ts},
                        {"args", {{"at", short_file(p.file) + ":" + std::to_string(p.line)}}}});
      continue;
    }
    if (p.op == sim::Op::Wake) {
      const std::uint64_t id = flow_id++;
      events.push_back({{"name", "wake"}, {"ph", "s"}, {"cat", "wake"}, {"id", id}, {"pid", 1}, {"tid", p.fiber}, {"ts", ts}});
      pending_flow[static_cast<std::uint32_t>(p.detail)].push_back(id);
      continue;
    }
    auto lo = last_op.find(p.fiber);
    if (lo != last_op.end() && (lo->second == sim::Op::Wait || lo->second == sim::Op::Join || lo->second == sim::Op::Sleep) &&
        last_step[p.fiber] + 1 < p.step) {
      const double from = static_cast<double>(last_step[p.fiber] + 1);
      events.push_back({{"name", std::string("blocked (") + sim::to_string(lo->second) + ")"}, {"ph", "X"}, {"pid", 1},
                        {"tid", p.fiber}, {"ts", from}, {"dur", ts - from}, {"cat", "state"}});
    }
    events.push_back({{"name", std::string(sim::to_string(p.op)) + " " + short_file(p.file) + ":" + std::to_string(p.line)},
                      {"ph", "X"}, {"pid", 1}, {"tid", p.fiber}, {"ts", ts}, {"dur", 1.0}, {"cat", "run"}});
    if (auto f = pending_flow.find(p.fiber); f != pending_flow.end()) {
      for (std::uint64_t id : f->second) {
        events.push_back({{"name", "wake"}, {"ph", "f"}, {"bp", "e"}, {"cat", "wake"}, {"id", id}, {"pid", 1},
                          {"tid", p.fiber}, {"ts", ts}});
      }
      pending_flow.erase(f);
    }
    last_step[p.fiber] = p.step;
    last_op[p.fiber] = p.op;
  }
  // A wake whose fiber never ran again (the run ended first) has no arrow
  // head; an arrow that starts and ends nowhere would only confuse.
  std::set<std::uint64_t> unended;
  for (const auto& [fiber, ids] : pending_flow) unended.insert(ids.begin(), ids.end());
  json kept = json::array();
  for (json& e : events) {
    if (!(e["ph"] == "s" && unended.count(e["id"].get<std::uint64_t>()))) kept.push_back(std::move(e));
  }
  return json{{"traceEvents", kept}, {"displayTimeUnit", "ns"}}.dump() + "\n";
}

}  // namespace wsstress::cli
