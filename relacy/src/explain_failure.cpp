// SPDX-License-Identifier: MIT OR Apache-2.0
// The explanation of a Relacy hang (explain_failure.hpp): Relacy's history
// read line by line, the EventLog's events numbered by it, and the
// simulator's explainer called with Relacy's threads as its fibers.
#include "explain_failure.hpp"

#include <cstdlib>
#include <map>

#include "wsstress/explain/explain.hpp"
#include "wsstress/relacy/event_log.hpp"

namespace wsstress::relacy {

namespace {

// One line of Relacy's history: "[N] T: what, in func, file(line)".
struct HistoryLine {
  std::uint64_t number = 0;
  std::uint32_t thread = 0;
  std::string what, where;  // where: "file:line"
};

bool parse_line(const std::string& line, HistoryLine& out) {
  if (line.size() < 4 || line[0] != '[') return false;
  char* end = nullptr;
  out.number = std::strtoull(line.c_str() + 1, &end, 10);
  if (end == nullptr || *end != ']' || end[1] != ' ') return false;
  const char* t = end + 2;
  out.thread = static_cast<std::uint32_t>(std::strtoul(t, &end, 10));
  if (end == t || *end != ':') return false;
  const std::size_t text = static_cast<std::size_t>(end - line.c_str()) + 2;
  const std::size_t in = line.rfind(", in ");
  if (in == std::string::npos || in < text) {
    out.what = line.substr(text);
    return true;
  }
  out.what = line.substr(text, in - text);
  // "func, file(line)": the file and line after the function's name.
  const std::string loc = line.substr(in + 5);
  const std::size_t comma = loc.rfind(", ");
  std::string file = comma == std::string::npos ? loc : loc.substr(comma + 2);
  const std::size_t paren = file.rfind('(');
  if (paren != std::string::npos && file.back() == ')') {
    file = file.substr(0, paren) + ":" + file.substr(paren + 1, file.size() - paren - 2);
  }
  out.where = file;
  return true;
}

// What the history says: the number of each pool event's line, in order, and
// per thread whether it finished and its last line.
struct History {
  std::vector<std::uint64_t> pool_events;
  std::map<std::uint32_t, bool> finished;
  std::map<std::uint32_t, HistoryLine> last;
};

History read_history(const std::string& report) {
  History h;
  const std::size_t head = report.find("execution history (");
  if (head == std::string::npos) return h;
  std::size_t at = report.find('\n', head);
  // The history proper ends at its first empty line; each thread's own
  // history, which repeats its lines, follows.
  while (at != std::string::npos && at + 1 < report.size() && report[at + 1] != '\n') {
    const std::size_t nl = report.find('\n', at + 1);
    const std::string line = report.substr(at + 1, nl == std::string::npos ? std::string::npos : nl - at - 1);
    at = nl;
    HistoryLine l;
    if (!parse_line(line, l)) continue;
    if (l.what.rfind("pool event ", 0) == 0) h.pool_events.push_back(l.number);
    if (l.what == "[THREAD FINISHED]") h.finished[l.thread] = true;
    // The thread that found the deadlock gets Relacy's verdict as its last line.
    if (l.what.rfind("DEADLOCK", 0) != 0 && l.what.rfind("LIVELOCK", 0) != 0) h.last[l.thread] = l;
  }
  return h;
}

bool is_hang(const std::string& relacy_result) {
  return relacy_result.rfind("DEADLOCK", 0) == 0 || relacy_result.rfind("LIVELOCK", 0) == 0;
}

}  // namespace

std::vector<std::string> explain_failure(const std::string& relacy_result, const std::string& report) {
  if (!is_hang(relacy_result)) return {};
  const EventLog& log = EventLog::get();
  const History h = read_history(report);
  // Every event of the replay has its line in the history, in the same order,
  // and the log's are the last of them: then the steps are the history's
  // numbers, else the events' own.
  const bool numbered = h.pool_events.size() >= log.total();
  const std::size_t skipped = numbered ? h.pool_events.size() - static_cast<std::size_t>(log.total()) : 0;
  std::vector<explain::RecordedEvent> events;
  events.reserve(log.kept());
  for (std::size_t i = 0; i < log.kept(); ++i) {
    const LoggedEvent& e = log.at(i);
    events.push_back({numbered ? h.pool_events[skipped + e.seq - 1] : e.seq, e.thread, e.event, e.loc});
  }
  const bool deadlock = relacy_result.rfind("DEADLOCK", 0) == 0;
  explain::StallContext ctx;
  ctx.fiber_name = [](std::uint32_t t) { return "thread " + std::to_string(t); };
  // In a deadlock every thread that has not finished is blocked.
  ctx.blocked = [&](std::uint32_t t) { return deadlock && h.finished.count(t) == 0; };
  ctx.where = [&](std::uint32_t t) {
    const auto it = h.last.find(t);
    if (it == h.last.end()) return std::string("(no line of it in the history)");
    return (it->second.what.rfind("blocking current thread", 0) == 0 ? "blocked at " : "last seen at ") +
           it->second.where;
  };
  ctx.window_complete = log.total() <= EventLog::kCapacity;
  std::vector<std::string> lines = explain::explain_stall(events, ctx);
  bool cites_steps = false;
  for (const std::string& line : lines) cites_steps = cites_steps || line.find("step ") != std::string::npos;
  if (cites_steps) {
    lines.push_back(numbered ? "(steps are the numbers of Relacy's history: step N is its line [N]; thread T is its "
                               "thread T)"
                             : "(steps count the pool's events of the execution; thread T is Relacy's thread T)");
  }
  return lines;
}

}  // namespace wsstress::relacy
