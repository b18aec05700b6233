// The reads-from fuzzer's loop (RFF, ASPLOS 2024; the concept:
// wsstress/sim/reads_from.hpp). A corpus of abstract schedules, each a
// schedule-fuzzer header byte (memory model and sizes) and a few reads-from
// constraints. Each round picks an entry (of two drawn, the one whose rarest
// new pair is rarer: the paper's preference for rare reads-from pairs),
// mutates it, runs it with a fresh walk seed under the "reads-from" strategy
// and keeps it if it showed a pair no run showed before.
#include "wsstress/sim/reads_from.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <unordered_map>

#include "wsstress/pool/platform/splitmix64.hpp"
#include "wsstress/sim/fuzz_input.hpp"
#include "wsstress/stress/catalog.hpp"

namespace wsstress::sim {
namespace {

constexpr StrategyKind kReadsFromStrategy{"reads-from"};

struct Entry {
  std::uint8_t flags;  // decode_schedule_input's byte 1
  std::vector<ReadsFrom> constraints;
  std::vector<std::uint64_t> found;  // the pairs it showed first
};


class Loop {
 public:
  explicit Loop(const ReadsFromOptions& o) : o_(o), rng_(o.seed) {}
  ReadsFromResult run(const std::function<void(const ReadsFromResult&)>& progress);

 private:
  const Entry& pick();
  Entry mutate(const Entry& e);
  void add_constraint(Entry& e);
  std::uint64_t rarest(const Entry& e) const;
  std::string describe(const ReadsFrom& c) const;
  std::string name(SiteId s) const;

  const ReadsFromOptions& o_;
  SplitMix64 rng_;
  std::vector<Entry> corpus_;
  std::unordered_map<std::uint64_t, std::uint64_t> seen_;  // pair -> loads that showed it
  std::vector<std::uint64_t> pairs_;                       // the keys of seen_, in the order seen
  std::unordered_map<SiteId, std::vector<SiteId>> writes_of_;  // read site -> write sites seen
  std::unordered_map<SiteId, std::string> names_;
};

std::string Loop::name(SiteId s) const {
  if (s == 0) return "initial";
  const auto it = names_.find(s);
  return it == names_.end() ? std::to_string(s) : it->second;
}

std::string Loop::describe(const ReadsFrom& c) const {
  return name(c.read) + (c.negated ? " </- " : " <- ") + name(c.write);
}

std::uint64_t Loop::rarest(const Entry& e) const {
  std::uint64_t r = UINT64_MAX;
  for (const std::uint64_t p : e.found) r = std::min(r, seen_.at(p));
  return r;
}

const Entry& Loop::pick() {
  const Entry& a = corpus_[rng_.next() % corpus_.size()];
  const Entry& b = corpus_[rng_.next() % corpus_.size()];
  return rarest(a) <= rarest(b) ? a : b;
}

// A pair seen: a rare one wanted (of three drawn, the rarest), a common one
// forbidden (the most common), so the run leaves the reads it usually makes.
void Loop::add_constraint(Entry& e) {
  if (pairs_.empty()) return;
  const bool negated = rng_.next() % 4 == 0;
  std::uint64_t best = pairs_[rng_.next() % pairs_.size()];
  for (int i = 0; i < 2; ++i) {
    const std::uint64_t p = pairs_[rng_.next() % pairs_.size()];
    if (negated ? seen_[p] > seen_[best] : seen_[p] < seen_[best]) best = p;
  }
  e.constraints.push_back({static_cast<SiteId>(best >> 32), static_cast<SiteId>(best), negated});
}

// RFF's mutations: add a constraint, drop one, negate one, or retarget one
// to another store its read site was seen to observe; sometimes a new header.
Entry Loop::mutate(const Entry& from) {
  Entry e{from.flags, from.constraints, {}};
  if (rng_.next() % 8 == 0) e.flags = static_cast<std::uint8_t>(rng_.next());
  if (o_.max_constraints == 0) return e;
  const unsigned op = e.constraints.empty() ? 0 : static_cast<unsigned>(rng_.next() % 4);
  if (op == 0 && e.constraints.size() < o_.max_constraints) {
    add_constraint(e);
  } else if (op <= 1) {
    e.constraints.erase(e.constraints.begin() + static_cast<std::ptrdiff_t>(rng_.next() % e.constraints.size()));
  } else if (op == 2) {
    ReadsFrom& c = e.constraints[rng_.next() % e.constraints.size()];
    c.negated = !c.negated;
  } else {
    ReadsFrom& c = e.constraints[rng_.next() % e.constraints.size()];
    const std::vector<SiteId>& ws = writes_of_[c.read];
    if (!ws.empty()) c.write = ws[rng_.next() % ws.size()];
  }
  return e;
}

ReadsFromResult Loop::run(const std::function<void(const ReadsFromResult&)>& progress) {
  ReadsFromResult res;
  const std::string scenario = reads_from_scenario(o_.mutant, o_.scenario);
  const SimRunFn runner = find_sim_runner(o_.mutant);
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  corpus_.push_back({static_cast<std::uint8_t>(rng_.next()), {}, {}});
  while (res.schedules < o_.max_schedules && (o_.max_seconds <= 0 || elapsed() < o_.max_seconds)) {
    Entry e = mutate(pick());
    std::uint8_t header[10] = {0, e.flags};
    const std::uint64_t seed = rng_.next();
    std::memcpy(header + 2, &seed, 8);  // little-endian hosts, as the fuzz targets
    ScheduleInput in = decode_schedule_input(header, sizeof header, o_.mutant, scenario);
    if (schedule_input_is_too_long(in)) continue;
    ReadsFromRun walk;
    walk.constraints = e.constraints;
    walk.name_site = [this](SiteId s, const char* file, unsigned line) {
      if (names_.count(s) != 0) return;
      const char* slash = std::strrchr(file, '/');
      names_[s] = std::string(slash != nullptr ? slash + 1 : file) + ":" + std::to_string(line);
    };
    in.config.strategy = kReadsFromStrategy;
    in.config.reads_from = &walk;
    const SimResult r = runner(in.spec, in.config);
    ++res.schedules;
    res.forced += walk.forced;
    for (const std::uint64_t p : walk.pairs) {
      if (seen_[p]++ != 0) continue;
      pairs_.push_back(p);
      e.found.push_back(p);
      writes_of_[static_cast<SiteId>(p >> 32)].push_back(static_cast<SiteId>(p));
    }
    if (r.verdict.kind != stress::VerdictKind::Pass) {
      res.found = true;
      in.config.reads_from = nullptr;
      res.repro = schedule_repro(in, r);
      for (const ReadsFrom& c : e.constraints) res.constraints.push_back(describe(c));
      break;
    }
    if (!e.found.empty()) corpus_.push_back(std::move(e));
    if (progress && res.schedules % 100 == 0) {
      res.seconds = elapsed();
      res.corpus = corpus_.size();
      res.pairs = seen_.size();
      progress(res);
    }
  }
  res.seconds = elapsed();
  res.corpus = corpus_.size();
  res.pairs = seen_.size();
  return res;
}

}  // namespace

std::string reads_from_scenario(const std::string& mutant, const std::string& scenario) {
  if (!scenario.empty()) return scenario;
  const stress::MutantInfo* m = stress::find_mutant(mutant);
  return m != nullptr && !m->scenario.empty() ? m->scenario : "inject";
}

ReadsFromResult reads_from_fuzz(const ReadsFromOptions& o, const std::function<void(const ReadsFromResult&)>& progress) {
  Loop loop(o);
  return loop.run(progress);
}

}  // namespace wsstress::sim
