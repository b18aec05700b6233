// SPDX-License-Identifier: MIT OR Apache-2.0
// Termination and lifetime: dropping a pool stops its workers (asleep or busy),
// spawned work keeps a pool alive, the registry is freed once the last worker
// leaves, and failed builds terminate the workers they started.
#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace {
using namespace wsstress::pool;
using namespace wsstress::test;

// Observes the registry's destruction: the builder's handlers are owned by the
// registry, so a token they capture dies with it.
struct FreedProbe {
  std::shared_ptr<int> token = std::make_shared<int>(0);
  std::weak_ptr<int> watch = token;
  // Attaches to `b` and drops the probe's own reference.
  void attach(Builder& b) {
    b.panic_handler([t = token](std::exception_ptr) { (void)t; });
    token.reset();
  }
  bool freed() const { return watch.expired(); }
};

TEST(Termination, DroppingASleepingPoolStopsEveryWorker) {
  LifeCounter life;
  FreedProbe freed;
  {
    Builder b;
    b.num_threads(4);
    life.attach(b);
    freed.attach(b);
    Pool pool(std::move(b));
    ASSERT_TRUE(eventually([&] { return pool.registry().sleep().counters_snapshot().sleeping_threads() == 4; }));
  }
  // terminate() must wake the sleepers (rayon #200), or they never exit.
  ASSERT_TRUE(eventually([&] { return life.exited.load() == 4; }));
  EXPECT_EQ(life.started.load(), 4);
  ASSERT_TRUE(eventually([&] { return freed.freed(); }));
}

TEST(Termination, SpawnedJobsKeepThePoolAliveAndAllRun) {
  LifeCounter life;
  FreedProbe freed;
  auto ran = std::make_shared<std::atomic<int>>(0);
  {
    Builder b;
    b.num_threads(2);
    life.attach(b);
    freed.attach(b);
    Pool pool(std::move(b));
    for (int i = 0; i < 100; ++i) {
      pool.spawn([ran] {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        ran->fetch_add(1);
      });
    }
  }  // the handle is gone; 100 jobs still hold the pool
  ASSERT_TRUE(eventually([&] { return life.exited.load() == 2; }));
  EXPECT_EQ(ran->load(), 100);
  ASSERT_TRUE(eventually([&] { return freed.freed(); }));
}

TEST(Termination, LastHandleDroppedWhileOutsideThreadsAreMidInstall) {
  for (int round = 0; round < 10; ++round) {
    LifeCounter life;
    FreedProbe freed;
    Builder b;
    b.num_threads(3);
    life.attach(b);
    freed.attach(b);
    auto pool = std::make_shared<Pool>(std::move(b));
    std::atomic<long> sum{0};
    std::atomic<int> ready{0};
    std::vector<std::thread> callers;
    for (int c = 0; c < 4; ++c) {
      callers.emplace_back([&, p = pool, c]() mutable {
        ready.fetch_add(1);
        for (int i = 0; i < 50; ++i) {
          sum.fetch_add(p->install([&] {
            auto [x, y] = join<P, M>([&] { return long{c}; }, [&] { return long{i}; });
            return x + y;
          }));
        }
        p.reset();  // one of the callers drops the last handle
      });
    }
    ASSERT_TRUE(eventually([&] { return ready.load() == 4; }));
    pool.reset();  // the main thread's handle goes while the callers are inside
    for (auto& t : callers) t.join();
    EXPECT_EQ(sum.load(), 50L * (0 + 1 + 2 + 3) + 4L * (49 * 50 / 2));
    ASSERT_TRUE(eventually([&] { return life.exited.load() == 3; })) << "round " << round;
    ASSERT_TRUE(eventually([&] { return freed.freed(); })) << "round " << round;
  }
}

TEST(Termination, ChurnCrossPoolInstallsWhileTheCallerPoolDies) {
  // A worker of a short-lived pool A waits in B through SpinLatch::cross; A's
  // handle is dropped as soon as the install returns. Without the cross latch's
  // keep-alive, B's worker could notify A's freed registry (ASan catches that).
  Pool b(Builder().num_threads(2));
  for (int i = 0; i < 200; ++i) {
    Pool a(Builder().num_threads(1));
    EXPECT_EQ(a.install([&] { return b.install([i] { return i; }); }), i);
  }
}

