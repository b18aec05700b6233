// SPDX-License-Identifier: MIT OR Apache-2.0
// Selectively uniform random walk (SURW): Zhao, Wolff, Mathur and
// Roychoudhury, "Selectively Uniform Concurrency Testing", ASPLOS 2025, as
// Fray (SURWScheduler) and shuttle (UniformRandomScheduler) ship it. A random
// walk puts fiber A's k events before fiber B's with probability 2^-k, so it
// samples interleavings far from uniformly. URW picks a fiber with probability
// proportional to its remaining events, which makes every interleaving equally
// likely; SURW does so on the "interesting" events only: a fiber about to do
// one waits (is held) until the weighted draw names it, every other step is a
// uniform pick among the fibers not held.
//
// Where the counts come from: a trial run of the same seed (simulate() runs
// it first, StrategyEntry::after_trial), a random walk on a generator of its
// own that counts each fiber's interesting events, as shuttle's one trial run
// and Fray's first iterations do. The seed alone fixes the trial, so a seed
// reruns and a replay's hand-over learns the same counts. Fibers are matched
// between the two runs by name and its ordinal ("worker" the 3rd), and a
// child's count is its parent's until the spawn (shuttle's and Fray's
// subsumption), so main's weight covers the fibers it has yet to spawn.
//
// Interesting events (Fray's selection): an operation on an object (atomic,
// mutex, condvar) at a site (pool line, operation) that touched, in the trial,
// an object two fibers touched. In the pool that is the sleep module's
// AtomicCounters word and jobs event counter, the latches' states, the deques'
// indices, the injector's and sleep states' mutexes and condvars; a fiber's
// private objects are left to the uniform picks.
//
// Blocking forces a choice where the paper's argument assumes none: a fiber
// named by the draw may block (on a mutex, in the sleep path's condvar wait,
// on a join) or sleep before it reaches its interesting event. Then the draw
// is made again among the runnable fibers not held, and when every runnable
// fiber is held they are all released and the draw starts over; a draw not
// honoured within kPatience decisions is dropped too, so a spinning fiber
// cannot hold the others into a livelock. TSO flushes, spurious wake-ups and
// cpp-memory reads are the random walk's (flush_or_spurious, stale_or_newest).
#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "../strategy.hpp"

namespace wsstress::sim {
namespace {

constexpr std::uint64_t kPatience = 10000;
constexpr std::uint32_t kNone = UINT32_MAX;

// An operation's site: the pool's line (a lock taken inside <unique_lock.h>
// is named by the pool line before it) and the operation.
struct Site {
  const char* file;
  unsigned line;
  Op op;
  bool operator==(const Site& o) const noexcept { return file == o.file && line == o.line && op == o.op; }
};
struct SiteHash {
  std::size_t operator()(const Site& s) const noexcept {
    return std::hash<const void*>()(s.file) ^ (std::size_t{s.line} << 8) ^ static_cast<std::size_t>(s.op);
  }
};

// The operation a fiber is about to do touches an object (the events SURW may select).
bool on_object(const Fiber& f) {
  switch (f.last_op) {
    case Op::Load:
    case Op::Store:
    case Op::Rmw:
    case Op::Lock:
    case Op::Unlock:
    case Op::Wait:
    case Op::Notify: return f.next_addr != nullptr;
    default: return false;
  }
}
Site site_of(const Fiber& f) { return {f.pool_loc.file, f.pool_loc.line, f.last_op}; }
// The lost wake-ups' code: the sleep module (sleep/) and the latches.
bool in_sleep_or_latch(const char* file) {
  return std::strstr(file, "/sleep/") != nullptr || std::strstr(file, "latch.hpp") != nullptr;
}

// A fiber's name without its "#id", with the ordinal among the fibers of that name.
std::string signature(const Fiber& f, std::unordered_map<std::string, unsigned>& seen) {
  const std::string base = f.name.substr(0, f.name.rfind('#'));
  return base + "/" + std::to_string(seen[base]++);
}

class Surw final : public Strategy {
 public:
  // The trial's walk: uniform, on a generator of its own.
  Surw(const SimConfig& config, SplitMix64& rng) : config_(config), rng_(rng), walk_(config.seed ^ 0x5e1ec7edull) {}
  // Which of Fray's selected sites stay selected: all, or those of the sleep
  // module and the latches (surw-sleep).
  enum class Scope { All, SleepAndLatches };
  // The run that learns from `trial`.
  Surw(const SimConfig& config, SplitMix64& rng, const Surw& trial, Scope scope);

