// SPDX-License-Identifier: MIT OR Apache-2.0
// The reads-from fuzzer's strategy (RFF, ASPLOS 2024; the concept, its
// constraints and where blocking overrides them: wsstress/sim/reads_from.hpp).
// A random walk that keeps, per atomic location, the write sites of its last
// stores in execution order (the order the C++ model appends them to the
// modification order), postpones a load whose constraint the newest store
// does not meet, runs first a fiber about to make a store a postponed load
// waits for, and reports every load's (read site, write site) pair.
#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "../strategy.hpp"
#include "wsstress/sim/reads_from.hpp"

namespace wsstress::sim {

SiteId site_id(const char* file, unsigned line) noexcept {
  const char* slash = std::strrchr(file, '/');
  std::uint32_t h = 2166136261u;
  for (const char* p = slash != nullptr ? slash + 1 : file; *p != '\0'; ++p)
    h = (h ^ static_cast<std::uint8_t>(*p)) * 16777619u;
  h = (h ^ line) * 16777619u;
  return h == 0 ? 1 : h;  // 0 is the initial value's
}

namespace {

bool loads(const Fiber& f) { return (f.last_op == Op::Load || f.last_op == Op::Rmw) && f.next_addr != nullptr; }
bool stores(const Fiber& f) { return (f.last_op == Op::Store || f.last_op == Op::Rmw) && f.next_addr != nullptr; }

class ReadsFromWalk final : public Strategy {
 public:
  ReadsFromWalk(const SimConfig& config, SplitMix64& rng) : config_(config), rng_(rng), run_(config.reads_from) {}

  std::optional<Action> choose(const ReadyView& view) override {
    if (auto a = flush_or_spurious(view, config_, rng_)) return a;
    const Action a = pick(view);
    note_run(*view.fibers[a.fiber]);
    return a;
  }

  // cpp memory: the wanted store if the load may read it, else not the
  // forbidden one if it may avoid it, else the random walk's read.
  std::optional<std::uint32_t> choose_read(std::uint32_t n, std::size_t) override {
    std::uint32_t k = stale_or_newest(n, config_, rng_);
    // A fiber steered to an older store kReadsFromPatience loads in a row is
    // let go: a spin loop kept reading a stale value forever would be a
    // livelock of the steering's making, not of the pool's.
    if (reading_ == nullptr) return k;
    if (stale_.size() <= reader_) stale_.resize(reader_ + 1, 0);
    const std::vector<SiteId>& w = writes_[reading_];
    auto site_at = [&](std::uint32_t i) { return i < w.size() ? w[w.size() - 1 - i] : SiteId{0}; };
    if (stale_[reader_] < kReadsFromPatience) {
      for (const ReadsFrom* c : constraints_of(read_site_)) {
        for (std::uint32_t i = 0; i < n; ++i) {
          if (!c->negated && site_at(i) == c->write) k = i;
        }
        if (c->negated && site_at(k) == c->write) k = (k + 1) % n;
      }
    }
    if (run_ != nullptr && !run_->pairs.empty()) run_->pairs.back() = pair(read_site_, site_at(k));
    stale_[reader_] = k == 0 ? 0 : stale_[reader_] + 1;
    return k;
  }

 private:
  static std::uint64_t pair(SiteId r, SiteId w) { return (static_cast<std::uint64_t>(r) << 32) | w; }
  // The site's id, hashed once per (file, line) of a run.
  SiteId site(const Fiber& f) {
    const std::uint64_t key = reinterpret_cast<std::uintptr_t>(f.pool_loc.file) * 1000003u + f.pool_loc.line;
    const auto [it, added] = ids_.try_emplace(key, 0);
    if (!added) return it->second;
    it->second = site_id(f.pool_loc.file, f.pool_loc.line);
    if (run_ != nullptr && run_->name_site) run_->name_site(it->second, f.pool_loc.file, f.pool_loc.line);
    return it->second;
  }
  SiteId newest(const void* addr) const {
    const auto it = writes_.find(addr);
    return it == writes_.end() || it->second.empty() ? SiteId{0} : it->second.back();
  }
  std::vector<const ReadsFrom*> constraints_of(SiteId read) const {
    std::vector<const ReadsFrom*> out;
    if (run_ == nullptr) return out;
    for (const ReadsFrom& c : run_->constraints) {
      if (c.read == read) out.push_back(&c);
    }
    return out;
  }

