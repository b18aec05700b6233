// SPDX-License-Identifier: MIT OR Apache-2.0
// Trace renderers (see timeline.hpp). Timestamps are scheduling steps, shown in
// Perfetto as microseconds.
#include "timeline.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "wsstress/core/source_path.hpp"
#include "wsstress/pool/trace.hpp"

namespace wsstress::cli {

namespace {
std::string short_file(const char* f) { return short_source(f ? f : ""); }
std::string fiber_name(const sim::SimResult& r, std::uint32_t id) {
  return id < r.fiber_names.size() ? r.fiber_names[id] : "fiber#" + std::to_string(id);
}
// An event's kind, with the gate it is about to pass named (sleep/README.md §2).
std::string event_name(const sim::TracePoint& p) {
  const auto kind = static_cast<pool::EventKind>(p.detail);
  std::string name = pool::event_kind_name(kind);
  if (kind == pool::EventKind::ThreadSleepGate) name += std::string(": ") + pool::gate_name(p.arg);
  return name;
}
// The sleep module's objects, named from the events that carry their
// addresses (gate 2: the is_blocked mutex; ThreadSleeping: its condvar).
std::map<std::uint64_t, std::string> object_names(const sim::SimResult& r) {
  std::map<std::uint64_t, std::string> names;
  for (const sim::TracePoint& p : r.trace) {
    if (p.op != sim::Op::Event || p.arg2 == 0) continue;
    const auto kind = static_cast<pool::EventKind>(p.detail);
    if (kind == pool::EventKind::ThreadSleepGate && p.arg == 2)
      names[p.arg2] = "is_blocked mutex of " + fiber_name(r, p.fiber);
    if (kind == pool::EventKind::ThreadSleeping) names[p.arg2] = "is_blocked condvar of " + fiber_name(r, p.fiber);
  }
  return names;
}
bool on_object(sim::Op op) {
  return op == sim::Op::Lock || op == sim::Op::Unlock || op == sim::Op::Wait || op == sim::Op::Notify;
}
std::string object_name(const std::map<std::uint64_t, std::string>& names, std::uint64_t addr) {
  if (auto n = names.find(addr); n != names.end()) return n->second;
  char b[24];
  std::snprintf(b, sizeof b, "%#llx", static_cast<unsigned long long>(addr));
  return b;
}
}  // namespace

std::string trace_text(const sim::SimResult& r) {
  std::string out;
  char line[512];
  const std::map<std::uint64_t, std::string> names = object_names(r);
  for (const sim::TracePoint& p : r.trace) {
    if (p.op == sim::Op::Event) {
      std::snprintf(line, sizeof line, "%8llu  %-14s   event %s  (%s:%u)\n", static_cast<unsigned long long>(p.step),
                    fiber_name(r, p.fiber).c_str(), event_name(p).c_str(), short_file(p.file).c_str(), p.line);
    } else if (p.op == sim::Op::Wake) {
      std::snprintf(line, sizeof line, "%8llu  %-14s   wakes %s\n", static_cast<unsigned long long>(p.step),
                    fiber_name(r, p.fiber).c_str(), fiber_name(r, static_cast<std::uint32_t>(p.detail)).c_str());
    } else if (p.op == sim::Op::Preempt) {
      continue;  // a random walk switches at nearly every point: the HTML marks these
    } else if (p.op == sim::Op::Stale) {
      // A load read an older store than the newest (cpp memory): which one.
      std::snprintf(line, sizeof line, "%8llu  %-14s stale read %s:%u (the store %llu back in modification order)\n",
                    static_cast<unsigned long long>(p.step), fiber_name(r, p.fiber).c_str(), short_file(p.file).c_str(),
                    p.line, static_cast<unsigned long long>(p.detail));
    } else if (on_object(p.op)) {
      std::snprintf(line, sizeof line, "%8llu  %-14s %-7s %s  (%s%s:%u)\n", static_cast<unsigned long long>(p.step),
                    fiber_name(r, p.fiber).c_str(), sim::op_name(p.op), object_name(names, p.detail).c_str(),
                    p.after_pool_line ? "in the standard library, after " : "", short_file(p.file).c_str(), p.line);
    } else {
      std::snprintf(line, sizeof line, "%8llu  %-14s %-7s %s:%u\n", static_cast<unsigned long long>(p.step),
                    fiber_name(r, p.fiber).c_str(), sim::op_name(p.op), short_file(p.file).c_str(), p.line);
    }
    out += line;
  }
  return out;
}

namespace {
bool blocks(sim::Op op) { return op == sim::Op::Wait || op == sim::Op::Join || op == sim::Op::Sleep; }
bool is_sleep_event(pool::EventKind k) {
  using K = pool::EventKind;
  return k == K::ThreadSleepy || k == K::ThreadSleepGate || k == K::ThreadSleeping || k == K::ThreadAwoken ||
         k == K::ThreadSleepInterruptedByLatch || k == K::ThreadSleepInterruptedByJob ||
         k == K::ThreadSleepInterruptedByInjected || k == K::ThreadIdle || k == K::ThreadFoundWork;
}
}  // namespace

Timeline build_timeline(const sim::SimResult& r) {
  Timeline t;
  const std::map<std::uint64_t, std::string> names = object_names(r);
  for (const std::string& n : r.fiber_names) t.lanes.push_back({n, ""});
  std::map<std::uint32_t, std::uint64_t> last_step;
  std::map<std::uint32_t, sim::Op> last_op;
  // Woken fiber -> its wake arrows waiting for its next run: a fiber can be
  // woken twice before it runs (a notify, then the mutex's release).
  std::map<std::uint32_t, std::vector<std::size_t>> pending;
  for (const sim::TracePoint& p : r.trace) {
    t.end = std::max(t.end, p.step);
    if (p.fiber >= t.lanes.size()) t.lanes.resize(p.fiber + 1, {"fiber#" + std::to_string(p.fiber), ""});
    if (p.op == sim::Op::Event) {
      const auto kind = static_cast<pool::EventKind>(p.detail);
      const std::string at = short_file(p.file) + ":" + std::to_string(p.line);
      t.events.push_back({p.fiber, p.step, event_name(p), at});
      if (is_sleep_event(kind)) t.lanes[p.fiber].sleep_state = event_name(p) + " at " + at;
      if (kind == pool::EventKind::ThreadNotifyMissed) t.missed_wakes.push_back({p.fiber, p.step});
      continue;
    }
    if (p.op == sim::Op::Stale) {  // a mark on the lane (Perfetto instant, HTML event), not a run
      t.events.push_back({p.fiber, p.step, "stale read (" + std::to_string(p.detail) + " back)",
                          short_file(p.file) + ":" + std::to_string(p.line)});
      continue;
    }
    if (p.op == sim::Op::Preempt) {  // a mark on the preempted fiber's lane
      t.preemptions.push_back({p.fiber, p.step});
      continue;
    }
    if (p.op == sim::Op::Wake) {
      pending[static_cast<std::uint32_t>(p.detail)].push_back(t.wakes.size());
      t.wakes.push_back({p.fiber, static_cast<std::uint32_t>(p.detail), p.step, 0, false});
      continue;
    }
    if (auto lo = last_op.find(p.fiber); lo != last_op.end() && blocks(lo->second) && last_step[p.fiber] + 1 < p.step) {
      t.blocked.push_back({p.fiber, last_step[p.fiber] + 1, p.step, sim::op_name(lo->second), false});
    }
    t.runs.push_back({p.fiber, p.step,
                      std::string(sim::op_name(p.op)) + (on_object(p.op) ? " " + object_name(names, p.detail) : "") +
                          " " + short_file(p.file) + ":" + std::to_string(p.line)});
    if (auto f = pending.find(p.fiber); f != pending.end()) {
      for (std::size_t w : f->second) {
        t.wakes[w].arrives = p.step;
        t.wakes[w].arrived = true;
      }
      pending.erase(f);
    }
    last_step[p.fiber] = p.step;
    last_op[p.fiber] = p.op;
  }
  for (const auto& [fiber, op] : last_op) {
    if (blocks(op)) t.blocked.push_back({fiber, last_step[fiber] + 1, t.end + 1, sim::op_name(op), true});
  }
  return t;
}

std::string trace_perfetto(const sim::SimResult& r) {
  using nlohmann::json;
  const Timeline t = build_timeline(r);
  json events = json::array();
  events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"args", {{"name", "wsstress sim"}}}});
  for (std::uint32_t i = 0; i < t.lanes.size(); ++i) {
    events.push_back(
        {{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", i}, {"args", {{"name", t.lanes[i].name}}}});
  }
  for (const auto& e : t.events) {
    events.push_back({{"name", e.name},
                      {"ph", "i"},
                      {"s", "t"},
                      {"pid", 1},
                      {"tid", e.fiber},
                      {"ts", static_cast<double>(e.step)},
                      {"args", {{"at", e.at}}}});
  }
  for (const auto& b : t.blocked) {
    if (b.to_end) continue;  // Perfetto shows where a lane stops; the HTML report marks these
    events.push_back({{"name", "blocked (" + b.op + ")"},
                      {"ph", "X"},
                      {"pid", 1},
                      {"tid", b.fiber},
                      {"ts", static_cast<double>(b.from)},
                      {"dur", static_cast<double>(b.to - b.from)},
                      {"cat", "state"}});
  }
  for (const auto& run : t.runs) {
    events.push_back({{"name", run.what},
                      {"ph", "X"},
                      {"pid", 1},
                      {"tid", run.fiber},
                      {"ts", static_cast<double>(run.step)},
                      {"dur", 1.0},
                      {"cat", "run"}});
  }
  // Wake-ups as flows; one whose fiber never ran again has no head and is left out.
  std::uint64_t id = 1;
  for (const auto& w : t.wakes) {
    if (!w.arrived) continue;
    events.push_back({{"name", "wake"},
                      {"ph", "s"},
                      {"cat", "wake"},
                      {"id", id},
                      {"pid", 1},
                      {"tid", w.from},
                      {"ts", static_cast<double>(w.step)}});
    events.push_back({{"name", "wake"},
                      {"ph", "f"},
                      {"bp", "e"},
                      {"cat", "wake"},
                      {"id", id},
                      {"pid", 1},
                      {"tid", w.to},
                      {"ts", static_cast<double>(w.arrives)}});
    ++id;
  }
  if (!r.verdict.explanation.empty()) {  // the stall's explanation, as one global mark at the end
    events.push_back({{"name", "why it was never woken"},
                      {"ph", "i"},
                      {"s", "g"},
                      {"pid", 1},
                      {"tid", 0},
                      {"ts", static_cast<double>(t.end)},
                      {"args", {{"explanation", r.verdict.explanation}}}});
  }
  return json{{"traceEvents", events}, {"displayTimeUnit", "ns"}}.dump() + "\n";
}

}  // namespace wsstress::cli
