// SPDX-License-Identifier: MIT OR Apache-2.0
// The reads-from fuzzer's loop (RFF, ASPLOS 2024; the concept:
// wsstress/sim/reads_from.hpp). A corpus of abstract schedules, each a
// schedule-fuzzer header byte (memory model and sizes) and a few reads-from
// constraints. Each round picks an entry (of two drawn, the one whose rarest
// new pair is rarer: the paper's preference for rare reads-from pairs),
// mutates it (ReadsFromPairs, shared with reads_from_fuzzer), runs it with a
// fresh walk seed under the "reads-from" strategy and keeps it if it showed a
// pair no run showed before.
#include "wsstress/sim/reads_from.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "wsstress/core/catalog.hpp"
#include "wsstress/sim/fuzz_input.hpp"

namespace wsstress::sim {

std::vector<std::uint64_t> ReadsFromPairs::note(const std::vector<std::uint64_t>& pairs) {
  std::vector<std::uint64_t> fresh;
  for (const std::uint64_t p : pairs) {
    if (seen_[p]++ != 0) continue;
    pairs_.push_back(p);
    fresh.push_back(p);
    writes_of_[static_cast<SiteId>(p >> 32)].push_back(static_cast<SiteId>(p));
  }
  return fresh;
}

std::uint64_t ReadsFromPairs::count(std::uint64_t pair) const {
  const auto it = seen_.find(pair);
  return it == seen_.end() ? 0 : it->second;
}

void ReadsFromPairs::name_site(SiteId s, const char* file, unsigned line) {
  if (names_.count(s) != 0) return;
  const char* slash = std::strrchr(file, '/');
  names_[s] = std::string(slash != nullptr ? slash + 1 : file) + ":" + std::to_string(line);
}

std::string ReadsFromPairs::name(SiteId s) const {
  if (s == 0) return "initial";
  const auto it = names_.find(s);
  return it == names_.end() ? std::to_string(s) : it->second;
}

std::string ReadsFromPairs::describe(const ReadsFrom& c) const {
  return name(c.read) + (c.negated ? " </- " : " <- ") + name(c.write);
}

// A pair seen: a rare one wanted (of three drawn, the rarest), a common one
// forbidden (the most common), so the run leaves the reads it usually makes.
void ReadsFromPairs::add_constraint(AbstractSchedule& s, SplitMix64& rng) {
  if (pairs_.empty()) return;
  const bool negated = rng.next() % 4 == 0;
  std::uint64_t best = pairs_[rng.next() % pairs_.size()];
  for (int i = 0; i < 2; ++i) {
    const std::uint64_t p = pairs_[rng.next() % pairs_.size()];
    if (negated ? seen_[p] > seen_[best] : seen_[p] < seen_[best]) best = p;
  }
  s.constraints.push_back({static_cast<SiteId>(best >> 32), static_cast<SiteId>(best), negated});
}

void ReadsFromPairs::mutate(AbstractSchedule& s, SplitMix64& rng, unsigned max_constraints) {
  if (rng.next() % 8 == 0) s.flags = static_cast<std::uint8_t>(rng.next());
  if (max_constraints == 0) return;
  const unsigned op = s.constraints.empty() ? 0 : static_cast<unsigned>(rng.next() % 4);
  if (op == 0 && s.constraints.size() < max_constraints) {
    add_constraint(s, rng);
  } else if (op <= 1) {
    s.constraints.erase(s.constraints.begin() + static_cast<std::ptrdiff_t>(rng.next() % s.constraints.size()));
  } else if (op == 2) {
    ReadsFrom& c = s.constraints[rng.next() % s.constraints.size()];
    c.negated = !c.negated;
  } else {
    ReadsFrom& c = s.constraints[rng.next() % s.constraints.size()];
    const std::vector<SiteId>& ws = writes_of_[c.read];
    if (!ws.empty()) c.write = ws[rng.next() % ws.size()];
  }
}

namespace {

struct Entry {
  AbstractSchedule schedule;
  std::vector<std::uint64_t> found;  // the pairs it showed first
};

class Loop {
 public:
  explicit Loop(const ReadsFromOptions& o) : o_(o), rng_(o.seed) {}
  ReadsFromResult run(const std::function<void(const ReadsFromResult&)>& progress);

