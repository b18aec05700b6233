// The scenarios of `wsstress run`, written once over <P, M>.
//
// Each turns the run's seed and size knobs into a concrete program, runs it on
// pools of the pool under test, and checks an oracle: results equal a
// sequential evaluation, every job ran exactly once, every exception arrived
// where rayon-core's semantics send it. A hang is not checked here: the
// watchdog (real threads) or the scheduler (simulator) sees that nothing moves.
//
//   join       random recursive join trees, values and leaf counts checked
//   inject     outside threads entering pools that had time to fall asleep
//   cross      nested install chains across pools (A->B->A, diamonds)
//   terminate  pools dropped while spawned work is in flight, callers racing
//   cross_scope  a worker of a short-lived pool waits on a scope or broadcast
//              whose jobs run in another pool, while its own pool is dropped
//   scope      nested scopes, spawn and spawn_fifo, spawns from spawned jobs
//   broadcast  broadcast / spawn_broadcast racing installs and sleep
//   exception  throws at random points; each must reach the right place once
//   program    nested programs (program.hpp) over up to three pools, from the
//              seed or from the run's input bytes (the fuzzers' language),
//              checked against the sequential interpreter
//   mixed      each iteration one of the above, at random
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "wsstress/stress/noise.hpp"
#include "wsstress/stress/program.hpp"
#include "wsstress/stress/scenario.hpp"

namespace wsstress::stress {

// Every scenario, once: X(name, in_mixed, schedule_fuzzed). `name` is also
// the member of Scenarios<P, M> that runs it; `in_mixed`: mixed may pick it;
// `schedule_fuzzed`: schedule_fuzzer's first byte may pick it (that list keeps
// its order, so a stored corpus keeps its meaning). Adding a scenario is one
// entry here and its member function below.
#define WSSTRESS_SCENARIOS(X) \
  X(join, true, true)         \
  X(inject, true, true)       \
  X(cross, true, true)        \
  X(terminate, true, true)    \
  X(scope, true, true)        \
  X(broadcast, true, true)    \
  X(exception, true, true)    \
  X(program, true, true)      \
  X(cross_scope, true, false) \
  X(mixed, false, false)

struct ScenarioInfo {
  const char* name;
  bool in_mixed;
  bool schedule_fuzzed;
};

#define WSSTRESS_SCENARIO_INFO(name, in_mixed, fuzzed) ScenarioInfo{#name, in_mixed, fuzzed},
inline constexpr ScenarioInfo kScenarios[] = {WSSTRESS_SCENARIOS(WSSTRESS_SCENARIO_INFO)};
#undef WSSTRESS_SCENARIO_INFO

// The names of the scenarios with `flag` set (every scenario without one), in
// the list's order.
inline std::vector<std::string> scenario_names_where(bool ScenarioInfo::*flag = nullptr) {
  std::vector<std::string> out;
  for (const ScenarioInfo& s : kScenarios) {
    if (flag == nullptr || s.*flag) out.emplace_back(s.name);
  }
  return out;
}

inline const std::vector<std::string>& scenario_names() {
  static const std::vector<std::string> names = scenario_names_where();
  return names;
}

// An exception a scenario throws on purpose, identified by its id.
struct Thrown {
  std::uint64_t id;
};

template <class P, class M>
struct Scenarios {
  using C = Ctx<P, M>;
  using Pool = pool::BasicThreadPool<P, M>;
  using Builder = pool::BasicThreadPoolBuilder<P, M>;
  using Scope = pool::Scope<P, M>;
  using ScopeFifo = pool::ScopeFifo<P, M>;
  using BroadcastContext = pool::BroadcastContext<P, M>;
  using E = Env<P>;

  // ---- join ----

  struct Tree {
    struct Node {
      std::uint64_t value = 0;
      int left = -1, right = -1;
    };
    std::vector<Node> nodes;
    std::size_t leaves = 0;
    int build(Rng& rng, int depth) {
      const int id = static_cast<int>(nodes.size());
      nodes.push_back({});
      if (depth == 0 || (depth < 8 && rng.chance(4))) {
        nodes[id].value = rng.below(1000);
        nodes[id].left = -1;
        ++leaves;
        return id;
      }
      const int l = build(rng, depth - 1);
      const int r = build(rng, depth - 1);
      nodes[id].left = l;
      nodes[id].right = r;
      return id;
    }
    std::uint64_t seq(int id) const {
      const Node& n = nodes[id];
      return n.left < 0 ? n.value : seq(n.left) + seq(n.right);
    }
    std::uint64_t par(int id, std::vector<std::atomic<int>>& visits) const {
      const Node& n = nodes[id];
      if (n.left < 0) {
        visits[id].fetch_add(1, std::memory_order_relaxed);
        Progress::tick();
        return n.value;
      }
      auto [a, b] = pool::join<P, M>([&] { return par(n.left, visits); }, [&] { return par(n.right, visits); });
      return a + b;
    }
  };

