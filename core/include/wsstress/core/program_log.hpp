// SPDX-License-Identifier: MIT OR Apache-2.0
// The canonical log of one run of a program (program.hpp): the facts a
// correct pool makes deterministic, each with how often it happened. The port
// writes it from the `program` scenario's interpreter when asked
// (scenarios/programs.hpp, ProgramScenarios::observe) and rayon-core 1.10.1's
// runner (stress/rayon-oracle) writes the same facts in the same spelling, so
// `wsstress oracle` compares two texts. A fact's spelling lives here once for
// the C++ side; oracle/rayon-oracle/src/main.rs spells them for Rust.
//
// Text form: one `FACT xCOUNT` a line, sorted by FACT (byte order, as Rust's
// BTreeMap). Which of several exceptions propagates is not deterministic; the
// log keeps the id that did and the comparison (oracle.hpp) folds it into the
// program's class of interchangeable ids.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace wsstress::core {

// A test-only wrong port of a program, which the oracle's tests make the
// comparison catch (`--test-fault port-broadcast-skips-one |
// port-fifo-as-lifo`). It rides on the log, so only a logged run (the
// oracle's) can be wrong; the pool itself is never changed.
enum class WrongPort {
  None,
  BroadcastSkipsOne,  // a broadcast's op returns at its last index without running or logging its body
  FifoAsLifo,         // spawn_fifo's jobs go on the worker's deque as spawn's do, past the scope's
                      // JobFifo: the deque pops them LIFO
};

class ProgramLog {
 public:
  using Facts = std::map<std::string, std::uint64_t>;

  explicit ProgramLog(WrongPort wrong = WrongPort::None) : wrong_(wrong) {}
  WrongPort wrong() const { return wrong_; }

  void add(const std::string& fact, std::uint64_t n = 1) {
    std::lock_guard<std::mutex> g(m_);
    facts_[fact] += n;
  }
  // Sets a fact's count (the run counts, read once at the end).
  void set(const std::string& fact, std::uint64_t n) {
    std::lock_guard<std::mutex> g(m_);
    facts_[fact] = n;
  }
  Facts facts() const {
    std::lock_guard<std::mutex> g(m_);
    return facts_;
  }

 private:
  mutable std::mutex m_;
  Facts facts_;
  const WrongPort wrong_;
};

// The facts' spellings (the same words as rayon-oracle's main.rs).
namespace fact {
inline std::string id(std::uint64_t node) { return "#" + std::to_string(node); }
inline std::string program(const std::string& pools, unsigned callers, std::size_t nodes) {
  return "program: pools " + pools + ", " + std::to_string(callers) + " callers, " + std::to_string(nodes) + " nodes";
}
inline std::string caller_value(std::uint64_t v) { return "caller: value " + std::to_string(v); }
// What escaped a caller, a detached spawn or into a panic handler: the port
// says exception where rayon says panic (a documented deviation, oracle.hpp).
inline std::string caller_exception(std::uint64_t thrown) { return "caller: exception " + id(thrown); }
// `kind`: "spawn", or "spawn_broadcast" for each of its copies.
inline std::string spawn_returned(std::uint64_t node, const char* kind = "spawn") {
  return std::string(kind) + " " + id(node) + ": returned";
}
inline std::string spawn_exception(std::uint64_t node, std::uint64_t thrown, const char* kind = "spawn") {
  return std::string(kind) + " " + id(node) + ": exception " + id(thrown);
}
inline std::string handler_exception(std::size_t pool, std::uint64_t thrown) {
  return "handler p" + std::to_string(pool) + ": exception " + id(thrown);
}
// The programs' workers are named pP-wI (pool P, index I), on both sides.
inline std::string worker_name(std::size_t pool, std::size_t index) {
  return "p" + std::to_string(pool) + "-w" + std::to_string(index);
}
// `name`: the running thread's name (empty: none).
inline std::string install(std::uint64_t node, std::size_t pool, std::size_t threads, std::uint64_t index,
                           bool has_index, const std::string& name) {
  const std::string where = !has_index        ? "none"
                            : index < threads ? "below " + std::to_string(threads)
                                              : std::to_string(index);
  const bool named = has_index && name == worker_name(pool, index);
  return "install " + id(node) + ": p" + std::to_string(pool) + ", " + std::to_string(threads) + " threads, index " +
         where + ", " + (named ? "named for it" : "named '" + name + "'");
}
inline std::string broadcast_index(std::uint64_t node, std::size_t index, std::size_t threads) {
  return "broadcast " + id(node) + ": index " + std::to_string(index) + " of " + std::to_string(threads);
}
// Each copy of a spawn_broadcast: the index it ran at, of how many.
inline std::string spawn_broadcast_index(std::uint64_t node, std::size_t index, std::size_t threads) {
  return "spawn_broadcast " + id(node) + ": index " + std::to_string(index) + " of " + std::to_string(threads);
}
// `kind`: Program::kind_name of the scope's kind.
inline std::string scope_returned(const char* kind, std::uint64_t node, bool after_jobs) {
  return std::string(kind) + " " + id(node) +
         (after_jobs ? ": returned after its jobs" : ": returned before a job finished");
}
inline std::string scope_order(const char* kind, std::uint64_t node, const std::string& order) {
  return std::string(kind) + " " + id(node) + ": jobs started in order " + order;
}
inline std::string ran(std::uint64_t node, const char* kind) { return "ran " + id(node) + " (" + kind + ")"; }
inline std::string pool_workers(std::size_t pool, std::uint64_t started, std::uint64_t exited) {
  return "pool p" + std::to_string(pool) + ": workers started " + std::to_string(started) + ", exited " +
         std::to_string(exited);
}
}  // namespace fact

}  // namespace wsstress::core