  // The store a postponed load waits for (0: it waits for none, or is not postponed).
  bool postponed(const Fiber& f, SiteId& wanted);
  Action pick(const ReadyView& view);
  void note_run(const Fiber& f);

  const SimConfig& config_;
  SplitMix64& rng_;
  ReadsFromRun* run_;
  std::unordered_map<const void*, std::vector<SiteId>> writes_;  // the last kHistory write sites, oldest first
  std::unordered_map<std::uint64_t, SiteId> ids_;
  std::vector<std::uint64_t> since_;  // by fiber id: the decision its postponement began at, +1 (0: none)
  std::uint64_t decisions_ = 0;
  const void* reading_ = nullptr;     // the load under way (cpp: its choose_read follows)
  std::uint32_t reader_ = 0;          // its fiber
  std::vector<std::uint64_t> stale_;  // by fiber id: its loads in a row that read an older store
  SiteId read_site_ = 0;
  std::vector<Action> free_;
};

bool ReadsFromWalk::postponed(const Fiber& f, SiteId& wanted) {
  wanted = 0;
  if (run_ == nullptr || run_->constraints.empty() || !loads(f)) return false;
  const SiteId now = newest(f.next_addr);
  bool hold = false;
  for (const ReadsFrom* c : constraints_of(site(f))) {
    if (config_.memory == MemoryModel::CPP && f.last_op == Op::Load) {
      // The load may read an older store: hold it only until the wanted one exists.
      const std::vector<SiteId>& w = writes_[f.next_addr];
      if (!c->negated && c->write != 0 && std::find(w.begin(), w.end(), c->write) == w.end()) hold = true;
    } else if (c->negated ? now == c->write : now != c->write) {
      hold = true;
    }
    if (hold && !c->negated) wanted = c->write;
  }
  if (since_.size() <= f.id) since_.resize(f.id + 1, 0);
  if (!hold) return false;
  if (since_[f.id] == 0) since_[f.id] = decisions_ + 1;
  return decisions_ + 1 - since_[f.id] < kReadsFromPatience;
}

// The walk's pick among the fibers not postponed, a waited-for store first;
// all of them when every one is postponed (blocking forces the choice).
Action ReadsFromWalk::pick(const ReadyView& view) {
  ++decisions_;
  free_.clear();
  std::vector<std::pair<const void*, SiteId>> waits;
  for (const Action& a : view.runnable) {
    const Fiber& f = *view.fibers[a.fiber];
    SiteId wanted = 0;
    if (postponed(f, wanted)) {
      if (wanted != 0) waits.emplace_back(f.next_addr, wanted);
    } else {
      free_.push_back(a);
    }
  }
  if (free_.empty()) {
    if (run_ != nullptr) ++run_->forced;
    return view.runnable[rng_.next() % view.runnable.size()];
  }
  if (!waits.empty() && rng_.next() % 4 != 0) {
    for (const Action& a : free_) {
      const Fiber& f = *view.fibers[a.fiber];
      for (const auto& [addr, w] : waits) {
        if (stores(f) && f.next_addr == addr && site(f) == w) return a;
      }
    }
  }
  return free_[rng_.next() % free_.size()];
}

// What the chosen fiber's pending operation reads and writes.
void ReadsFromWalk::note_run(const Fiber& f) {
  if (since_.size() > f.id) since_[f.id] = 0;
  reading_ = nullptr;
  if (loads(f)) {
    read_site_ = site(f);
    reading_ = f.next_addr;
    reader_ = f.id;
    if (run_ != nullptr) run_->pairs.push_back(pair(read_site_, newest(f.next_addr)));
  }
  if (stores(f)) {
    std::vector<SiteId>& w = writes_[f.next_addr];
    if (w.size() >= cppmem::kHistory) w.erase(w.begin());
    w.push_back(site(f));
  }
}

std::unique_ptr<Strategy> make_reads_from(const SimConfig& config, SplitMix64& rng) {
  return std::make_unique<ReadsFromWalk>(config, rng);
}

}  // namespace

// No help line: its constraints come from the reads-from fuzzer's loop
// (`wsstress fuzz --reads-from`); reproducers of its findings name it.
WSSTRESS_REGISTER_STRATEGY(reads_from_strategy, {.kind = kReadsFromStrategy, .rank = 95, .make = make_reads_from})

}  // namespace wsstress::sim