  static void check_tree(C& c, Pool& pool, Rng& rng) {
    Tree t;
    const int root = t.build(rng, 3 + static_cast<int>(rng.below(8)));
    std::vector<std::atomic<int>> visits(t.nodes.size());
    const std::uint64_t expected = t.seq(root);
    const std::uint64_t got = pool.install([&] { return t.par(root, visits); });
    c.check(got == expected, "join tree: got " + std::to_string(got) + ", sequential " + std::to_string(expected));
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
      if (t.nodes[i].left < 0) {
        const int v = visits[i].load();
        c.check(v == 1, "join tree: leaf ran " + std::to_string(v) + " times");
      }
    }
  }

  static void join(C& c) {
    auto pool = c.make_pool("join");
    typename C::ThreadStatus status("main");
    for (std::size_t it = 0; it < c.spec.iterations; ++it) {
      status.set("install(join tree)");
      Rng rng = c.rng.fork();
      check_tree(c, **pool, rng);
    }
  }

  // ---- inject ----

  static void inject(C& c) {
    const std::size_t n_pools = std::max<std::size_t>(1, c.spec.pools);
    std::vector<std::unique_ptr<typename C::TrackedPool>> pools;
    for (std::size_t i = 0; i < n_pools; ++i) pools.push_back(c.make_pool("inject-" + std::to_string(i)));
    std::atomic<std::uint64_t> spawned{0}, ran{0};
    const std::size_t n_callers = 3;
    std::vector<typename E::Thread> callers;
    for (std::size_t t = 0; t < n_callers; ++t) {
      Rng rng = c.rng.fork();
      callers.push_back(E::start([&, rng, t]() mutable {
        typename C::ThreadStatus status("outside-" + std::to_string(t));
        for (std::size_t it = 0; it < c.spec.iterations; ++it) {
          // Give the workers time to fall asleep (they sleep after ~33 idle rounds).
          if (rng.chance(2)) E::sleep_us(rng.below(300));
          Pool& pool = **pools[rng.below(pools.size())];
          switch (rng.below(4)) {
            case 0: {
              status.set("install");
              const std::uint64_t v = rng.below(1000);
              c.check(pool.install([v] { return v * 2; }) == v * 2, "inject: install returned a wrong value");
              break;
            }
            case 1:
              status.set("spawn");
              spawned.fetch_add(1);
              pool.spawn([&ran] {
                ran.fetch_add(1);
                Progress::tick();
              });
              break;
            case 2: {
              status.set("broadcast");
              auto r = pool.broadcast([](BroadcastContext ctx) { return ctx.index(); });
              bool ok = r.size() == pool.current_num_threads();
              for (std::size_t i = 0; i < r.size(); ++i) ok = ok && r[i] == i;
              c.check(ok, "inject: broadcast did not run once per worker in index order");
              break;
            }
            default: {
              status.set("join from outside");
              auto [a, b] = pool.join([] { return 1; }, [] { return 2; });
              c.check(a == 1 && b == 2, "inject: join returned wrong values");
            }
          }
          status.set(nullptr);
          Progress::tick();
        }
      }));
    }
    for (auto& t : callers) E::join(t);
    typename C::ThreadStatus status("main");
    status.set("waiting for spawned jobs");
    while (ran.load() < spawned.load()) E::sleep_us(50);
    c.check(ran.load() == spawned.load(), "inject: spawned jobs ran more than once");
  }

  // ---- cross ----