 private:
  const Entry& pick();
  std::uint64_t rarest(const Entry& e) const;

  const ReadsFromOptions& o_;
  SplitMix64 rng_;
  std::vector<Entry> corpus_;
  ReadsFromPairs pairs_;
};

std::uint64_t Loop::rarest(const Entry& e) const {
  std::uint64_t r = UINT64_MAX;
  for (const std::uint64_t p : e.found) r = std::min(r, pairs_.count(p));
  return r;
}

const Entry& Loop::pick() {
  const Entry& a = corpus_[rng_.next() % corpus_.size()];
  const Entry& b = corpus_[rng_.next() % corpus_.size()];
  return rarest(a) <= rarest(b) ? a : b;
}

ReadsFromResult Loop::run(const std::function<void(const ReadsFromResult&)>& progress) {
  ReadsFromResult res;
  const std::string scenario = reads_from_scenario(o_.mutant, o_.scenario);
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  corpus_.push_back({{static_cast<std::uint8_t>(rng_.next()), {}}, {}});
  while (res.schedules < o_.max_schedules && (o_.max_seconds <= 0 || elapsed() < o_.max_seconds)) {
    Entry e{pick().schedule, {}};
    pairs_.mutate(e.schedule, rng_, o_.max_constraints);
    // The abstract schedule as reads_from_fuzzer's input: the header (byte 0
    // naming the scenario, so a finding's input converts as it ran), then the constraints.
    std::uint8_t header[10] = {schedule_scenario_byte(scenario), e.schedule.flags};
    const std::uint64_t seed = rng_.next();
    for (int i = 0; i < 8; ++i) header[2 + i] = static_cast<std::uint8_t>(seed >> (8 * i));
    ReadsFromInput in = decode_reads_from_input(header, sizeof header, o_.mutant, scenario);
    in.constraints = e.schedule.constraints;
    if (schedule_input_is_too_long(in.schedule)) continue;
    ReadsFromRun walk;
    walk.name_site = [this](SiteId s, const char* file, unsigned line) { pairs_.name_site(s, file, line); };
    const SimResult r = run_reads_from_input(in, walk);
    ++res.schedules;
    res.forced += walk.forced;
    e.found = pairs_.note(walk.pairs);
    if (r.verdict.kind != core::VerdictKind::Pass) {
      res.found = true;
      res.repro = schedule_repro(in.schedule, r);
      res.input = encode_reads_from_input(in.header, in.constraints);
      for (const ReadsFrom& c : in.constraints) res.constraints.push_back(pairs_.describe(c));
      break;
    }
    if (!e.found.empty()) corpus_.push_back(std::move(e));
    if (progress && res.schedules % 100 == 0) {
      res.seconds = elapsed();
      res.corpus = corpus_.size();
      res.pairs = pairs_.size();
      progress(res);
    }
  }
  res.seconds = elapsed();
  res.corpus = corpus_.size();
  res.pairs = pairs_.size();
  return res;
}

}  // namespace

std::string reads_from_scenario(const std::string& mutant, const std::string& scenario) {
  if (!scenario.empty()) return scenario;
  const core::MutantInfo* m = core::find_mutant(mutant);
  return m != nullptr && !m->scenario.empty() ? m->scenario : "inject";
}

ReadsFromResult reads_from_fuzz(const ReadsFromOptions& o,
                                const std::function<void(const ReadsFromResult&)>& progress) {
  Loop loop(o);
  return loop.run(progress);
}

}  // namespace wsstress::sim
