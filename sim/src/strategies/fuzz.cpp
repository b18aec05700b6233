// SPDX-License-Identifier: MIT OR Apache-2.0
// Coverage-guided: the fuzzer's bytes make the decisions, in one of two
// encodings chosen by the first byte M.
//
// M even, per decision: one byte per decision from the next byte on, so a
// mutation of byte i changes decision i and nothing before it. Values 0xC0
// and up flush a store buffer under TSO (if one holds a store), 0xBF wakes a
// condvar waiter spuriously, any other value picks runnable fiber b % n; a
// load's choice under cpp memory is a byte too (0xC0 and up: an older store).
//
// M odd, PCT change points: (M >> 1) % 8 change points follow, each a
// little-endian 16-bit step number (modulo 8192); the fibers' priorities come
// from the seed (as in PCT), TSO flushes and spurious wake-ups from the seed's
// generator. A mutation moves one change point a little, which moves the
// schedule a little - the neighbourhood coverage guidance needs, and which the
// per-decision encoding lacks once a run is thousands of decisions long.
//
// Past the input's end the decisions come from the seed's generator.
#include "../strategy.hpp"

namespace wsstress::sim {
namespace {

// Change points fall in the first kSteps steps: the schedule fuzzer's runs
// (1-2 iterations) take a few thousand.
constexpr std::uint64_t kSteps = 8192;

class Fuzz final : public Strategy {
 public:
  Fuzz(const SimConfig& config, SplitMix64& rng) : config_(config), bytes_(config.fuzz_bytes), rng_(rng) {
    if (bytes_.empty()) return;
    at_ = 1;
    if ((bytes_[0] & 1) == 0) return;
    pct_ = true;
    const std::size_t c = (bytes_[0] >> 1) % 8;
    for (std::size_t i = 0; i < c && 2 + 2 * i < bytes_.size(); ++i) {
      change_points_.push_back((bytes_[1 + 2 * i] | (static_cast<std::uint64_t>(bytes_[2 + 2 * i]) << 8)) % kSteps);
    }
  }

  void on_spawn(std::uint32_t, std::uint64_t draw) override { priority_.push_back(pct_initial_priority(draw)); }

  std::optional<Action> choose(const ReadyView& view) override { return pct_ ? choose_pct(view) : choose_byte(view); }

  // Per-decision encoding: the next byte, an older store for 0xC0 and up (as
  // a flush under TSO); the PCT encoding draws from the seed.
  std::optional<std::uint32_t> choose_read(std::uint32_t n, std::size_t) override {
    if (pct_) return stale_or_newest(n, config_, rng_);
    const std::uint32_t b = at_ < bytes_.size() ? bytes_[at_++] : static_cast<std::uint32_t>(rng_.next() & 0xff);
    return b >= 0xC0 ? 1 + b % (n - 1) : 0;
  }

 private:
  std::optional<Action> choose_byte(const ReadyView& view) {
    const std::uint32_t b = at_ < bytes_.size() ? bytes_[at_++] : static_cast<std::uint32_t>(rng_.next() & 0xff);
    if (view.tso && b >= 0xC0) {
      if (const auto f = view.nth_with_stores(b)) return Action{*f, Action::Flush};
    }
    if (b == 0xBF) {
      if (const auto f = view.first_cond_waiter()) return Action{*f, Action::Spurious};
    }
    return view.runnable[b % view.runnable.size()];
  }

  // PCT's choice with the input's change points.
  std::optional<Action> choose_pct(const ReadyView& view) {
    if (auto a = flush_or_spurious(view, config_, rng_)) return a;
    return pct_pick(view, change_points_, priority_);
  }

  const SimConfig& config_;
  const std::vector<std::uint8_t>& bytes_;
  std::size_t at_ = 0;
  SplitMix64& rng_;
  bool pct_ = false;
  std::vector<std::uint64_t> change_points_;
  std::vector<std::uint64_t> priority_;  // by fiber id
};

std::unique_ptr<Strategy> make_fuzz(const SimConfig& config, SplitMix64& rng) {
  return std::make_unique<Fuzz>(config, rng);
}

}  // namespace

// No help line: `wsstress sim` has no fuzzer input to give it. Reproducers
// may name it (their schedule holds every decision).
WSSTRESS_REGISTER_STRATEGY(fuzz_strategy, {.kind = StrategyKind::Fuzz, .rank = 90, .make = make_fuzz})

}  // namespace wsstress::sim