  // A program over several pools: install into pool `hop[0]`, from there into
  // `hop[1]`, ...; at random levels a join forks the chain (a diamond).
  static std::uint64_t cross_chain(C& c, std::vector<std::unique_ptr<typename C::TrackedPool>>& pools, Rng rng,
                                   int depth) {
    if (depth == 0) {
      Progress::tick();
      return 1;
    }
    Pool& next = **pools[rng.below(pools.size())];
    const bool fork = rng.chance(3);
    Rng left = rng.fork(), right = rng.fork();
    return next.install([&, left, right, fork]() -> std::uint64_t {
      if (fork) {
        auto [a, b] = pool::join<P, M>([&] { return cross_chain(c, pools, left, depth - 1); },
                                       [&] { return cross_chain(c, pools, right, depth - 1); });
        return a + b;
      }
      return cross_chain(c, pools, left, depth - 1);
    });
  }
  static std::uint64_t cross_expected(Rng rng, std::size_t n_pools, int depth) {
    if (depth == 0) return 1;
    (void)rng.below(n_pools);
    const bool fork = rng.chance(3);
    Rng left = rng.fork(), right = rng.fork();
    return fork ? cross_expected(left, n_pools, depth - 1) + cross_expected(right, n_pools, depth - 1)
                : cross_expected(left, n_pools, depth - 1);
  }

  static void cross(C& c) {
    const std::size_t n_pools = std::max<std::size_t>(2, c.spec.pools);
    std::vector<std::unique_ptr<typename C::TrackedPool>> pools;
    for (std::size_t i = 0; i < n_pools; ++i) pools.push_back(c.make_pool("cross-" + std::to_string(i)));
    std::vector<typename E::Thread> callers;
    for (std::size_t t = 0; t < 2; ++t) {
      Rng rng = c.rng.fork();
      callers.push_back(E::start([&, rng, t]() mutable {
        typename C::ThreadStatus status("outside-" + std::to_string(t));
        for (std::size_t it = 0; it < c.spec.iterations; ++it) {
          if (rng.chance(3)) {
            // A short-lived pool whose worker waits in another pool (a cross
            // latch), dropped as soon as the install returns: the setter may
            // still be about to wake that worker (upstream tests/cross-pool.rs).
            status.set("install into a short-lived pool, and from it into another");
            Builder b;
            b.num_threads(1);
            auto temp = std::make_unique<Pool>(std::move(b));
            Pool& other = **pools[rng.below(pools.size())];
            const std::uint64_t v = rng.below(1000);
            c.check(temp->install([&] { return other.install([v] { return v + 1; }); }) == v + 1,
                    "cross: install through a short-lived pool returned a wrong value");
            temp.reset();
            Progress::tick();
            continue;
          }
          const int depth = 1 + static_cast<int>(rng.below(6));
          Rng prog = rng.fork();
          status.set("install chain across pools");
          const std::uint64_t got = cross_chain(c, pools, prog, depth);
          const std::uint64_t expected = cross_expected(prog, pools.size(), depth);
          c.check(got == expected, "cross: chain returned " + std::to_string(got) + ", expected " +
                                       std::to_string(expected));
        }
        status.set(nullptr);
      }));
    }
    for (auto& t : callers) E::join(t);
  }

  // ---- terminate ----

  static void terminate(C& c) {
    typename C::ThreadStatus status("main");
    for (std::size_t it = 0; it < c.spec.iterations; ++it) {
      Rng rng = c.rng.fork();
      auto exited = std::make_shared<std::atomic<std::size_t>>(0);
      auto ran = std::make_shared<std::atomic<std::uint64_t>>(0);
      std::uint64_t spawned = 0;
      Builder b;
      b.num_threads(c.spec.threads).exit_handler([exited](std::size_t) { exited->fetch_add(1); });
      auto pool = std::make_shared<Pool>(std::move(b));
      // Outside callers holding their own handles race the drop below.
      std::vector<typename E::Thread> callers;
      const std::size_t n_callers = rng.below(3);
      for (std::size_t t = 0; t < n_callers; ++t) {
        callers.push_back(E::start([&c, p = pool, k = 1 + rng.below(5)]() mutable {
          for (std::uint64_t i = 0; i < k; ++i) {
            c.check(p->install([i] { return i; }) == i, "terminate: install returned a wrong value");
          }
          p.reset();  // maybe the last handle
        }));
      }
      const std::uint64_t n_jobs = rng.below(40);
      for (std::uint64_t j = 0; j < n_jobs; ++j) {
        ++spawned;
        const bool slow = rng.chance(8);
        pool->spawn([ran, slow] {
          if (slow) E::sleep_us(20);
          ran->fetch_add(1);
          Progress::tick();
        });
      }
      if (rng.chance(2)) E::sleep_us(rng.below(100));
      pool.reset();  // the handle goes while work is in flight
      for (auto& t : callers) E::join(t);
      status.set("waiting for spawned jobs and worker exits after the drop");
      while (ran->load() < spawned || exited->load() < c.spec.threads) E::sleep_us(50);
      status.set(nullptr);
      c.check(ran->load() == spawned, "terminate: a spawned job ran twice");
      c.check(exited->load() == c.spec.threads, "terminate: a worker exited twice");
      Progress::tick();
    }
  }

