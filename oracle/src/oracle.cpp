// SPDX-License-Identifier: MIT OR Apache-2.0
// The rayon-core oracle's comparison (oracle.hpp): the deviation table, the
// log's text form, the canonical spelling of both sides' facts, and the
// bytes of a seed's program. Running the two sides is oracle_run.cpp's.
#include "wsstress/oracle/oracle.hpp"

#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include "wsstress/core/scenario.hpp"
#include "wsstress/core/shown.hpp"

namespace wsstress::oracle {

const std::vector<Deviation>& deviations() {
  static const std::vector<Deviation> table = {
      {"exception-for-panic", ": exception #", ": panic #",
       "what escapes a job is a C++ exception in the port where rayon-core unwinds a panic; both carry the "
       "throwing node's id, and both reach the caller, the scope's owner or the pool's panic handler alike"},
  };
  return table;
}

std::string seconds_text(double s) {
  std::ostringstream o;
  o << s << " s";
  return o.str();
}

std::string log_text(const ProgramLog::Facts& facts) {
  std::string out;
  for (const auto& [fact, n] : facts) out += fact + " x" + std::to_string(n) + "\n";
  return out;
}

Result<ProgramLog::Facts> parse_log(const std::string& text) {
  ProgramLog::Facts facts;
  std::istringstream in(text);
  std::string line;
  for (std::size_t no = 1; std::getline(in, line); ++no) {
    const std::size_t x = line.rfind(" x");
    const std::string count = x == std::string::npos ? "" : line.substr(x + 2);
    if (count.empty() || count.find_first_not_of("0123456789") != std::string::npos || count.size() > 19) {
      return fail("log line " + std::to_string(no) + " is not 'FACT xCOUNT': " + shown(line));
    }
    facts[line.substr(0, x)] += std::stoull(count);
  }
  return facts;
}

namespace {

// Union-find over exception ids: ids that can escape the same node are
// interchangeable (a scope rethrows whichever of its jobs' came first).
class IdClasses {
 public:
  explicit IdClasses(const Program& prog) {
    for (std::size_t i = 0; i < prog.nodes.size(); ++i) {
      const std::set<std::uint32_t> ids = prog.outcome_of(static_cast<std::uint16_t>(i)).ids;
      for (std::uint32_t id : ids) join(*ids.begin(), id);
    }
  }
  // "#3|#7" for an id interchangeable with others, else "#3".
  std::string spell(std::uint32_t id) {
    const std::uint32_t root = find(id);
    std::string s;
    for (const auto& [other, parent] : parent_) {
      if (find(other) == root) s += (s.empty() ? "#" : "|#") + std::to_string(other);
    }
    return s.empty() ? "#" + std::to_string(id) : s;
  }

 private:
  std::uint32_t find(std::uint32_t id) {
    auto it = parent_.find(id);
    if (it == parent_.end()) return id;
    return it->second == id ? id : (it->second = find(it->second));
  }
  void join(std::uint32_t a, std::uint32_t b) {
    parent_.try_emplace(a, a);
    parent_.try_emplace(b, b);
    parent_[find(b)] = find(a);
  }
  std::map<std::uint32_t, std::uint32_t> parent_;
};

}  // namespace

ProgramLog::Facts canonical(const Program& prog, const ProgramLog::Facts& facts, bool port_side) {
  IdClasses classes(prog);
  ProgramLog::Facts out;
  static const std::string kPanic = ": panic #";
  for (const auto& [original, n] : facts) {
    std::string fact = original;
    if (port_side) {
      for (const Deviation& d : deviations()) {
        if (const std::size_t at = fact.find(d.port); at != std::string::npos) {
          fact.replace(at, std::string(d.port).size(), d.rayon);
        }
      }
    }
    // The id after ": panic #", if it is all digits, becomes its class.
    if (const std::size_t at = fact.rfind(kPanic); at != std::string::npos) {
      const std::string digits = fact.substr(at + kPanic.size());
      if (!digits.empty() && digits.size() < 6 && digits.find_first_not_of("0123456789") == std::string::npos) {
        fact = fact.substr(0, at + 2) + "panic " + classes.spell(static_cast<std::uint32_t>(std::stoul(digits)));
      }
    }
    out[fact] += n;
  }
  return out;
}

std::vector<LogDifference> compare_logs(const ProgramLog::Facts& port, const ProgramLog::Facts& rayon) {
  std::vector<LogDifference> out;
  std::set<std::string> keys;
  for (const auto& [f, n] : port) keys.insert(f);
  for (const auto& [f, n] : rayon) keys.insert(f);
  for (const std::string& f : keys) {
    const auto p = port.find(f);
    const auto r = rayon.find(f);
    const std::uint64_t pn = p == port.end() ? 0 : p->second;
    const std::uint64_t rn = r == rayon.end() ? 0 : r->second;
    if (pn != rn) out.push_back({f, pn, rn});
  }
  return out;
}

std::string seed_program_bytes(std::uint64_t seed) {
  // Each choice of more than one value is one byte (every bound is at most
  // 256), the value itself: ByteSource reads it back as the same choice.
  struct Recorder {
    Rng rng;
    std::string bytes;
    std::uint64_t below(std::uint64_t n) {
      if (n <= 1) return 0;
      const std::uint64_t v = rng.below(n);
      bytes.push_back(static_cast<char>(v));
      return v;
    }
  } rec{Rng(seed), {}};
  (void)Program::decode(rec);
  return rec.bytes;
}

}  // namespace wsstress::oracle
