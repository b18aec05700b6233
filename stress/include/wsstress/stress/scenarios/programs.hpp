// The program scenario: a nested program of the fuzzers' language
// (program.hpp) over up to three pools, from the seed or from the run's input
// bytes, checked against its sequential interpreter.
#pragma once

#include "wsstress/stress/program.hpp"
#include "wsstress/stress/scenarios/common.hpp"

namespace wsstress::stress {

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
    typename E::JoinedWorkers worker_threads;  // destroyed after r's pools
    ProgramRun r(prog);
    std::size_t workers = 0;
    for (std::size_t i = 0; i < prog.pool_threads.size(); ++i) {
      Builder b;
      b.num_threads(prog.pool_threads[i]);
      b.spawn_handler(worker_threads.template handler<M>());
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
        c.check(ok, [&] {
          return "program: caller " + std::to_string(t) + " got " + render_outcome(got) + ", sequential " +
                 render_outcome(e.outcome);
        });
      }));
    }
    for (auto& t : callers) E::join(t);
    typename C::ThreadStatus status("main");
    status.set("waiting for the program's detached spawns and their exceptions");
    while (r.spawns_done.load() < e.spawns || r.handled->count.load() < e.handled) E::sleep_us(50);
    for (std::size_t i = 0; i < prog.nodes.size(); ++i) {
      const std::uint64_t got = r.runs[i].load();
      c.check(got == e.runs[i], [&] {
        return "program: node #" + std::to_string(i) + " (" + Program::to_string(prog.nodes[i].kind) + ") ran " +
               std::to_string(got) + " times, sequential " + std::to_string(e.runs[i]);
      });
    }
    {
      std::lock_guard<std::mutex> g(r.handled->m);
      c.check(r.handled->count.load() == e.handled, [&] {
        return "program: the panic handlers got " + std::to_string(r.handled->count.load()) +
               " exceptions, sequential " + std::to_string(e.handled);
      });
      for (std::uint32_t id : r.handled->ids) {
        c.check(e.handled_ids.count(id) == 1, [&] {
          return "program: a panic handler got #" + std::to_string(id) + ", which no detached spawn throws";
        });
      }
    }
    // Dropping the pools terminates them; every worker must leave, and has
    // left its thread once joined (the simulator's fibers: once all exited).
    r.pools.clear();
    status.set("waiting for the program's pools to terminate");
    worker_threads.join_all();
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
};

}  // namespace wsstress::stress