  // ---- cross_scope ----

  // What the short-lived pool's job reports back to the main thread.
  struct CrossScopeRun {
    std::atomic<std::uint64_t> ran{0};     // jobs run in the other pool
    std::atomic<bool> returned{false};     // the scope or broadcast returned
    std::atomic<bool> in_order{true};      // broadcast: one result per worker, in index order
    std::atomic<std::size_t> exited{0};    // the short-lived pool's worker left
  };

  // Runs on the short-lived pool's worker: a scope over `other` (rayon's
  // ThreadPool::in_place_scope: the latch is the caller's, the jobs go to
  // `other`), or a broadcast into `other`. Either way the last decrement of
  // the caller's latch comes from a worker of `other`.
  static void cross_scope_job(Pool& other, CrossScopeRun& r, bool use_broadcast, std::uint64_t n_jobs) {
    if (use_broadcast) {
      auto v = other.broadcast([&r](BroadcastContext ctx) {
        r.ran.fetch_add(1);
        Progress::tick();
        return ctx.index();
      });
      bool ok = v.size() == other.current_num_threads();
      for (std::size_t i = 0; i < v.size(); ++i) ok = ok && v[i] == i;
      r.in_order.store(ok);
    } else {
      other.in_place_scope([&](Scope& s) {
        for (std::uint64_t j = 0; j < n_jobs; ++j) {
          s.spawn([&r](Scope&) {
            r.ran.fetch_add(1);
            Progress::tick();
          });
        }
      });
    }
    r.returned.store(true);
  }

  // A worker of a short-lived pool A owns a scope (or broadcast) whose jobs
  // run in pool B, and A's handle is dropped right after the spawn: once the
  // scope returns, A's worker may exit and free A's registry while B's worker
  // is between setting the scope's latch and waking its owner through that
  // registry (rayon #1008, the 1.10.1 ScopeLatch). Waits, as rayon's tests
  // do, until A's worker has exited.
  static void cross_scope(C& c) {
    const std::size_t n_pools = std::max<std::size_t>(1, c.spec.pools);
    std::vector<std::unique_ptr<typename C::TrackedPool>> pools;
    for (std::size_t i = 0; i < n_pools; ++i) pools.push_back(c.make_pool("cross-scope-" + std::to_string(i)));
    typename C::ThreadStatus status("main");
    for (std::size_t it = 0; it < c.spec.iterations; ++it) {
      Rng rng = c.rng.fork();
      Pool& other = **pools[rng.below(pools.size())];
      const bool use_broadcast = rng.chance(3);
      const std::uint64_t n_jobs = use_broadcast ? other.current_num_threads() : 1 + rng.below(3);
      auto r = std::make_shared<CrossScopeRun>();
      Builder b;
      b.num_threads(1).exit_handler([r](std::size_t) { r->exited.fetch_add(1); });
      auto temp = std::make_unique<Pool>(std::move(b));
      status.set("spawn a scope over another pool into a short-lived pool, and drop it");
      temp->spawn([&other, r, use_broadcast, n_jobs] { cross_scope_job(other, *r, use_broadcast, n_jobs); });
      temp.reset();
      status.set("waiting for the short-lived pool's worker to exit");
      while (r->exited.load() < 1) E::sleep_us(50);
      status.set(nullptr);
      c.check(r->returned.load(), "cross_scope: the short-lived pool's worker exited before its job returned");
      c.check(r->ran.load() == n_jobs, "cross_scope: " + std::to_string(r->ran.load()) + " jobs ran in the other "
                                           "pool, " + std::to_string(n_jobs) + " expected");
      c.check(r->in_order.load(), "cross_scope: broadcast not once per worker in index order");
      c.check(r->exited.load() == 1, "cross_scope: the short-lived pool's worker exited twice");
      Progress::tick();
    }
  }

  // ---- scope ----

