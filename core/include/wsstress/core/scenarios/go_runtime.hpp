// SPDX-License-Identifier: MIT OR Apache-2.0
// Go's channels, WaitGroup, Mutex, Cond and goroutines over the platform policy, for the
// GoKer kernels (external_go.hpp): each kernel's blocking comes from here, so
// a goroutine stuck for good is a fiber the simulator's deadlock verdict sees
// (or a thread the real-thread watchdog sees stop).
//
// Mapping (Go's runtime/chan.go and sync/waitgroup.go, semantics only):
// - One runtime lock (P::Mutex) and one condvar (P::CondVar, notify_all on
//   every change) stand for the Go scheduler's parking: every channel and
//   WaitGroup of a kernel lives under it, which makes `select` one critical
//   section, as Go's select locks all its channels at once. A kernel's own
//   sync.Mutex stays a separate P::Mutex.
// - A buffered send waits for room; a receive takes a buffered value first.
// - An unbuffered send posts an offer and waits until a receiver takes that
//   offer (the rendezvous); a select withdraws its offers when another case
//   runs, so a select's send commits only when a receiver took it, as in Go.
// - close wakes every receiver; a receive on a closed, drained channel returns
//   ok = false; a send on a closed channel is Go's panic (GoPanic).
// - select picks among ready cases from a rotating start drawn from the run's
//   seed (Go picks uniformly at random), and `default` when none is ready.
// - WaitGroup: a counter under the runtime lock; Wait blocks while it is
//   positive, a negative counter is Go's panic.
// - Mutex: Go's sync.Mutex where a kernel needs Go's rule that it has no
//   owner (any goroutine may unlock it, as sync.Cond's Wait does for its L):
//   a flag under the runtime lock. Unlocking it unlocked is Go's fatal error.
// - Cond: Go's sync.Cond (sync/cond.go, runtime/sema.go's notifyList). Wait
//   takes a ticket, unlocks L, waits until its ticket is woken, relocks L;
//   Signal wakes the oldest ticket still waiting, Broadcast every one; a
//   Signal or Broadcast with no ticket waiting is forgotten (no memory of it).
// Payloads are left out: no kernel ported here reads a value it received.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "wsstress/core/scenario.hpp"
#include "wsstress/pool/platform/splitmix64.hpp"

namespace wsstress::core {

// A Go panic inside a goroutine: ends the goroutine and fails the run.
struct GoPanic {
  std::string what;
};

template <class P>
struct GoRuntime {
  using Lock = std::unique_lock<typename P::Mutex>;
  using E = Env<P>;

  struct Chan {
    std::size_t cap = 0;
    std::size_t buffered = 0;
    bool closed = false;
    std::deque<std::uint64_t> offers;  // unbuffered senders waiting, oldest first
    std::set<std::uint64_t> taken;     // offers a receiver took, until their sender sees it
  };
  struct WaitGroup {
    long count = 0;
  };
  struct Mutex {
    bool locked = false;
  };
  struct Cond {
    Mutex* l;                           // its L
    std::deque<std::uint64_t> waiting;  // tickets of the Waits not yet woken, oldest first
    std::set<std::uint64_t> woken;      // tickets woken, until their Wait sees it
  };
  // One select case: a receive from, or a send to, `ch`.
  struct Case {
    Chan* ch;
    bool send;
  };
  static constexpr int kDefault = -1;

  explicit GoRuntime(std::uint64_t seed) : rng_(seed) {}
  ~GoRuntime() { join_all(); }
  GoRuntime(const GoRuntime&) = delete;
  GoRuntime& operator=(const GoRuntime&) = delete;

  Chan* make_chan(std::size_t cap = 0) {
    Lock l(m_);
    chans_.push_back(std::make_unique<Chan>());
    chans_.back()->cap = cap;
    return chans_.back().get();
  }

  // `go f()`: a goroutine; a GoPanic in it is reported to `on_panic`.
  template <class F, class OnPanic>
  void go(F f, OnPanic on_panic) {
    auto body = [f = std::move(f), on_panic]() mutable {
      try {
        f();
      } catch (const GoPanic& p) {
        on_panic(p.what);
      }
    };
    typename E::Thread t = E::start(std::move(body));
    std::lock_guard<std::mutex> g(threads_m_);
    threads_.push_back(std::move(t));
  }

  // Waits for every goroutine, those started meanwhile included: one stuck
  // for good leaves this wait stuck (the kernel's leak or deadlock).
  void join_all() {
    for (;;) {
      typename E::Thread t;
      {
        std::lock_guard<std::mutex> g(threads_m_);
        if (threads_.empty()) return;
        t = std::move(threads_.back());
        threads_.pop_back();
      }
      E::join(t);
    }
  }

  void send(Chan* ch) { select({{ch, true}}, false); }
  // `<-ch`; false when ch is closed and drained.
  bool recv(Chan* ch) {
    bool ok = false;
    select({{ch, false}}, false, &ok);
    return ok;
  }
  void close(Chan* ch) {
    Lock l(m_);
    if (ch->closed) throw GoPanic{"close of closed channel"};
    ch->closed = true;
    cv_.notify_all();
  }

