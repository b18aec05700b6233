// Follows a recorded schedule (a reproducer's, or the prefix DFS and the
// shrinker ask for), then hands over to the configured strategy. A recorded
// decision that cannot be taken ends the run: the pool, the scenario or the
// options differ from the recording.
#include "../strategy.hpp"

namespace wsstress::sim {
namespace {

class Replay final : public Strategy {
 public:
  Replay(std::vector<std::uint32_t> forced, std::unique_ptr<Strategy> then)
      : forced_(std::move(forced)), then_(std::move(then)) {}

  void on_spawn(std::uint32_t fiber, std::uint64_t draw) override { then_->on_spawn(fiber, draw); }
  void observe(const ReadyView& view) override { then_->observe(view); }

  std::optional<Action> choose(const ReadyView& view) override {
    if (view.decision >= forced_.size()) return then_->choose(view);
    const Action a = Action::from_code(forced_[view.decision]);
    if (view.can(a)) return a;
    if (a.kind == Action::Read) {
      divergence_ = "the recorded schedule diverges at decision " + std::to_string(view.decision) +
                    ": a load's choice is recorded where a fiber is to be chosen";
      return std::nullopt;
    }
    divergence_ = "the recorded schedule diverges at decision " + std::to_string(view.decision) + ": fiber " +
                  std::to_string(a.fiber) + " cannot " +
                  (a.kind == Action::Run ? "run" : a.kind == Action::Flush ? "flush a store" : "wake") + " there";
    return std::nullopt;
  }

  void observe_read(std::uint32_t n) override { then_->observe_read(n); }
  std::optional<std::uint32_t> choose_read(std::uint32_t n, std::size_t decision) override {
    if (decision >= forced_.size()) return then_->choose_read(n, decision);
    const Action a = Action::from_code(forced_[decision]);
    if (a.kind == Action::Read && a.fiber < n) return a.fiber;
    divergence_ = "the recorded schedule diverges at decision " + std::to_string(decision) +
                  ": a load with " + std::to_string(n) + " stores to read from is not recorded there";
    return std::nullopt;
  }

  std::string divergence() const override { return divergence_; }
  std::vector<std::vector<std::uint32_t>> take_decisions() override { return then_->take_decisions(); }

 private:
  std::vector<std::uint32_t> forced_;
  std::unique_ptr<Strategy> then_;
  std::string divergence_;
};

}  // namespace

std::unique_ptr<Strategy> make_replay(std::vector<std::uint32_t> forced, std::unique_ptr<Strategy> then) {
  return std::make_unique<Replay>(std::move(forced), std::move(then));
}

}  // namespace wsstress::sim