  template <class S>
  static void scope_spawns(S& s, Rng rng, int depth, std::atomic<std::uint64_t>& ran, std::uint64_t& expected) {
    const std::uint64_t n = rng.below(5);
    for (std::uint64_t i = 0; i < n; ++i) {
      ++expected;
      Rng child = rng.fork();
      std::uint64_t child_expected = 0;
      // Count the child's own spawns now, sequentially, with a copy of its generator.
      if (depth > 0) count_spawns(child, depth - 1, child_expected);
      expected += child_expected;
      auto body = [&ran, child, depth](S& s2) mutable {
        ran.fetch_add(1, std::memory_order_relaxed);
        Progress::tick();
        std::uint64_t ignored = 0;
        if (depth > 0) scope_spawns(s2, child, depth - 1, ran, ignored);
      };
      if constexpr (std::is_same_v<S, ScopeFifo>) {
        s.spawn_fifo(std::move(body));
      } else {
        s.spawn(std::move(body));
      }
    }
  }
  static void count_spawns(Rng rng, int depth, std::uint64_t& expected) {
    const std::uint64_t n = rng.below(5);
    for (std::uint64_t i = 0; i < n; ++i) {
      ++expected;
      Rng child = rng.fork();
      if (depth > 0) count_spawns(child, depth - 1, expected);
    }
  }

  static void scope(C& c) {
    auto pool = c.make_pool("scope");
    typename C::ThreadStatus status("main");
    for (std::size_t it = 0; it < c.spec.iterations; ++it) {
      Rng rng = c.rng.fork();
      std::atomic<std::uint64_t> ran{0};
      std::uint64_t expected = 0;
      const int depth = static_cast<int>(rng.below(4));
      switch (rng.below(3)) {
        case 0:
          status.set("scope");
          (*pool)->scope([&](Scope& s) { scope_spawns(s, rng, depth, ran, expected); });
          break;
        case 1:
          status.set("scope_fifo");
          (*pool)->scope_fifo([&](ScopeFifo& s) { scope_spawns(s, rng, depth, ran, expected); });
          break;
        default:
          // An in-place scope from outside, nested scopes inside its jobs.
          status.set("in_place_scope with nested scopes");
          (*pool)->in_place_scope([&](Scope& s) {
            ++expected;
            s.spawn([&](Scope&) {
              ran.fetch_add(1);
              pool::scope<P, M>([&](Scope& inner) { scope_spawns(inner, rng, depth, ran, expected); });
            });
          });
      }
      status.set(nullptr);
      c.check(ran.load() == expected, "scope: " + std::to_string(ran.load()) + " jobs ran, " +
                                          std::to_string(expected) + " spawned, before the scope returned");
    }
  }

  // ---- broadcast ----

  static void broadcast(C& c) {
    auto pool = c.make_pool("broadcast");
    auto spawned_runs = std::make_shared<std::atomic<std::uint64_t>>(0);
    std::uint64_t spawned_expected = 0;
    std::vector<typename E::Thread> callers;
    std::atomic<std::uint64_t> per_caller_spawns[2] = {0, 0};
    for (std::size_t t = 0; t < 2; ++t) {
      Rng rng = c.rng.fork();
      callers.push_back(E::start([&, rng, t]() mutable {
        typename C::ThreadStatus status("outside-" + std::to_string(t));
        Pool& p = **pool;
        for (std::size_t it = 0; it < c.spec.iterations; ++it) {
          if (rng.chance(2)) E::sleep_us(rng.below(200));
          switch (rng.below(3)) {
            case 0: {
              status.set("broadcast");
              auto r = p.broadcast([](BroadcastContext ctx) { return ctx.index(); });
              bool ok = r.size() == p.current_num_threads();
              for (std::size_t i = 0; i < r.size(); ++i) ok = ok && r[i] == i;
              c.check(ok, "broadcast: not once per worker in index order");
              break;
            }
            case 1:
              status.set("spawn_broadcast");
              per_caller_spawns[t].fetch_add(1);
              p.spawn_broadcast([spawned_runs](BroadcastContext) {
                spawned_runs->fetch_add(1);
                Progress::tick();
              });
              break;
            default:
              status.set("install");
              c.check(p.install([] { return 7; }) == 7, "broadcast: install returned a wrong value");
          }
          status.set(nullptr);
          Progress::tick();
        }
      }));
    }
    for (auto& t : callers) E::join(t);
    spawned_expected = (per_caller_spawns[0].load() + per_caller_spawns[1].load()) * c.spec.threads;
    typename C::ThreadStatus status("main");
    status.set("waiting for spawn_broadcast jobs");
    while (spawned_runs->load() < spawned_expected) E::sleep_us(50);
    c.check(spawned_runs->load() == spawned_expected, "broadcast: a spawn_broadcast job ran twice");
  }

  // ---- exception ----

