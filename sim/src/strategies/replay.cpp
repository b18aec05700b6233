// SPDX-License-Identifier: MIT OR Apache-2.0
// Follows a recorded schedule (a reproducer's, or the prefix DFS and the
// shrinker ask for), then hands over to the configured strategy. A recorded
// decision that cannot be taken ends the run: the pool, the scenario or the
// options differ from the recording. Replaying on other code on purpose
// (`replay --check-fix`, keep_running), it instead leaves the schedule there,
// says where, and goes on by the non-preemptive rule.
#include "../strategy.hpp"

namespace wsstress::sim {
namespace {

// "fiber 2 'worker 1 of pool 0' (at pool/include/wsstress/pool/latch.hpp:120)".
std::string fiber_text(const ReadyView& view, std::uint32_t id) {
  if (id >= view.fibers.size()) return "fiber " + std::to_string(id) + " (never created here)";
  const Fiber& f = *view.fibers[id];
  std::string s = "fiber " + std::to_string(id) + " '" + f.name + "'";
  if (f.pool_loc.file != nullptr && f.pool_loc.file[0] != '\0') {
    s += " (at " + std::string(f.pool_loc.file) + ":" + std::to_string(f.pool_loc.line) + ")";
  }
  return s;
}

class Replay final : public Strategy {
 public:
  Replay(std::vector<std::uint32_t> forced, std::unique_ptr<Strategy> then, bool keep_running)
      : forced_(std::move(forced)), then_(std::move(then)), keep_running_(keep_running) {}

  void on_spawn(std::uint32_t fiber, std::uint64_t draw) override { then_->on_spawn(fiber, draw); }
  void observe(const ReadyView& view) override { then_->observe(view); }

  std::optional<Action> choose(const ReadyView& view) override {
    if (left_) return view.keep_running();
    if (view.decision >= forced_.size()) return then_->choose(view);
    const Action a = Action::from_code(forced_[view.decision]);
    if (view.can(a)) return a;
    if (a.kind == Action::Read) {
      divergence_ = "the recorded schedule diverges at decision " + std::to_string(view.decision) +
                    ": a load's choice is recorded where a fiber is to be chosen";
    } else {
      divergence_ = "the recorded schedule diverges at decision " + std::to_string(view.decision) + ": " +
                    fiber_text(view, a.fiber) + " cannot " +
                    (a.kind == Action::Run     ? "run"
                     : a.kind == Action::Flush ? "flush a store"
                                               : "wake") +
                    " there";
    }
    return leave(view.keep_running());
  }

  void observe_read(std::uint32_t n) override { then_->observe_read(n); }
  std::optional<std::uint32_t> choose_read(std::uint32_t n, std::size_t decision) override {
    if (left_) return 0;
    if (decision >= forced_.size()) return then_->choose_read(n, decision);
    const Action a = Action::from_code(forced_[decision]);
    if (a.kind == Action::Read && a.fiber < n) return a.fiber;
    divergence_ = "the recorded schedule diverges at decision " + std::to_string(decision) + ": a load with " +
                  std::to_string(n) + " stores to read from is not recorded there";
    return leave(0u);
  }

  std::string divergence() const override { return divergence_; }
  std::vector<std::vector<std::uint32_t>> take_decisions() override { return then_->take_decisions(); }

 private:
  // Past a decision it cannot take: the end of the run, or (keep_running_)
  // the non-preemptive rule from here on.
  template <class T>
  std::optional<T> leave(T instead) {
    if (!keep_running_) return std::nullopt;
    left_ = true;
    return instead;
  }

  std::vector<std::uint32_t> forced_;
  std::unique_ptr<Strategy> then_;
  bool keep_running_;
  bool left_ = false;
  std::string divergence_;
};

}  // namespace

std::unique_ptr<Strategy> make_replay(std::vector<std::uint32_t> forced, std::unique_ptr<Strategy> then,
                                      bool keep_running) {
  return std::make_unique<Replay>(std::move(forced), std::move(then), keep_running);
}

}  // namespace wsstress::sim
