// SPDX-License-Identifier: MIT OR Apache-2.0
// The program scenario: a nested program of the fuzzers' language
// (program.hpp) over up to three pools, from the seed or from the run's input
// bytes, checked against its sequential interpreter. With a ProgramLog
// (observe), the same run also writes its canonical log (program_log.hpp),
// which `wsstress oracle` compares with rayon-core's; without one it does
// nothing more, so the simulator's schedules do not change.
#pragma once

#include "wsstress/core/program.hpp"
#include "wsstress/core/program_log.hpp"
#include "wsstress/core/scenarios/common.hpp"

namespace wsstress::core {

template <class P, class M>
struct ProgramScenarios {
  WSSTRESS_SCENARIO_TYPES(P, M)

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
    ProgramLog* log = nullptr;  // observe() only
    struct Workers {
      std::atomic<std::uint64_t> started{0}, exited{0};
    };
    std::vector<std::shared_ptr<Workers>> workers;  // per pool, with a log
    ProgramRun(const Program& p, ProgramLog* l) : prog(p), runs(p.nodes.size()), log(l) {}
  };

  // Whether this run is the test-only wrong port `w` (program_log.hpp).
  static bool wrong(const ProgramRun& r, WrongPort w) { return r.log != nullptr && r.log->wrong() == w; }

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
  // `pool`: the pool the node runs in (its nearest install's), for the log.
  static std::uint64_t exec(ProgramRun& r, std::uint16_t id, std::size_t pool) {
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
        auto [a, b] =
            pool::join<P, M>([&] { return exec(r, n.kids[0], pool); }, [&] { return exec(r, n.kids[1], pool); });
        return a + b;
      }
      case K::Scope:
      case K::ScopeFifo:
      case K::InPlaceScope:
        return r.log ? logged_scope(r, id, pool)
                     : scope_node(
                           r, id, pool, [](std::size_t) {}, [] {});
      case K::Install:
        return (*r.pools[n.value])->install([&r, id, k = n.kids[0], p = std::size_t{n.value}] {
          if (r.log) {
            const auto index = pool::current_thread_index<P, M>();
            r.log->add(fact::install(id, p, pool::current_num_threads<P, M>(), index.value_or(0), index.has_value(),
                                     thread_name()));
          }
          return exec(r, k, p);
        });
      case K::Broadcast: {
        auto values = pool::broadcast<P, M>([&r, id, pool, k = n.kids[0]](BroadcastContext ctx) -> std::uint64_t {
          if (wrong(r, WrongPort::BroadcastSkipsOne) && ctx.index() + 1 == ctx.num_threads()) return 0;
          if (r.log) r.log->add(fact::broadcast_index(id, ctx.index(), ctx.num_threads()));
          return exec(r, k, pool);
        });
        std::uint64_t sum = 0;
        for (std::uint64_t v : values) sum += v;
        return sum;
      }
      case K::Spawn: pool::spawn<P, M>([&r, id, pool, k = n.kids[0]] { detached(r, id, pool, k, "spawn"); }); return 0;
      case K::SpawnBroadcast:
        pool::spawn_broadcast<P, M>([&r, id, pool, k = n.kids[0]](BroadcastContext ctx) {
          if (r.log) r.log->add(fact::spawn_broadcast_index(id, ctx.index(), ctx.num_threads()));
          detached(r, id, pool, k, "spawn_broadcast");
        });
        return 0;
    }
    return 0;
  }

  // The body of a detached job (a spawn, or a copy of a spawn_broadcast;
  // `kind` names it in the log): kid `k` run, counted as done however it
  // ends, its exception logged and passed on to the pool's panic handler.
  static void detached(ProgramRun& r, std::uint16_t id, std::size_t pool, std::uint16_t k, const char* kind) {
    try {
      exec(r, k, pool);
    } catch (const Thrown& t) {
      if (r.log) r.log->add(fact::spawn_exception(id, t.id, kind));
      r.spawns_done.fetch_add(1);
      throw;  // to the pool's panic handler
    } catch (...) {
      r.spawns_done.fetch_add(1);
      throw;
    }
    if (r.log) r.log->add(fact::spawn_returned(id, kind));
    r.spawns_done.fetch_add(1);
  }

  // The running thread's name (rayon's thread::current().name()), where the
  // platform names threads (the simulator's fibers have none).
  static std::string thread_name() {
    if constexpr (requires { P::current_thread_name(); }) {
      return P::current_thread_name().value_or("");
    } else {
      return "";
    }
  }

  // A scope (Scope, ScopeFifo or InPlaceScope) spawning each kid; its value is the sum of
  // the kids that returned. `started(i)` and `finished()` run in each job.
  template <class Started, class Finished>
  static std::uint64_t scope_node(ProgramRun& r, std::uint16_t id, std::size_t pool, Started started,
                                  Finished finished) {
    const Program::Node& n = r.prog.nodes[id];
    std::atomic<std::uint64_t> sum{0};
    auto job = [&](std::size_t i) {
      started(i);
      struct Guard {
        Finished& f;
        ~Guard() { f(); }
      } guard{finished};
      sum.fetch_add(exec(r, n.kids[i], pool));
    };
    if (n.kind == Program::Kind::ScopeFifo) {
      pool::scope_fifo<P, M>([&](ScopeFifo& s) {
        for (std::size_t i = 0; i < n.kids.size(); ++i) {
          if (wrong(r, WrongPort::FifoAsLifo)) {  // Scope::spawn's way, on the FIFO scope
            s.base().registry().inject_or_push(s.base().spawn_job_ref(&s, [&job, i](ScopeFifo&) { job(i); }));
          } else {
            s.spawn_fifo([&job, i](ScopeFifo&) { job(i); });
          }
        }
      });
    } else if (n.kind == Program::Kind::InPlaceScope) {
      pool::in_place_scope<P, M>([&](Scope& s) {
        for (std::size_t i = 0; i < n.kids.size(); ++i) s.spawn([&job, i](Scope&) { job(i); });
      });
    } else {
      pool::scope<P, M>([&](Scope& s) {
        for (std::size_t i = 0; i < n.kids.size(); ++i) s.spawn([&job, i](Scope&) { job(i); });
      });
    }
    return sum.load();
  }

  // scope_node, logging whether the scope returned after all its jobs and,
  // on a one-thread pool, the order they started in (LIFO for spawn, FIFO
  // for spawn_fifo: nobody can steal).
  static std::uint64_t logged_scope(ProgramRun& r, std::uint16_t id, std::size_t pool) {
    const Program::Node& n = r.prog.nodes[id];
    const char* kind = Program::kind_name(n.kind);
    const bool one_thread = r.prog.pool_threads[pool] == 1;
    std::mutex m;
    std::string order;
    std::atomic<std::size_t> finished{0};
    auto log_end = [&] {
      r.log->add(fact::scope_returned(kind, id, finished.load() == n.kids.size()));
      if (one_thread) r.log->add(fact::scope_order(kind, id, order));
    };
    std::uint64_t value = 0;
    try {
      value = scope_node(
          r, id, pool,
          [&](std::size_t i) {
            if (!one_thread) return;
            std::lock_guard<std::mutex> g(m);
            order += (order.empty() ? "" : ",") + std::to_string(i);
          },
          [&] { finished.fetch_add(1); });
    } catch (...) {
      log_end();
      throw;
    }
    log_end();
    return value;
  }

  // The program's pools, each with handlers counting exits and the
  // exceptions of detached spawns (and with a log, starts per pool).
  static std::size_t build_pools(ProgramRun& r, typename E::JoinedWorkers& worker_threads) {
    std::size_t workers = 0;
    for (std::size_t i = 0; i < r.prog.pool_threads.size(); ++i) {
      Builder b;
      b.num_threads(r.prog.pool_threads[i]);
      b.spawn_handler(worker_threads.template handler<M>());
      auto counts = std::make_shared<typename ProgramRun::Workers>();
      r.workers.push_back(counts);
      if (r.log) {
        b.start_handler([counts](std::size_t) { counts->started.fetch_add(1); });
        b.thread_name([i](std::size_t w) { return fact::worker_name(i, w); });
      }
      b.exit_handler([exited = r.exited, counts](std::size_t) {
        counts->exited.fetch_add(1);
        exited->fetch_add(1);
      });
      b.panic_handler([h = r.handled, log = r.log, i](std::exception_ptr ep) {
        try {
          std::rethrow_exception(ep);
        } catch (const Thrown& t) {
          if (log) log->add(fact::handler_exception(i, t.id));
          std::lock_guard<std::mutex> g(h->m);
          h->ids.insert(t.id);
        } catch (...) {
        }
        h->count.fetch_add(1);
      });
      r.pools.push_back(std::make_unique<typename C::TrackedPool>("program-p" + std::to_string(i), std::move(b)));
      workers += r.prog.pool_threads[i];
    }
    if (r.log) {
      std::string pools;
      for (std::uint8_t t : r.prog.pool_threads) pools += (pools.empty() ? "" : ",") + std::to_string(t);
      r.log->add(fact::program(pools, r.prog.callers, r.prog.nodes.size()));
    }
    return workers;
  }

  // The outside threads, each running the whole program and checking what it
  // returned or threw against the sequential interpreter.
  static void run_callers(C& c, ProgramRun& r, const Program::Expected& e) {
    auto render_outcome = [](const Program::Outcome& o) {
      if (!o.throws) return "value " + std::to_string(o.value);
      std::string s = "an exception from";
      for (std::uint32_t id : o.ids) s += " #" + std::to_string(id);
      return s;
    };
    std::vector<typename E::Thread> callers;
    for (std::size_t t = 0; t < r.prog.callers; ++t) {
      callers.push_back(E::start([&, t] {
        typename C::ThreadStatus status("caller-" + std::to_string(t));
        status.set("install(program)");
        Program::Outcome got;
        try {
          got.value = exec(r, 0, 0);
        } catch (const Thrown& th) {
          got.throws = true;
          got.ids = {static_cast<std::uint32_t>(th.id)};
        }
        status.set(nullptr);
        if (r.log) r.log->add(got.throws ? fact::caller_exception(*got.ids.begin()) : fact::caller_value(got.value));
        const bool ok = got.throws == e.outcome.throws &&
                        (got.throws ? e.outcome.ids.count(*got.ids.begin()) == 1 : got.value == e.outcome.value);
        c.check(ok, [&] {
          return "program: caller " + std::to_string(t) + " got " + render_outcome(got) + ", sequential " +
                 render_outcome(e.outcome);
        });
      }));
    }
    for (auto& t : callers) E::join(t);
  }

  // The leaves' run counts and the panic handlers' exceptions, checked
  // against the sequential interpreter (and logged, with a log).
  static void check_counts(C& c, ProgramRun& r, const Program::Expected& e) {
    const Program& prog = r.prog;
    for (std::size_t i = 0; i < prog.nodes.size(); ++i) {
      const std::uint64_t got = r.runs[i].load();
      const auto kind = prog.nodes[i].kind;
      if (r.log && (kind == Program::Kind::Leaf || kind == Program::Kind::Throw)) {
        r.log->set(fact::ran(i, Program::kind_name(kind)), got);
      }
      c.check(got == e.runs[i], [&] {
        return "program: node #" + std::to_string(i) + " (" + Program::kind_name(prog.nodes[i].kind) + ") ran " +
               std::to_string(got) + " times, sequential " + std::to_string(e.runs[i]);
      });
    }
    std::lock_guard<std::mutex> g(r.handled->m);
    c.check(r.handled->count.load() == e.handled, [&] {
      return "program: the panic handlers got " + std::to_string(r.handled->count.load()) + " exceptions, sequential " +
             std::to_string(e.handled);
    });
    for (std::uint32_t id : r.handled->ids) {
      c.check(e.handled_ids.count(id) == 1, [&] {
        return "program: a panic handler got #" + std::to_string(id) + ", which no detached spawn throws";
      });
    }
  }

  static void run_program(C& c, const Program& prog, ProgramLog* log = nullptr) {
    const Program::Expected e = prog.expected();
    typename E::JoinedWorkers worker_threads;  // destroyed after r's pools
    ProgramRun r(prog, log);
    const std::size_t workers = build_pools(r, worker_threads);
    run_callers(c, r, e);
    typename C::ThreadStatus status("main");
    status.set("waiting for the program's detached spawns and their exceptions");
    while (r.spawns_done.load() < e.spawns || r.handled->count.load() < e.handled) E::sleep_us(50);
    check_counts(c, r, e);
    // Dropping the pools terminates them; every worker must leave, and has
    // left its thread once joined (the simulator's fibers: once all exited).
    r.pools.clear();
    status.set("waiting for the program's pools to terminate");
    worker_threads.join_all();
    while (r.exited->load() < workers) E::sleep_us(50);
    status.set(nullptr);
    if (log) {
      for (std::size_t i = 0; i < r.workers.size(); ++i) {
        log->add(fact::pool_workers(i, r.workers[i]->started.load(), r.workers[i]->exited.load()));
      }
    }
    Progress::tick();
  }

  // One run of `prog` that also writes its canonical log (program_log.hpp);
  // c's checks still compare it with the sequential interpreter.
  static void observe(C& c, const Program& prog, ProgramLog& log) { run_program(c, prog, &log); }

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
};

}  // namespace wsstress::core
