// Coverage-guided: one input byte per decision, so a fuzzer's mutation of
// byte i changes decision i and nothing before it. Values 0xC0 and up flush a
// store buffer under TSO (if one holds a store), 0xBF wakes a condvar waiter
// spuriously, any other value picks runnable fiber b % n; past the input's
// end the bytes come from the seed's generator.
#include "../strategy.hpp"

namespace wsstress::sim {
namespace {

class Fuzz final : public Strategy {
 public:
  Fuzz(const SimConfig& config, SplitMix64& rng) : bytes_(config.fuzz_bytes), rng_(rng) {}

  std::optional<Action> choose(const ReadyView& view) override {
    const std::uint32_t b = at_ < bytes_.size() ? bytes_[at_++] : static_cast<std::uint32_t>(rng_.next() & 0xff);
    if (view.tso && b >= 0xC0) {
      const std::vector<std::uint32_t> stores = view.with_stores();
      if (!stores.empty()) return Action{stores[b % stores.size()], Action::Flush};
    }
    if (b == 0xBF) {
      const std::vector<std::uint32_t> waiting = view.cond_waiters();
      if (!waiting.empty()) return Action{waiting.front(), Action::Spurious};
    }
    return view.runnable[b % view.runnable.size()];
  }

 private:
  const std::vector<std::uint8_t>& bytes_;
  std::size_t at_ = 0;
  SplitMix64& rng_;
};

}  // namespace

std::unique_ptr<Strategy> make_fuzz(const SimConfig& config, SplitMix64& rng) {
  return std::make_unique<Fuzz>(config, rng);
}

}  // namespace wsstress::sim