  std::optional<Action> choose(const ReadyView& view) override {
    if (auto a = flush_or_spurious(view, config_, rng_)) return a;
    admit_new_fibers(view);
    if (learning_) {
      const Action a = view.runnable[walk_.next() % view.runnable.size()];
      learn(*view.fibers[a.fiber]);
      return a;
    }
    return pick(view);
  }

  std::optional<std::uint32_t> choose_read(std::uint32_t n, std::size_t) override {
    return stale_or_newest(n, config_, rng_);
  }

 private:
  void admit_new_fibers(const ReadyView& view);
  void learn(const Fiber& f);
  Action pick(const ReadyView& view);
  bool interesting(const Fiber& f) const { return on_object(f) && selected_.count(site_of(f)) != 0; }
  std::uint32_t draw_intended(const std::vector<Action>& candidates);
  void release_all();

  const SimConfig& config_;
  SplitMix64& rng_;
  SplitMix64 walk_;
  bool learning_ = true;
  std::unordered_map<std::string, unsigned> names_seen_;
  std::vector<std::string> signature_;  // by fiber id
  std::vector<std::uint32_t> parent_;   // by fiber id

  // The trial: per fiber and site, how many operations; per object, the
  // first fiber on it and whether another followed; which sites touched it.
  std::unordered_map<Site, std::uint32_t, SiteHash> site_index_;
  std::vector<Site> sites_;
  std::unordered_map<std::uint64_t, std::uint32_t> count_;  // (fiber << 32 | site) -> operations
  struct Object {
    std::uint32_t first;
    bool shared;
    std::vector<std::uint32_t> sites;  // few per object: a list
  };
  std::unordered_map<const void*, Object> objects_;

