// Three GoKer blocking kernels (GoBench, CGO 2021: Yuan et al., "GoBench: A
// Benchmark Suite of Real-World Go Concurrency Bugs"), ported over the
// platform policy with go_runtime.hpp standing for Go's channels, WaitGroup
// and goroutines. Source: github.com/timmyyuan/gobench at commit
// 2e91eb10b8e7b2873ea44f12b87ec1b2520e1b69, gobench/goker/blocking/<path>.
// Each kernel keeps its Go test's goroutines and operations in order; its
// oracle is Go's: a goroutine blocked for good (GoKer's verdict, a deadlock
// or a leak) is the simulator's deadlock verdict here (the real-thread
// watchdog's hang), since the port joins every goroutine at the end of the
// test function. Each fixed twin makes the change of the upstream fix commit
// GoKer's header names, read at that commit (cited at each kernel).
#pragma once

#include <string>

#include "wsstress/stress/progress.hpp"
#include "wsstress/stress/scenarios/go_runtime.hpp"

namespace wsstress::stress {

template <class P>
struct GoKerKernels {
  using Go = GoRuntime<P>;
  using Chan = typename Go::Chan;
  using Lock = std::unique_lock<typename P::Mutex>;

  template <class C>
  static auto panics(C& c) {
    return [&c](const std::string& what) { c.check(false, [&] { return "goroutine panicked: " + what; }); };
  }

  // ---- kubernetes/10182 (kubernetes10182_test.go; PR kubernetes#10182) ----
  // A lock-channel deadlock: SetPodStatus sends on the unbuffered
  // podStatusChannel while holding podStatusesLock (a RWMutex used only as
  // Lock/Unlock: a P::Mutex here); the receiver, between its two receives,
  // takes that lock in DeletePodStatus. Twin: syncBatch runs DeletePodStatus
  // in a goroutine of its own, as the fix commit does
  // (kubernetes/kubernetes@64ad3e17:pkg/kubelet/status_manager.go,
  // `go s.DeletePodStatus(podFullName)`), so the receiver never waits for
  // the lock.
  struct StatusManager {
    typename P::Mutex pod_statuses_lock;
    Chan* pod_status_channel;
  };

  template <class C>
  static void kubernetes10182(C& c, bool fixed) {
    Go go(c.rng.next());
    StatusManager s{{}, go.make_chan(0)};
    auto delete_pod_status = [&s] { Lock l(s.pod_statuses_lock); };
    auto sync_batch = [&] {
      go.recv(s.pod_status_channel);
      if (fixed) return go.go(delete_pod_status, panics(c));
      delete_pod_status();
    };
    auto start = [&] {
      go.go([&] {
        for (int i = 0; i < 2; ++i) sync_batch();
      }, panics(c));
    };
    auto set_pod_status = [&] {
      Lock l(s.pod_statuses_lock);
      go.send(s.pod_status_channel);
    };
    go.go(start, panics(c));           // go s.Start()
    go.go(set_pod_status, panics(c));  // G2
    go.go(set_pod_status, panics(c));  // G3
    go.join_all();
    Progress::tick();
  }

  // ---- etcd/6873 (etcd6873_test.go; commit etcd 7618fdd1) ----
  // stop() holds wbs.mu while it closes updatec and waits on donec; the
  // goroutine ranging over updatec needs wbs.mu in coalesce() before it can
  // close donec. Twin: stop() closes updatec under the lock and unlocks
  // before it waits on donec, as the fix commit's watchBroadcasts.stop
  // (etcd-io/etcd@7618fdd1:proxy/grpcproxy/watch_broadcasts.go).
  template <class C>
  static void etcd6873(C& c, bool fixed) {
    Go go(c.rng.next());
    typename P::Mutex mu;
    Chan* updatec = go.make_chan(1);
    Chan* donec = go.make_chan(0);
    go.go([&] {  // G2: for wb := range wbs.updatec { wbs.coalesce(wb) }; defer close(donec)
      while (go.recv(updatec)) {
        Lock l(mu);
      }
      go.close(donec);
    }, panics(c));
    go.select({{updatec, true}}, true);  // wbs.update(): select { case updatec <- wb: default: }
    go.go([&] {                           // G3: go wbs.stop()
      Lock l(mu);
      go.close(updatec);
      if (fixed) l.unlock();
      go.recv(donec);
    }, panics(c));
    go.join_all();
    Progress::tick();
  }

  // ---- moby/25384 (moby25384_test.go; PR moby#25384) ----
  // Manager.init adds len(plugins) to a WaitGroup, then waits on it inside
  // the loop that starts one Done per plugin: with two plugins the first
  // Wait needs a Done the loop has not started yet. Twin: the Wait after the
  // loop, as the fix commit's Manager.init
  // (moby/moby@42360d16:plugin/manager.go).
  template <class C>
  static void moby25384(C& c, bool fixed) {
    Go go(c.rng.next());
    typename Go::WaitGroup group;
    constexpr int kPlugins = 2;
    go.go([&] {  // go pm.init()
      go.add(group, kPlugins);
      for (int p = 0; p < kPlugins; ++p) {
        go.go([&] { go.done(group); }, panics(c));
        if (!fixed) go.wait(group);
      }
      if (fixed) go.wait(group);
    }, panics(c));
    go.join_all();
    Progress::tick();
  }
};

}  // namespace wsstress::stress
