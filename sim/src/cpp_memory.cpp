// SPDX-License-Identifier: MIT OR Apache-2.0
// The C++ memory model's rules (see cpp_memory.hpp): what a load may read,
// what stores and fences release, what loads and fences acquire, and the
// race check of plain memory.
#include "cpp_memory.hpp"

#include "wsstress/sim/sim.hpp"  // CppFlaw

#include <algorithm>

namespace wsstress::sim {

namespace {
CppFlaw g_flaw = CppFlaw::None;
}  // namespace

void set_cpp_flaw_for_tests(CppFlaw flaw) noexcept { g_flaw = flaw; }

namespace cppmem {

namespace {
constexpr bool is_acquire(std::memory_order o) {
  return o == std::memory_order_acquire || o == std::memory_order_acq_rel || o == std::memory_order_seq_cst ||
         o == std::memory_order_consume;
}
constexpr bool is_release(std::memory_order o) {
  return o == std::memory_order_release || o == std::memory_order_acq_rel || o == std::memory_order_seq_cst;
}
void raise(Clock& c, std::uint32_t i, std::uint32_t v) {
  if (c.size() <= i) c.resize(i + 1, 0);
  c[i] = std::max(c[i], v);
}
// A read or write at `stamp` by `fiber` happens before a thread whose clock is `c`.
bool before(const Clock& c, std::uint32_t fiber, std::uint32_t stamp) { return stamp <= at(c, fiber); }
}  // namespace

bool join(Clock& into, const Clock& from) {
  if (into.size() < from.size()) into.resize(from.size(), 0);
  bool changed = false;
  for (std::size_t i = 0; i < from.size(); ++i) {
    if (from[i] > into[i]) {
      into[i] = from[i];
      changed = true;
    }
  }
  return changed;
}

void Memory::start(Thread& t, std::uint32_t id, const Thread* parent) {
  t = Thread{};
  t.id = id;
  if (parent != nullptr) t.clock = parent->clock;
  if (t.clock.size() <= id) t.clock.resize(id + 1, 0);
  t.tick();
}

void Memory::joined(Thread& joiner, const Thread& finished) {
  if (join(joiner.clock, finished.clock)) joiner.snapshot.reset();
}

void Memory::release_to(Thread& t, std::shared_ptr<const Clock>& lock_clock) {
  t.tick();
  lock_clock = std::make_shared<const Clock>(t.clock);
}

void Memory::acquire_from(Thread& t, const std::shared_ptr<const Clock>& lock_clock) {
  if (lock_clock && join(t.clock, *lock_clock)) t.snapshot.reset();
}

void Memory::acquire(Thread& t, const Release& r) {
  if (!r) return;
  bool changed = join(t.clock, *r.clock);
  if (r.writer != t.id && r.stamp > at(t.clock, r.writer)) {
    raise(t.clock, r.writer, r.stamp);
    changed = true;
  }
  if (changed) t.snapshot.reset();
}

Release Memory::own_release(Thread& t, std::memory_order o, std::uint32_t stamp) {
  if (is_release(o)) {
    if (!t.snapshot) t.snapshot = std::make_shared<const Clock>(t.clock);
    return Release{t.snapshot, t.id, stamp};
  }
  if (t.rel_fence) return Release{t.rel_fence, 0, 0};  // a relaxed store after a release fence
  return {};
}

// An RMW continues the release sequence of the store it read.
Release Memory::combine(const Release& a, const Release& b) {
  if (!b) return a;
  if (!a) return b;
  auto c = std::make_shared<Clock>(*a.clock);
  join(*c, *b.clock);
  raise(*c, a.writer, a.stamp);
  raise(*c, b.writer, b.stamp);
  return Release{std::move(c), a.writer, a.stamp};
}

detail::History& Memory::history(detail::History*& h, std::uint64_t latest) {
  if (h == nullptr) {
    h = new detail::History;
    h->stores.reserve(4);
    h->stores.push_back(Store{latest, 0, 0, {}, 0, UINT64_MAX, {}});
  }
  return *h;
}

void Memory::push(detail::History& h, Store s) {
  if (h.stores.size() >= kHistory) h.stores.erase(h.stores.begin());
  h.stores.push_back(std::move(s));
}

// Whether the load may not read any store older than `w` (see the header).
bool Memory::stops(const Store& w, const Thread& t, const Clock& fences, std::uint64_t sc_limit) const {
  if (g_flaw == CppFlaw::ReadOverwritten) return w.stamp == 0;  // coherence ignored: any store back to the first
  if (before(t.clock, w.writer, w.stamp) || before(fences, w.writer, w.stamp)) return true;
  if ((w.sc_seq != 0 && w.sc_seq < sc_limit) || w.sc_read_seq < sc_limit) return true;
  for (const auto& [reader, ts] : w.readers) {
    if (before(t.clock, reader, ts) || before(fences, reader, ts)) return true;
  }
  return false;
}

// A load or RMW reading `w`: acquire what it releases, or keep that for an
// acquire fence.
void Memory::acquire_or_pend(Thread& t, const Release& r, std::memory_order o) {
  if (is_acquire(o)) {
    acquire(t, r);
  } else if (r) {
    join(t.acq_pending, *r.clock);
    raise(t.acq_pending, r.writer, r.stamp);
  }
}

// A load (or a failed compare-exchange) read `w` at `ts`: what the coherence
// and SeqCst rules of later loads look at.
void Memory::note_read(Thread& t, Store& w, std::memory_order o, std::uint32_t ts) {
  if (o == std::memory_order_seq_cst) w.sc_read_seq = std::min(w.sc_read_seq, ++seq_);
  if (std::none_of(w.readers.begin(), w.readers.end(), [&](const auto& r) { return r.first == t.id; })) {
    w.readers.emplace_back(t.id, ts);
  }
}

std::uint64_t Memory::load(Thread& t, detail::History*& hp, std::uint64_t latest, std::memory_order o,
                           const ChooseRead& choose) {
  detail::History& h = history(hp, latest);
  const std::uint32_t ts = t.tick();
  const bool sc = o == std::memory_order_seq_cst;
  const Clock& fences = sc ? sc_fences_ : t.sc_fence;
  const std::uint64_t sc_limit = sc ? seq_ + 1 : t.sc_fence_seq;
  std::size_t oldest = h.stores.size() - 1;
  while (oldest > 0 && !stops(h.stores[oldest], t, fences, sc_limit)) --oldest;
  const auto n = static_cast<std::uint32_t>(h.stores.size() - oldest);
  const std::uint32_t picked = n > 1 ? std::min(choose(n), n - 1) : 0;
  Store& w = h.stores[h.stores.size() - 1 - picked];
  note_read(t, w, o, ts);
  acquire_or_pend(t, w.rel, o);
  return w.bits;
}

void Memory::store(Thread& t, detail::History*& hp, std::uint64_t latest, std::uint64_t bits, std::memory_order o) {
  detail::History& h = history(hp, latest);
  const std::uint32_t stamp = t.tick();
  Store s{bits, t.id, stamp, own_release(t, o, stamp), 0, UINT64_MAX, {}};
  if (o == std::memory_order_seq_cst) s.sc_seq = ++seq_;
  push(h, std::move(s));
}

void Memory::rmw(Thread& t, detail::History*& hp, std::uint64_t latest, std::uint64_t bits, std::memory_order o,
                 bool writes) {
  detail::History& h = history(hp, latest);
  const Release read = h.stores.back().rel;
  acquire_or_pend(t, read, o);
  const std::uint32_t stamp = t.tick();
  if (!writes) {  // a failed compare-exchange: a load of the newest store
    note_read(t, h.stores.back(), o, stamp);
    return;
  }
  Store s{bits, t.id, stamp, combine(own_release(t, o, stamp), read), 0, UINT64_MAX, {}};
  if (o == std::memory_order_seq_cst) s.sc_seq = ++seq_;
  push(h, std::move(s));
}

void Memory::fence(Thread& t, std::memory_order o) {
  if (o == std::memory_order_relaxed) return;
  if (g_flaw == CppFlaw::SeqCstFenceAsAcqRel && o == std::memory_order_seq_cst) o = std::memory_order_acq_rel;
  if (is_acquire(o) && join(t.clock, t.acq_pending)) t.snapshot.reset();
  if (is_release(o)) {
    t.tick();
    t.rel_fence = std::make_shared<const Clock>(t.clock);
  }
  if (o == std::memory_order_seq_cst) {
    join(sc_fences_, t.clock);
    t.sc_fence = sc_fences_;
    t.sc_fence_seq = ++seq_;
  }
}

bool Memory::cell(Thread& t, detail::CellState*& cp, bool write, const char* file, unsigned line,
                  std::uint32_t& other_fiber, bool& other_write, const char*& other_file, unsigned& other_line) {
  const std::uint32_t now = t.tick();
  if (cp == nullptr) {  // the constructor's write
    cp = new detail::CellState{t.id, now, file, line, {}};
    return true;
  }
  detail::CellState& c = *cp;
  other_write = true;
  other_fiber = c.writer;
  other_file = c.wfile;
  other_line = c.wline;
  if (!before(t.clock, c.writer, c.wstamp)) return false;
  if (write) {
    for (const auto& [reader, ts] : c.reads) {
      if (!before(t.clock, reader, ts)) {
        other_write = false;
        other_fiber = reader;
        other_file = "";
        other_line = 0;
        return false;
      }
    }
    c.reads.clear();
    c.writer = t.id;
    c.wstamp = now;
    c.wfile = file;
    c.wline = line;
    return true;
  }
  for (auto& r : c.reads) {
    if (r.first == t.id) {
      r.second = now;
      return true;
    }
  }
  c.reads.emplace_back(t.id, now);
  return true;
}

}  // namespace cppmem
}  // namespace wsstress::sim