  // The run: the selected sites, the counts by signature, each fiber's
  // remaining weight, the fiber the last draw named and the fibers held.
  std::unordered_set<Site, SiteHash> selected_;
  std::unordered_map<std::string, std::uint64_t> estimate_;
  std::vector<std::uint64_t> weight_;  // by fiber id
  std::uint32_t intended_ = kNone;
  std::vector<char> held_;  // by fiber id
  std::vector<std::uint32_t> held_list_;
  std::uint64_t waited_ = 0;  // decisions since the draw
  std::vector<Action> candidates_;
};

void Surw::admit_new_fibers(const ReadyView& view) {
  for (std::size_t id = signature_.size(); id < view.fibers.size(); ++id) {
    const Fiber& f = *view.fibers[id];
    signature_.push_back(signature(f, names_seen_));
    parent_.push_back(f.parent);
    held_.push_back(0);
    if (learning_) continue;
    auto it = estimate_.find(signature_.back());
    const std::uint64_t w = it == estimate_.end() ? 0 : it->second;
    weight_.push_back(w);
    if (f.parent == kNone) continue;
    // The child's events were its parent's: move them, and the draw with
    // probability child / parent if it named the parent (Fray).
    std::uint64_t& pw = weight_[f.parent];
    if (intended_ == f.parent && pw > 0 && 1 + rng_.next() % pw <= w) intended_ = f.id;
    pw = pw > w ? pw - w : 0;
  }
}

void Surw::learn(const Fiber& f) {
  if (!on_object(f)) return;
  const Site s = site_of(f);
  auto [it, added] = site_index_.try_emplace(s, static_cast<std::uint32_t>(sites_.size()));
  if (added) sites_.push_back(s);
  const std::uint32_t si = it->second;
  ++count_[(std::uint64_t{f.id} << 32) | si];
  Object& o = objects_.try_emplace(f.next_addr, Object{f.id, false, {}}).first->second;
  if (o.first != f.id) o.shared = true;
  if (std::find(o.sites.begin(), o.sites.end(), si) == o.sites.end()) o.sites.push_back(si);
}

Surw::Surw(const SimConfig& config, SplitMix64& rng, const Surw& trial, Scope scope)
    : config_(config), rng_(rng), walk_(0), learning_(false) {
  std::vector<char> chosen(trial.sites_.size(), 0);
  for (const auto& [object, o] : trial.objects_) {
    for (std::uint32_t si : o.sites) chosen[si] = chosen[si] | static_cast<char>(o.shared);
  }
  for (std::size_t si = 0; si < chosen.size(); ++si) {
    if (chosen[si] && scope == Scope::SleepAndLatches && !in_sleep_or_latch(trial.sites_[si].file)) chosen[si] = 0;
    if (chosen[si]) selected_.insert(trial.sites_[si]);
  }
  std::vector<std::uint64_t> own(trial.signature_.size(), 0);
  for (const auto& [key, n] : trial.count_) {
    if (chosen[key & 0xffffffffu]) own[key >> 32] += n;
  }
  // Children were spawned after their parents: add each to its parent, last first.
  for (std::size_t id = own.size(); id-- > 0;) {
    if (trial.parent_[id] != kNone) own[trial.parent_[id]] += own[id];
  }
  for (std::size_t id = 0; id < own.size(); ++id) estimate_[trial.signature_[id]] = own[id];
}

std::uint32_t Surw::draw_intended(const std::vector<Action>& candidates) {
  std::uint64_t total = 0;
  for (const Action& a : candidates) total += weight_[a.fiber];
  if (total == 0) return candidates[rng_.next() % candidates.size()].fiber;
  std::uint64_t r = rng_.next() % total;
  for (const Action& a : candidates) {
    if (r < weight_[a.fiber]) return a.fiber;
    r -= weight_[a.fiber];
  }
  return candidates.back().fiber;  // not reached
}

void Surw::release_all() {
  for (std::uint32_t id : held_list_) held_[id] = 0;
  held_list_.clear();
  intended_ = kNone;
  waited_ = 0;
}

Action Surw::pick(const ReadyView& view) {
  if (intended_ != kNone && (++waited_ > kPatience || view.fibers[intended_]->state != FiberState::Runnable)) {
    release_all();  // the named fiber blocked, slept, ended or spins: draw again
  }
  for (;;) {
    candidates_.clear();
    for (const Action& a : view.runnable) {
      if (!held_[a.fiber]) candidates_.push_back(a);
    }
    if (candidates_.empty()) {
      release_all();
      continue;
    }
    const Action a = candidates_[rng_.next() % candidates_.size()];
    const Fiber& f = *view.fibers[a.fiber];
    if (!interesting(f)) return a;
    if (weight_[a.fiber] == 0) weight_[a.fiber] = 1;  // more events than the trial saw
    if (intended_ == kNone) intended_ = draw_intended(candidates_);
    if (a.fiber == intended_) {
      --weight_[a.fiber];
      release_all();
      return a;
    }
    held_[a.fiber] = 1;
    held_list_.push_back(a.fiber);
  }
}

std::unique_ptr<Strategy> make_surw(const SimConfig& config, SplitMix64& rng) {
  return std::make_unique<Surw>(config, rng);
}

std::unique_ptr<Strategy> make_surw_after_trial(const SimConfig& config, SplitMix64& rng, const Strategy& trial) {
  // simulate() hands over the strategy `make_surw` made for the trial run.
  return std::make_unique<Surw>(config, rng, static_cast<const Surw&>(trial), Surw::Scope::All);
}

std::unique_ptr<Strategy> make_surw_sleep_after_trial(const SimConfig& config, SplitMix64& rng, const Strategy& trial) {
  return std::make_unique<Surw>(config, rng, static_cast<const Surw&>(trial), Surw::Scope::SleepAndLatches);
}

}  // namespace

WSSTRESS_REGISTER_STRATEGY(surw_strategy,
                           {.kind = StrategyKind{"surw"},
                            .rank = 37,
                            .help = "selectively uniform random walk: a fiber's next shared-object operation waits "
                                    "for a draw weighted by its remaining ones, counted in a trial run of the seed "
                                    "(SURW, ASPLOS 2025)",
                            .make = make_surw,
                            .after_trial = make_surw_after_trial})

// Fray's selection narrowed to the sleep module and the latches: on 4 000
// seeds per model it failed latch_set_no_wake in 475 to 506 seeds where surw
// failed 4 to 15, and the gate-5 mutants as often or up to 5 times as often (README,
// "Strategies"); the deques' and injector's indices are left to the walk.
WSSTRESS_REGISTER_STRATEGY(surw_sleep_strategy,
                           {.kind = StrategyKind{"surw-sleep"},
                            .rank = 38,
                            .help = "surw on the sleep module's and the latches' operations only (the lost "
                                    "wake-ups' code); the rest a uniform walk",
                            .make = make_surw,
                            .after_trial = make_surw_sleep_after_trial})

}  // namespace wsstress::sim