  static void exception(C& c) {
    auto handled = std::make_shared<std::atomic<std::uint64_t>>(0);
    auto handled_ids = std::make_shared<std::mutex>();
    auto ids = std::make_shared<std::multiset<std::uint64_t>>();
    Builder b;
    b.panic_handler([handled, handled_ids, ids](std::exception_ptr e) {
      try {
        std::rethrow_exception(e);
      } catch (const Thrown& t) {
        std::lock_guard<std::mutex> g(*handled_ids);
        ids->insert(t.id);
      } catch (...) {
      }
      handled->fetch_add(1);
    });
    auto pool = c.make_pool("exception", std::move(b));
    Pool& p = **pool;
    typename C::ThreadStatus status("main");
    std::uint64_t next_id = 1;
    std::set<std::uint64_t> spawned_ids;
    for (std::size_t it = 0; it < c.spec.iterations; ++it) {
      Rng rng = c.rng.fork();
      switch (rng.below(5)) {
        case 0: {  // join: A's exception wins; B's only if A succeeded
          const bool a_throws = rng.chance(2), b_throws = rng.chance(2);
          const std::uint64_t ia = next_id++, ib = next_id++;
          std::atomic<int> ran{0};
          status.set("install(join with throwing halves)");
          try {
            p.install([&] {
              pool::join<P, M>([&] { ran.fetch_add(1); if (a_throws) throw Thrown{ia}; },
                               [&] { ran.fetch_add(1); if (b_throws) throw Thrown{ib}; });
            });
            c.check(!a_throws && !b_throws, "exception: join swallowed an exception");
          } catch (const Thrown& t) {
            c.check(a_throws ? t.id == ia : (b_throws && t.id == ib), "exception: join rethrew the wrong exception");
          }
          c.check(ran.load() == 2, "exception: a join half did not run");
          break;
        }
        case 1: {  // a scope rethrows one of its jobs' exceptions after all ran
          const std::uint64_t n = 1 + rng.below(8);
          std::set<std::uint64_t> thrown;
          std::vector<bool> throws(n);
          std::vector<std::uint64_t> job_ids(n);
          for (std::uint64_t i = 0; i < n; ++i) {
            throws[i] = rng.chance(3);
            job_ids[i] = next_id++;
            if (throws[i]) thrown.insert(job_ids[i]);
          }
          std::atomic<std::uint64_t> ran{0};
          status.set("scope with throwing jobs");
          try {
            p.scope([&](Scope& s) {
              for (std::uint64_t i = 0; i < n; ++i) {
                s.spawn([&, i](Scope&) {
                  ran.fetch_add(1);
                  if (throws[i]) throw Thrown{job_ids[i]};
                });
              }
            });
            c.check(thrown.empty(), "exception: scope swallowed an exception");
          } catch (const Thrown& t) {
            c.check(thrown.count(t.id) == 1, "exception: scope rethrew an exception no job threw");
          }
          c.check(ran.load() == n, "exception: scope returned before all its jobs ran");
          break;
        }
        case 2: {  // spawn: to the panic handler, exactly once
          const std::uint64_t id = next_id++;
          spawned_ids.insert(id);
          status.set("spawn(throwing job)");
          p.spawn([id] { throw Thrown{id}; });
          break;
        }
        case 3: {  // broadcast: the first in index order is rethrown
          const std::size_t n = p.current_num_threads();
          std::vector<bool> throws(n);
          std::uint64_t first = 0;
          const std::uint64_t base = next_id;
          next_id += n;
          for (std::size_t i = 0; i < n; ++i) {
            throws[i] = rng.chance(2);
            if (throws[i] && first == 0) first = base + i;
          }
          std::atomic<std::size_t> ran{0};
          status.set("broadcast with throwing workers");
          try {
            p.broadcast([&](BroadcastContext ctx) {
              ran.fetch_add(1);
              if (throws[ctx.index()]) throw Thrown{base + ctx.index()};
              return 0;
            });
            c.check(first == 0, "exception: broadcast swallowed an exception");
          } catch (const Thrown& t) {
            c.check(t.id == first, "exception: broadcast rethrew other than the lowest index's exception");
          }
          c.check(ran.load() == n, "exception: a broadcast job did not run");
          break;
        }
        default: {  // install from outside, nested in a join
          const std::uint64_t id = next_id++;
          status.set("install(throwing)");
          try {
            p.install([&]() -> int { throw Thrown{id}; });
            c.check(false, "exception: install swallowed an exception");
          } catch (const Thrown& t) {
            c.check(t.id == id, "exception: install rethrew the wrong exception");
          }
        }
      }
      status.set(nullptr);
      Progress::tick();
    }
    status.set("waiting for the panic handler");
    while (handled->load() < spawned_ids.size()) E::sleep_us(50);
    std::lock_guard<std::mutex> g(*handled_ids);
    c.check(handled->load() == spawned_ids.size() &&
                std::set<std::uint64_t>(ids->begin(), ids->end()) == spawned_ids && ids->size() == spawned_ids.size(),
            "exception: the panic handler did not get each spawned exception exactly once");
  }

