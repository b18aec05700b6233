// SPDX-License-Identifier: MIT OR Apache-2.0
// The scenarios of scopes, broadcasts and exceptions: a scope whose latch is
// set from another pool while its own pool is dropped (cross_scope), nested
// scopes and spawns (scope), broadcasts racing installs and sleep (broadcast),
// and throws that must each reach the right place once (exception).
#pragma once

#include "wsstress/core/scenarios/common.hpp"

namespace wsstress::core {

template <class P, class M>
struct ScopeScenarios {
  WSSTRESS_SCENARIO_TYPES(P, M)

  // ---- cross_scope ----

  // What the short-lived pool's job reports back to the main thread.
  struct CrossScopeRun {
    std::atomic<std::uint64_t> ran{0};   // jobs run in the other pool
    std::atomic<bool> returned{false};   // the scope or broadcast returned
    std::atomic<bool> in_order{true};    // broadcast: one result per worker, in index order
    std::atomic<std::size_t> exited{0};  // the short-lived pool's worker left
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
  // registry (the 1.10.1 ScopeLatch, to 1.11.0). Waits, as rayon's tests
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
      c.check(r->ran.load() == n_jobs, [&] {
        return "cross_scope: " + std::to_string(r->ran.load()) + " jobs ran in the other pool, " +
               std::to_string(n_jobs) + " expected";
      });
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
      c.check(ran.load() == expected, [&] {
        return "scope: " + std::to_string(ran.load()) + " jobs ran, " + std::to_string(expected) +
               " spawned, before the scope returned";
      });
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

  // What one exception run shares across its iterations: the pool, the next
  // exception id, and the ids thrown by spawned jobs (the panic handler's).
  struct ExceptionRun {
    C& c;
    Pool& p;
    typename C::ThreadStatus& status;
    std::uint64_t next_id = 1;
    std::set<std::uint64_t> spawned_ids;
  };

  // join: A's exception wins; B's only if A succeeded.
  static void throw_in_join(ExceptionRun& r, Rng& rng) {
    const bool a_throws = rng.chance(2), b_throws = rng.chance(2);
    const std::uint64_t ia = r.next_id++, ib = r.next_id++;
    std::atomic<int> ran{0};
    r.status.set("install(join with throwing halves)");
    try {
      r.p.install([&] {
        pool::join<P, M>(
            [&] {
              ran.fetch_add(1);
              if (a_throws) throw Thrown{ia};
            },
            [&] {
              ran.fetch_add(1);
              if (b_throws) throw Thrown{ib};
            });
      });
      r.c.check(!a_throws && !b_throws, "exception: join swallowed an exception");
    } catch (const Thrown& t) {
      r.c.check(a_throws ? t.id == ia : (b_throws && t.id == ib), "exception: join rethrew the wrong exception");
    }
    r.c.check(ran.load() == 2, "exception: a join half did not run");
  }

  // A scope rethrows one of its jobs' exceptions after all ran.
  static void throw_in_scope(ExceptionRun& r, Rng& rng) {
    const std::uint64_t n = 1 + rng.below(8);
    std::set<std::uint64_t> thrown;
    std::vector<bool> throws(n);
    std::vector<std::uint64_t> job_ids(n);
    for (std::uint64_t i = 0; i < n; ++i) {
      throws[i] = rng.chance(3);
      job_ids[i] = r.next_id++;
      if (throws[i]) thrown.insert(job_ids[i]);
    }
    std::atomic<std::uint64_t> ran{0};
    r.status.set("scope with throwing jobs");
    try {
      r.p.scope([&](Scope& s) {
        for (std::uint64_t i = 0; i < n; ++i) {
          s.spawn([&, i](Scope&) {
            ran.fetch_add(1);
            if (throws[i]) throw Thrown{job_ids[i]};
          });
        }
      });
      r.c.check(thrown.empty(), "exception: scope swallowed an exception");
    } catch (const Thrown& t) {
      r.c.check(thrown.count(t.id) == 1, "exception: scope rethrew an exception no job threw");
    }
    r.c.check(ran.load() == n, "exception: scope returned before all its jobs ran");
  }

  // spawn: to the panic handler, exactly once (checked at the end of the run).
  static void throw_in_spawn(ExceptionRun& r) {
    const std::uint64_t id = r.next_id++;
    r.spawned_ids.insert(id);
    r.status.set("spawn(throwing job)");
    r.p.spawn([id] { throw Thrown{id}; });
  }

  // broadcast: the first in index order is rethrown.
  static void throw_in_broadcast(ExceptionRun& r, Rng& rng) {
    const std::size_t n = r.p.current_num_threads();
    std::vector<bool> throws(n);
    std::uint64_t first = 0;
    const std::uint64_t base = r.next_id;
    r.next_id += n;
    for (std::size_t i = 0; i < n; ++i) {
      throws[i] = rng.chance(2);
      if (throws[i] && first == 0) first = base + i;
    }
    std::atomic<std::size_t> ran{0};
    r.status.set("broadcast with throwing workers");
    try {
      r.p.broadcast([&](BroadcastContext ctx) {
        ran.fetch_add(1);
        if (throws[ctx.index()]) throw Thrown{base + ctx.index()};
        return 0;
      });
      r.c.check(first == 0, "exception: broadcast swallowed an exception");
    } catch (const Thrown& t) {
      r.c.check(t.id == first, "exception: broadcast rethrew other than the lowest index's exception");
    }
    r.c.check(ran.load() == n, "exception: a broadcast job did not run");
  }

  // install from outside: the closure's exception comes back to the caller.
  static void throw_in_install(ExceptionRun& r) {
    const std::uint64_t id = r.next_id++;
    r.status.set("install(throwing)");
    try {
      r.p.install([&]() -> int { throw Thrown{id}; });
      r.c.check(false, "exception: install swallowed an exception");
    } catch (const Thrown& t) {
      r.c.check(t.id == id, "exception: install rethrew the wrong exception");
    }
  }

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
    typename C::ThreadStatus status("main");
    ExceptionRun r{c, **pool, status, 1, {}};
    for (std::size_t it = 0; it < c.spec.iterations; ++it) {
      Rng rng = c.rng.fork();
      switch (rng.below(5)) {
        case 0: throw_in_join(r, rng); break;
        case 1: throw_in_scope(r, rng); break;
        case 2: throw_in_spawn(r); break;
        case 3: throw_in_broadcast(r, rng); break;
        default: throw_in_install(r);
      }
      status.set(nullptr);
      Progress::tick();
    }
    status.set("waiting for the panic handler");
    const auto& spawned = r.spawned_ids;
    while (handled->load() < spawned.size()) E::sleep_us(50);
    std::lock_guard<std::mutex> g(*handled_ids);
    c.check(handled->load() == spawned.size() && std::set<std::uint64_t>(ids->begin(), ids->end()) == spawned &&
                ids->size() == spawned.size(),
            "exception: the panic handler did not get each spawned exception exactly once");
  }
};

}  // namespace wsstress::core