  void add(WaitGroup& wg, long n) {
    Lock l(m_);
    wg.count += n;
    if (wg.count < 0) throw GoPanic{"sync: negative WaitGroup counter"};
    if (wg.count == 0) cv_.notify_all();
  }
  void done(WaitGroup& wg) { add(wg, -1); }
  void wait(WaitGroup& wg) {
    Lock l(m_);
    while (wg.count > 0) cv_.wait(l);
  }

  void lock(Mutex& mu) {
    Lock l(m_);
    while (mu.locked) cv_.wait(l);
    mu.locked = true;
  }
  void unlock(Mutex& mu) {
    Lock l(m_);
    unlock_held(mu);
  }

  // c.Wait(). Go adds the ticket, then unlocks L (two steps); here one
  // critical section, which changes no outcome: a Signal between Go's two
  // steps already finds the ticket.
  void wait(Cond& c) {
    Lock l(m_);
    const std::uint64_t ticket = next_ticket_++;
    c.waiting.push_back(ticket);
    unlock_held(*c.l);
    while (c.woken.erase(ticket) == 0) cv_.wait(l);
    l.unlock();
    lock(*c.l);
  }
  void signal(Cond& c) {
    Lock l(m_);
    if (c.waiting.empty()) return;  // nobody waits: the signal is lost
    c.woken.insert(c.waiting.front());
    c.waiting.pop_front();
    cv_.notify_all();
  }
  void broadcast(Cond& c) {
    Lock l(m_);
    c.woken.insert(c.waiting.begin(), c.waiting.end());
    c.waiting.clear();
    cv_.notify_all();
  }

  // `select { case <-ch: return true; default: return false }`: whether a
  // receive would not block (ch closed, for the kernels' done channels).
  bool ready(Chan* ch) { return select({{ch, false}}, true) != kDefault; }

  // Go's select over `cases`: the index of the case that ran, or kDefault.
  // For a receive, *ok says whether it got a value (false: closed).
  int select(std::initializer_list<Case> cases, bool has_default, bool* ok = nullptr) {
    std::vector<Case> cs(cases);
    std::vector<std::uint64_t> mine(cs.size(), 0);  // our pending offers, by case
    Lock l(m_);
    const std::size_t start = static_cast<std::size_t>(rng_.below(cs.size()));
    for (;;) {
      for (std::size_t i = 0; i < cs.size(); ++i) {
        if (mine[i] != 0 && cs[i].ch->taken.erase(mine[i]) == 1) {
          mine[i] = 0;
          withdraw(cs, mine);
          return static_cast<int>(i);
        }
      }
      for (std::size_t k = 0; k < cs.size(); ++k) {
        const std::size_t i = (start + k) % cs.size();
        if (try_case(cs[i], ok)) {
          withdraw(cs, mine);
          return static_cast<int>(i);
        }
      }
      if (has_default) return kDefault;
      for (std::size_t i = 0; i < cs.size(); ++i) {
        if (cs[i].send && cs[i].ch->cap == 0 && mine[i] == 0) {
          mine[i] = next_offer_++;
          cs[i].ch->offers.push_back(mine[i]);
          cv_.notify_all();
        }
      }
      cv_.wait(l);
    }
  }

 private:
  void unlock_held(Mutex& mu) {
    if (!mu.locked) throw GoPanic{"fatal error: sync: unlock of unlocked mutex"};
    mu.locked = false;
    cv_.notify_all();
  }
  // Runs the case if it can run now without waiting (under the lock).
  bool try_case(const Case& c, bool* ok) {
    Chan& ch = *c.ch;
    if (c.send) {
      if (ch.closed) throw GoPanic{"send on closed channel"};
      if (ch.cap == 0 || ch.buffered == ch.cap) return false;
      ++ch.buffered;
      cv_.notify_all();
      return true;
    }
    bool got = true;
    if (ch.buffered > 0) {
      --ch.buffered;
    } else if (!ch.offers.empty()) {
      ch.taken.insert(ch.offers.front());
      ch.offers.pop_front();
    } else if (ch.closed) {
      got = false;
    } else {
      return false;
    }
    if (ok != nullptr) *ok = got;
    cv_.notify_all();
    return true;
  }
  // Takes back the offers still pending (none was taken: checked under the
  // same hold of the lock).
  static void withdraw(const std::vector<Case>& cs, const std::vector<std::uint64_t>& mine) {
    for (std::size_t i = 0; i < cs.size(); ++i) {
      if (mine[i] == 0) continue;
      auto& offers = cs[i].ch->offers;
      for (auto it = offers.begin(); it != offers.end(); ++it) {
        if (*it == mine[i]) {
          offers.erase(it);
          break;
        }
      }
    }
  }

  typename P::Mutex m_;
  typename P::CondVar cv_;
  SplitMix64 rng_;  // select's start, under m_
  std::uint64_t next_offer_ = 1;
  std::uint64_t next_ticket_ = 1;  // Cond's tickets, one counter for every Cond
  std::vector<std::unique_ptr<Chan>> chans_;
  std::mutex threads_m_;  // the goroutines' handles (not a scheduling point: never held across one)
  std::vector<typename E::Thread> threads_;
};

}  // namespace wsstress::core