  // ---- program ----

  // One run of a Program: its pools, and what the oracle compares.
  struct ProgramRun {
    const Program& prog;
    std::vector<std::unique_ptr<typename C::TrackedPool>> pools;
    std::vector<std::atomic<std::uint64_t>> runs;
    std::atomic<std::uint64_t> spawns_done{0};
    struct Handled {
      std::mutex m;
      std::multiset<std::uint32_t> ids;
      std::atomic<std::uint64_t> count{0};
    };
    std::shared_ptr<Handled> handled = std::make_shared<Handled>();
    std::shared_ptr<std::atomic<std::size_t>> exited = std::make_shared<std::atomic<std::size_t>>(0);
    explicit ProgramRun(const Program& p) : prog(p), runs(p.nodes.size()) {}
  };

  static void leaf_work(std::uint8_t work) {
    if (work == 4) {
      E::sleep_us(50);  // long enough for the other workers to go to sleep
      return;
    }
    static const unsigned rounds[] = {0, 10, 100, 1000};
    volatile std::uint64_t sink = 0;
    for (unsigned i = 0; i < rounds[work % 4]; ++i) sink = sink * 31 + i;
  }

  // The parallel interpreter; the sequential one is Program::expected().
  static std::uint64_t exec(ProgramRun& r, std::uint16_t id) {
    const Program::Node& n = r.prog.nodes[id];
    using K = Program::Kind;
    switch (n.kind) {
      case K::Leaf:
        r.runs[id].fetch_add(1, std::memory_order_relaxed);
        leaf_work(n.work);
        Progress::tick();
        return n.value;
      case K::Throw:
        r.runs[id].fetch_add(1, std::memory_order_relaxed);
        Progress::tick();
        throw Thrown{id};
      case K::Join: {
        auto [a, b] = pool::join<P, M>([&] { return exec(r, n.kids[0]); }, [&] { return exec(r, n.kids[1]); });
        return a + b;
      }
      case K::Scope: {
        std::atomic<std::uint64_t> sum{0};
        pool::scope<P, M>([&](Scope& s) {
          for (std::uint16_t k : n.kids) s.spawn([&r, &sum, k](Scope&) { sum.fetch_add(exec(r, k)); });
        });
        return sum.load();
      }
      case K::ScopeFifo: {
        std::atomic<std::uint64_t> sum{0};
        pool::scope_fifo<P, M>([&](ScopeFifo& s) {
          for (std::uint16_t k : n.kids) s.spawn_fifo([&r, &sum, k](ScopeFifo&) { sum.fetch_add(exec(r, k)); });
        });
        return sum.load();
      }
      case K::Install:
        return (*r.pools[n.value])->install([&r, k = n.kids[0]] { return exec(r, k); });
      case K::Broadcast: {
        auto values = pool::broadcast<P, M>([&r, k = n.kids[0]](BroadcastContext) { return exec(r, k); });
        std::uint64_t sum = 0;
        for (std::uint64_t v : values) sum += v;
        return sum;
      }
      case K::Spawn:
        pool::spawn<P, M>([&r, k = n.kids[0]] {
          try {
            exec(r, k);
          } catch (...) {
            r.spawns_done.fetch_add(1);
            throw;  // to the pool's panic handler
          }
          r.spawns_done.fetch_add(1);
        });
        return 0;
    }
    return 0;
  }

