// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// Port of rayon-core 1.10.1 tests/scoped_threadpool.rs: a thread-local set
// around the caller is not visible in a pool, unless the spawn handler (or
// build_scoped's wrapper) sets it around ThreadBuilder::run().
#include <thread>
#include <vector>

#include "rayon_support.hpp"

namespace rayon_test {

struct Local {
  int value;
  friend bool operator==(const Local&, const Local&) = default;
};

// scoped_tls::scoped_thread_local!(static LOCAL: Local)
struct LOCAL {
  static const Local*& slot() {
    static thread_local const Local* p = nullptr;
    return p;
  }
  template <class F>
  static void set(const Local* value, F&& f) {
    const Local* saved = slot();
    slot() = value;
    struct Restore {
      const Local* saved;
      ~Restore() { slot() = saved; }
    } restore{saved};
    f();
  }
  static bool is_set() { return slot() != nullptr; }
  static const Local& with() { return *slot(); }
};

TEST(scoped_threadpool, missing_scoped_tls) {
  Local l{42};
  LOCAL::set(&l, [] {
    ThreadPool pool(ThreadPoolBuilder{});
    pool.install([] { EXPECT_FALSE(LOCAL::is_set()); });
  });
}

TEST(scoped_threadpool, spawn_scoped_tls_threadpool) {
  Local l{42};
  LOCAL::set(&l, [] {
    const Local* x = &LOCAL::with();
    std::vector<std::thread> scope;  // crossbeam's thread::scope: joined at the end
    {
      ThreadPoolBuilder b;
      b.spawn_handler([&](ThreadBuilder thread) -> std::error_code {
        scope.emplace_back([x, t = std::move(thread)]() mutable { LOCAL::set(x, [&] { t.run(); }); });
        return {};
      });
      ThreadPool pool(std::move(b));
      pool.install([x] {
        EXPECT_TRUE(LOCAL::is_set());
        EXPECT_EQ(&LOCAL::with(), x);
      });
      Local other{-1};
      LOCAL::set(&other, [&] {
        pool.install([x] {
          EXPECT_TRUE(LOCAL::is_set());
          EXPECT_EQ(&LOCAL::with(), x);
        });
      });
    }
    for (auto& t : scope) t.join();
  });
}

TEST(scoped_threadpool, build_scoped_tls_threadpool) {
  Local l{42};
  LOCAL::set(&l, [] {
    const Local* x = &LOCAL::with();
    ThreadPoolBuilder().build_scoped([x](ThreadBuilder thread) { LOCAL::set(x, [&] { thread.run(); }); },
                                     [x](ThreadPool& pool) {
                                       pool.install([x] {
                                         EXPECT_TRUE(LOCAL::is_set());
                                         EXPECT_EQ(&LOCAL::with(), x);
                                       });
                                       Local other{-1};
                                       LOCAL::set(&other, [&] {
                                         pool.install([x] {
                                           EXPECT_TRUE(LOCAL::is_set());
                                           EXPECT_EQ(&LOCAL::with(), x);
                                         });
                                       });
                                     });
  });
}

}  // namespace rayon_test