TEST(Termination, BroadcastFromAWorkerOfADyingPool) {
  Pool b(Builder().num_threads(2));
  for (int i = 0; i < 100; ++i) {
    Pool a(Builder().num_threads(1));
    auto r = a.install([&] { return b.broadcast([](BroadcastContext<P, M> ctx) { return ctx.index(); }); });
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0], 0u);
    EXPECT_EQ(r[1], 1u);
  }
}

// A spawned closure's captures die before the job gives back its terminate
// count, as in Rust where the call consumes the closure: a destructor that
// spawns follow-up work still finds the pool alive, and that work runs.
TEST(Termination, SpawnedClosureDiesBeforeItsTerminateCount) {
  auto continuation_ran = std::make_shared<std::atomic<bool>>(false);
  std::atomic<bool> release{false};
  LifeCounter life;
  {
    Builder b;
    b.num_threads(1);
    life.attach(b);
    Pool pool(std::move(b));
    struct SpawnOnDrop {
      Registry<P, M>* registry;
      std::shared_ptr<std::atomic<bool>> flag;
      bool armed = true;
      SpawnOnDrop(Registry<P, M>* r, std::shared_ptr<std::atomic<bool>> f) : registry(r), flag(std::move(f)) {}
      SpawnOnDrop(SpawnOnDrop&& o) noexcept
          : registry(o.registry), flag(o.flag), armed(std::exchange(o.armed, false)) {}
      ~SpawnOnDrop() {
        if (armed) spawn_in<P, M>([f = flag] { f->store(true); }, *registry);
      }
    };
    pool.spawn([guard = SpawnOnDrop(&pool.registry(), continuation_ran), &release] {
      while (!release.load()) std::this_thread::yield();
    });
  }
  release = true;  // the handle is gone before the job ends
  ASSERT_TRUE(eventually([&] { return life.exited.load() == 1; }));
  EXPECT_TRUE(continuation_ran->load());
}

// If copying the closure throws, spawn throws and takes no terminate count, so
// the pool still stops when its handle goes.
TEST(Termination, SpawnWhoseClosureCannotBeCopiedLeavesThePoolTerminable) {
  struct ThrowsOnCopy {
    ThrowsOnCopy() = default;
    ThrowsOnCopy(const ThrowsOnCopy&) { throw std::runtime_error("copy"); }
    void operator()() const {}
  };
  LifeCounter life;
  {
    Builder b;
    b.num_threads(2);
    life.attach(b);
    Pool pool(std::move(b));
    const ThrowsOnCopy f;
    EXPECT_THROW(pool.spawn(f), std::runtime_error);
  }
  ASSERT_TRUE(eventually([&] { return life.exited.load() == 2; }));
}

TEST(Build, FailedSpawnTerminatesTheWorkersAlreadyStarted) {
  LifeCounter life;
  FreedProbe freed;
  Builder b;
  b.num_threads(4);
  life.attach(b);
  freed.attach(b);
  int calls = 0;
  b.spawn_handler([&](ThreadBuilder<P, M> t) -> std::error_code {
    if (++calls == 3) return std::make_error_code(std::errc::resource_unavailable_try_again);
    std::thread([t = std::move(t)]() mutable { t.run(); }).detach();
    return {};
  });
  try {
    Pool pool(std::move(b));
    ADD_FAILURE() << "build succeeded";
  } catch (const ThreadPoolBuildError& e) {
    EXPECT_EQ(e.kind(), ThreadPoolBuildError::Kind::IOError);
    EXPECT_EQ(e.code(), std::make_error_code(std::errc::resource_unavailable_try_again));
  }
  // The two started workers saw the terminate latch and left (rayon a29cb5c).
  ASSERT_TRUE(eventually([&] { return life.exited.load() == 2; }));
  EXPECT_EQ(life.started.load(), 2);
  ASSERT_TRUE(eventually([&] { return freed.freed(); }));
}