  static void run_program(C& c, const Program& prog) {
    const Program::Expected e = prog.expected();
    ProgramRun r(prog);
    std::size_t workers = 0;
    for (std::size_t i = 0; i < prog.pool_threads.size(); ++i) {
      Builder b;
      b.num_threads(prog.pool_threads[i]);
      b.exit_handler([exited = r.exited](std::size_t) { exited->fetch_add(1); });
      b.panic_handler([h = r.handled](std::exception_ptr ep) {
        try {
          std::rethrow_exception(ep);
        } catch (const Thrown& t) {
          std::lock_guard<std::mutex> g(h->m);
          h->ids.insert(t.id);
        } catch (...) {
        }
        h->count.fetch_add(1);
      });
      r.pools.push_back(std::make_unique<typename C::TrackedPool>("program-p" + std::to_string(i), std::move(b)));
      workers += prog.pool_threads[i];
    }
    auto render_outcome = [](const Program::Outcome& o) {
      if (!o.throws) return "value " + std::to_string(o.value);
      std::string s = "an exception from";
      for (std::uint32_t id : o.ids) s += " #" + std::to_string(id);
      return s;
    };
    std::vector<typename E::Thread> callers;
    for (std::size_t t = 0; t < prog.callers; ++t) {
      callers.push_back(E::start([&, t] {
        typename C::ThreadStatus status("caller-" + std::to_string(t));
        status.set("install(program)");
        Program::Outcome got;
        try {
          got.value = exec(r, 0);
        } catch (const Thrown& th) {
          got.throws = true;
          got.ids = {static_cast<std::uint32_t>(th.id)};
        }
        status.set(nullptr);
        const bool ok = got.throws == e.outcome.throws &&
                        (got.throws ? e.outcome.ids.count(*got.ids.begin()) == 1 : got.value == e.outcome.value);
        c.check(ok, "program: caller " + std::to_string(t) + " got " + render_outcome(got) + ", sequential " +
                        render_outcome(e.outcome));
      }));
    }
    for (auto& t : callers) E::join(t);
    typename C::ThreadStatus status("main");
    status.set("waiting for the program's detached spawns and their exceptions");
    while (r.spawns_done.load() < e.spawns || r.handled->count.load() < e.handled) E::sleep_us(50);
    for (std::size_t i = 0; i < prog.nodes.size(); ++i) {
      const std::uint64_t got = r.runs[i].load();
      c.check(got == e.runs[i], "program: node #" + std::to_string(i) + " (" +
                                    Program::to_string(prog.nodes[i].kind) + ") ran " + std::to_string(got) +
                                    " times, sequential " + std::to_string(e.runs[i]));
    }
    {
      std::lock_guard<std::mutex> g(r.handled->m);
      c.check(r.handled->count.load() == e.handled,
              "program: the panic handlers got " + std::to_string(r.handled->count.load()) +
                  " exceptions, sequential " + std::to_string(e.handled));
      for (std::uint32_t id : r.handled->ids) {
        c.check(e.handled_ids.count(id) == 1,
                "program: a panic handler got #" + std::to_string(id) + ", which no detached spawn throws");
      }
    }
    // Dropping the pools terminates them; every worker must leave.
    r.pools.clear();
    status.set("waiting for the program's pools to terminate");
    while (r.exited->load() < workers) E::sleep_us(50);
    status.set(nullptr);
    Progress::tick();
  }

  static void program(C& c) {
    if (!c.spec.input.empty()) {
      ByteSource src(reinterpret_cast<const std::uint8_t*>(c.spec.input.data()), c.spec.input.size());
      const Program prog = Program::decode(src);
      for (std::size_t it = 0; it < c.spec.iterations && !c.failed(); ++it) run_program(c, prog);
      return;
    }
    for (std::size_t it = 0; it < c.spec.iterations && !c.failed(); ++it) {
      Rng rng = c.rng.fork();
      run_program(c, Program::decode(rng));
    }
  }

  // ---- mixed ----

  static void mixed(C& c) {
    RunSpec one = c.spec;
    one.iterations = 1;
    for (std::size_t it = 0; it < c.spec.iterations; ++it) {
      C sub(one, c.rng.next());
      static const std::vector<std::string> pick = scenario_names_where(&ScenarioInfo::in_mixed);
      run(sub, pick[c.rng.below(pick.size())]);
      if (sub.failed()) {
        Verdict v = sub.verdict();
        c.check(false, v.message);
      }
    }
  }

  // Runs the named scenario; false if there is no such scenario.
  static bool run(C& c, const std::string& name) {
#define WSSTRESS_SCENARIO_CASE(scenario, in_mixed, fuzzed) \
  if (name == #scenario) {                                 \
    scenario(c);                                           \
    return true;                                           \
  }
    WSSTRESS_SCENARIOS(WSSTRESS_SCENARIO_CASE)
#undef WSSTRESS_SCENARIO_CASE
    return false;
  }
};

}  // namespace wsstress::stress
