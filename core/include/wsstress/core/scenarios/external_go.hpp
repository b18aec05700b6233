// SPDX-License-Identifier: Apache-2.0 AND LicenseRef-GoBench-unlicensed
// SPDX-FileCopyrightText: Ting Yuan et al. (GoBench); The Kubernetes Authors; The etcd Authors; Docker, Inc.; The wsstress developers
// Four GoKer blocking kernels (GoBench, CGO 2021: Yuan et al., "GoBench: A
// Benchmark Suite of Real-World Go Concurrency Bugs"), ported over the
// platform policy with go_runtime.hpp standing for Go's channels, WaitGroup,
// Mutex, Cond and goroutines. Source: github.com/timmyyuan/gobench at commit
// 2e91eb10b8e7b2873ea44f12b87ec1b2520e1b69, gobench/goker/blocking/<path>.
// Each kernel keeps its Go test's goroutines and operations in order; its
// oracle is Go's: a goroutine blocked for good (GoKer's verdict, a deadlock
// or a leak) is the simulator's deadlock verdict here (the real-thread
// watchdog's hang), since the port joins every goroutine at the end of the
// test function. Each fixed twin makes the change of the upstream fix commit
// GoKer's header names, read at that commit (cited at each kernel; for
// kubernetes/11298, whose header names none, the upstream file after its fix).
#pragma once

#include <string>

#include "wsstress/core/progress.hpp"
#include "wsstress/core/scenarios/go_runtime.hpp"

namespace wsstress::core {

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
      go.go(
          [&] {
            for (int i = 0; i < 2; ++i) sync_batch();
          },
          panics(c));
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
    go.go(
        [&] {  // G2: for wb := range wbs.updatec { wbs.coalesce(wb) }; defer close(donec)
          while (go.recv(updatec)) {
            Lock l(mu);
          }
          go.close(donec);
        },
        panics(c));
    go.select({{updatec, true}}, true);  // wbs.update(): select { case updatec <- wb: default: }
    go.go(
        [&] {  // G3: go wbs.stop()
          Lock l(mu);
          go.close(updatec);
          if (fixed) l.unlock();
          go.recv(donec);
        },
        panics(c));
    go.join_all();
    Progress::tick();
  }

  // ---- kubernetes/11298 (kubernetes11298_test.go; PR kubernetes#11298) ----
  // A lost signal on a sync.Cond. serviceLoop holds n.lock and runs
  // n.cond.Wait in a goroutine of its own (After), whose Wait unlocks n.lock
  // for it (a Go mutex has no owner); when `abort` (the notifier's end) is
  // closed it calls n.cond.Signal() "to ensure that Wait() returns", then
  // waits for that goroutine. If the goroutine has not reached Wait yet, the
  // Signal finds no waiter and is forgotten: the goroutine then waits for
  // good, and serviceLoop with it. The test's time.Sleep(300 ns) before
  // close(done) and Until's select on time.After(0) only time the run; they
  // are left out (neither blocks for good). The notifier, which signals in a
  // loop until done is closed, signals at most kRounds times here and then
  // waits for done: a loop without end would let an unfair schedule (PCT's
  // priorities, DFS's runs without preemption) starve the goroutine that
  // closes done. Twin: the notifier as upstream has it after the fix, which
  // replaced the Cond with a channel the service loop selects on
  // (kubernetes/kubernetes@8a1c20ba:contrib/mesos/pkg/election/master.go:
  // `masters`, buffered 1; the send gives up when abort is closed and drops
  // a value still queued). The PR's own version sends on an unbuffered
  // channel with no way out, which leaks the notifier here when done is
  // closed before serviceLoop first runs (README, "External programs").
  static constexpr int kRounds = 2;

  template <class C>
  static void kubernetes11298(C& c, bool fixed) {
    Go go(c.rng.next());
    auto after = [&](auto f) {  // After(f): a channel closed when f returns in a goroutine of its own
      Chan* ch = go.make_chan(0);
      go.go(
          [&go, f, ch]() mutable {
            f();
            go.close(ch);
          },
          panics(c));
      return ch;
    };
    auto until = [&](auto f, Chan* stop) {  // Until(f, 0, stop)
      while (!go.ready(stop)) f();
    };
    typename Go::Mutex lock;
    typename Go::Cond cond{&lock, {}, {}};
    Chan* masters = go.make_chan(1);    // the twin's
    auto notifier = [&](Chan* abort) {  // the body of the loop After runs in Notify
      for (int r = 0; r < kRounds && !go.ready(abort); ++r) {
        if (!fixed) {
          go.lock(lock);
          go.signal(cond);
          go.unlock(lock);
          continue;
        }
        for (;;) {  // sendElected
          const int sent = go.select({{abort, false}, {masters, true}}, true);
          if (sent == 0) return;
          if (sent == 1) break;
          if (go.select({{abort, false}, {masters, false}}, true) == 0) return;  // ring full: drop the old value
        }
      }
      go.recv(abort);
    };
    auto service_loop = [&](Chan* abort) {
      if (fixed) {
        while (go.select({{abort, false}, {masters, false}}, false) == 1) {
          // desired := <-n.masters: Start() or Stop() as it says, no synchronisation
        }
        return;
      }
      go.lock(lock);
      while (!go.ready(abort)) {
        Chan* ch = after([&go, &cond] { go.wait(cond); });
        if (go.select({{abort, false}, {ch, false}}, false) == 0) {
          go.signal(cond);  // "ensure that Wait() returns": lost if the goroutine has not reached Wait
          go.recv(ch);
          break;
        }
      }
      go.unlock(lock);
    };
    auto notify = [&](Chan* abort) {
      Chan* finished = after([&, abort] { until([&] { notifier(abort); }, abort); });
      until([&] { service_loop(finished); }, abort);
    };
    Chan* done = go.make_chan(0);
    Chan* notify_done = after([&] { notify(done); });
    go.go([&] { go.close(done); }, panics(c));
    go.recv(notify_done);
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
    go.go(
        [&] {  // go pm.init()
          go.add(group, kPlugins);
          for (int p = 0; p < kPlugins; ++p) {
            go.go([&] { go.done(group); }, panics(c));
            if (!fixed) go.wait(group);
          }
          if (fixed) go.wait(group);
        },
        panics(c));
    go.join_all();
    Progress::tick();
  }
};

}  // namespace wsstress::core