TEST(Build, ThrowingThreadNameCallbackTerminatesStartedWorkers) {
  LifeCounter life;
  FreedProbe freed;
  Builder b;
  b.num_threads(3);
  life.attach(b);
  freed.attach(b);
  b.thread_name([](std::size_t i) -> std::string {
    if (i == 2) throw std::invalid_argument("no name for 2");
    return "w" + std::to_string(i);
  });
  EXPECT_THROW(Pool(std::move(b)), std::invalid_argument);
  ASSERT_TRUE(eventually([&] { return life.exited.load() == 2; }));
  ASSERT_TRUE(eventually([&] { return freed.freed(); }));
}

TEST(Build, TinyStackSizesAreRoundedUpAsRustDoes) {
  // Rust's std raises a stack size to PTHREAD_STACK_MIN and rounds it to pages.
  Builder b;
  b.num_threads(2).stack_size(1);
  Pool pool(std::move(b));
  EXPECT_EQ(pool.install([] { return 7; }), 7);
}

TEST(Build, StackSizeTheOsRefusesIsAnIoError) {
  Builder b;
  b.num_threads(2).stack_size(std::size_t{1} << 52);  // 4 PiB: no mapping for that
  try {
    Pool pool(std::move(b));
    ADD_FAILURE() << "build succeeded";
  } catch (const ThreadPoolBuildError& e) {
    EXPECT_EQ(e.kind(), ThreadPoolBuildError::Kind::IOError);
    EXPECT_TRUE(e.code()) << "an error code names the failure";
  }
}

TEST(Build, StackSizeAndThreadNamesApply) {
  Builder b;
  b.num_threads(2).stack_size(1 << 20).thread_name([](std::size_t i) { return "wss-worker-" + std::to_string(i); });
  Pool pool(std::move(b));
  auto names = pool.broadcast([](BroadcastContext<P, M>) {
    char buf[32] = {};
    pthread_getname_np(pthread_self(), buf, sizeof buf);
    return std::string(buf);
  });
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0], "wss-worker-0");  // 12 characters: under Linux's 15
  EXPECT_EQ(names[1], "wss-worker-1");
}

TEST(Build, ZeroThreadsMeansTheDefault) {
  Pool pool(Builder().num_threads(0));
  EXPECT_GE(pool.current_num_threads(), 1u);
}

TEST(Build, ThreadCountFromTheEnvironmentFollowsRayon) {
  // requested > 0 wins
  EXPECT_EQ(resolve_num_threads(3, "7", "9", 2), 3u);
  // RAYON_NUM_THREADS when it parses and is non-zero
  EXPECT_EQ(resolve_num_threads(0, "7", nullptr, 2), 7u);
  EXPECT_EQ(resolve_num_threads(0, "+7", nullptr, 2), 7u);
  // 0 there means the CPU count, without looking further
  EXPECT_EQ(resolve_num_threads(0, "0", "9", 2), 2u);
  // unparsable: fall through to RAYON_RS_NUM_CPUS, then the CPU count
  EXPECT_EQ(resolve_num_threads(0, "seven", "9", 2), 9u);
  EXPECT_EQ(resolve_num_threads(0, " 7", nullptr, 2), 2u);
  EXPECT_EQ(resolve_num_threads(0, "7x", nullptr, 2), 2u);
  EXPECT_EQ(resolve_num_threads(0, "-1", nullptr, 2), 2u);
  EXPECT_EQ(resolve_num_threads(0, "", nullptr, 2), 2u);
  EXPECT_EQ(resolve_num_threads(0, "99999999999999999999999", nullptr, 2), 2u);  // overflows usize
  EXPECT_EQ(resolve_num_threads(0, nullptr, "0", 2), 2u);
  EXPECT_EQ(resolve_num_threads(0, nullptr, nullptr, 5), 5u);
}

TEST(Build, AbsurdThreadCountsAreCappedAtMaxNumThreads) {
  // A spawn handler that accepts every thread but never runs it shows how many
  // workers the registry planned without starting 65535 OS threads.
  std::size_t spawned = 0;
  Builder b;
  b.num_threads(std::size_t{1} << 40).spawn_handler([&](ThreadBuilder<P, M>) -> std::error_code {
    ++spawned;
    return {};
  });
  Pool pool(std::move(b));
  EXPECT_EQ(spawned, max_num_threads());
  EXPECT_EQ(pool.current_num_threads(), 65535u);
}

}  // namespace
