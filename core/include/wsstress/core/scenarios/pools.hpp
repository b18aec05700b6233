// SPDX-License-Identifier: MIT OR Apache-2.0
// The scenarios of pools and their threads: join trees (join), outside
// threads entering pools that had time to fall asleep (inject), install chains
// across pools (cross), and pools dropped with work in flight (terminate).
#pragma once

#include "wsstress/core/scenarios/common.hpp"

namespace wsstress::core {

template <class P, class M>
struct PoolScenarios {
  WSSTRESS_SCENARIO_TYPES(P, M)

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
    c.check(got == expected,
            [&] { return "join tree: got " + std::to_string(got) + ", sequential " + std::to_string(expected); });
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
      if (t.nodes[i].left < 0) {
        const int v = visits[i].load();
        c.check(v == 1, [&] { return "join tree: leaf ran " + std::to_string(v) + " times"; });
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

  // ---- rendezvous ----

  // The parallelism oracle: join(a, b) where `a` blocks until `b` has started.
  // `b` can only run on another worker, so a worker that should have been
  // woken (or kept awake) for the push and was not leaves everyone blocked: a
  // lost wake-up that elsewhere costs only a helper is a hang here. Two
  // workers at least, whatever the run asks (a shrunk run too).
  static void rendezvous(C& c) {
    auto pool = c.make_pool("rendezvous", Builder(), 2);
    typename C::ThreadStatus status("main");
    for (std::size_t it = 0; it < c.spec.iterations; ++it) {
      Rng rng = c.rng.fork();
      // Give the other workers time to get sleepy or fall asleep.
      if (rng.chance(2)) E::sleep_us(rng.below(300));
      typename P::Mutex m;
      typename P::CondVar cv;
      bool started = false;
      status.set("install(join(wait for b to start, b))");
      auto [a, b] = (**pool).install([&] {
        return pool::join<P, M>(
            [&] {
              std::unique_lock<typename P::Mutex> lock(m);
              while (!started) cv.wait(lock);
              return 1;
            },
            [&] {
              {
                std::lock_guard<typename P::Mutex> lock(m);
                started = true;
              }
              cv.notify_all();
              return 2;
            });
      });
      c.check(a == 1 && b == 2, "rendezvous: join returned wrong values");
      status.set(nullptr);
      Progress::tick();
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
          c.check(got == expected, [&] {
            return "cross: chain returned " + std::to_string(got) + ", expected " + std::to_string(expected);
          });
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
};

}  // namespace wsstress::core
