// SPDX-License-Identifier: MIT OR Apache-2.0
// The sequential interpreter of programs (the fuzzers' and the `program`
// scenario's oracle) and their rendering for reports.
#include "wsstress/core/program.hpp"

#include <sstream>

namespace wsstress::core {

const char* Program::kind_name(Kind k) noexcept {
  switch (k) {
    case Kind::Leaf: return "leaf";
    case Kind::Throw: return "throw";
    case Kind::Join: return "join";
    case Kind::Scope: return "scope";
    case Kind::ScopeFifo: return "scope_fifo";
    case Kind::Install: return "install";
    case Kind::Broadcast: return "broadcast";
    case Kind::Spawn: return "spawn";
    case Kind::SpawnBroadcast: return "spawn_broadcast";
    case Kind::InPlaceScope: return "in_place_scope";
  }
  return "?";
}

// Every node runs regardless of exceptions (both halves of a join, every job
// of a scope, every copy of a broadcast), so the run counts are exact; only a
// scope's choice among several exceptions is left open.
Program::Outcome Program::eval(std::uint16_t id, std::size_t pool, std::uint64_t mult, Expected& e) const {
  const Node& n = nodes[id];
  Outcome o;
  switch (n.kind) {
    case Kind::Leaf:
      e.runs[id] += mult;
      o.value = n.value;
      break;
    case Kind::Throw:
      e.runs[id] += mult;
      o.throws = true;
      o.ids = {id};
      break;
    case Kind::Join: {
      Outcome a = eval(n.kids[0], pool, mult, e);
      Outcome b = eval(n.kids[1], pool, mult, e);
      if (a.throws) return a;
      if (b.throws) return b;
      o.value = a.value + b.value;
      break;
    }
    case Kind::Scope:
    case Kind::ScopeFifo:
    case Kind::InPlaceScope:
      for (std::uint16_t k : n.kids) {
        Outcome c = eval(k, pool, mult, e);
        if (c.throws) {
          o.throws = true;
          o.ids.insert(c.ids.begin(), c.ids.end());
        } else {
          o.value += c.value;
        }
      }
      if (o.throws) o.value = 0;
      break;
    case Kind::Install: return eval(n.kids[0], n.value, mult, e);
    case Kind::Broadcast: {
      const std::uint64_t workers = pool_threads[pool];
      Outcome c = eval(n.kids[0], pool, mult * workers, e);
      if (c.throws) return c;
      o.value = c.value * workers;
      break;
    }
    case Kind::Spawn:
    case Kind::SpawnBroadcast: {
      // A spawn_broadcast is a detached spawn on each of the pool's workers.
      const std::uint64_t copies = n.kind == Kind::Spawn ? mult : mult * pool_threads[pool];
      e.spawns += copies;
      Outcome c = eval(n.kids[0], pool, copies, e);
      if (c.throws) {
        e.handled += copies;
        e.handled_ids.insert(c.ids.begin(), c.ids.end());
      }
      break;
    }
  }
  return o;
}

Program::Expected Program::expected() const {
  Expected e;
  e.runs.assign(nodes.size(), 0);
  // Each caller runs the whole program from outside: the root's install.
  e.outcome = eval(0, 0, callers, e);
  return e;
}

Program::Outcome Program::outcome_of(std::uint16_t id) const {
  Expected scratch;
  scratch.runs.assign(nodes.size(), 0);
  return eval(id, 0, 1, scratch);
}

std::string Program::render() const {
  std::ostringstream o;
  o << "pools";
  for (std::size_t i = 0; i < pool_threads.size(); ++i)
    o << (i ? "," : " ") << "p" << i << ":" << int(pool_threads[i]) << "t";
  o << "; " << int(callers) << " caller" << (callers > 1 ? "s" : "") << "\n";
  struct Walk {
    const Program& p;
    std::ostringstream& o;
    void operator()(std::uint16_t id, int indent) {
      const Node& n = p.nodes[id];
      o << std::string(static_cast<std::size_t>(indent) * 2, ' ') << "#" << id << " " << kind_name(n.kind);
      if (n.kind == Kind::Leaf) {
        o << " " << n.value;
        static const char* work[] = {"", " (compute 10)", " (compute 100)", " (compute 1000)", " (sleep 50us)"};
        o << work[n.work % 5];
      }
      if (n.kind == Kind::Install) o << " p" << n.value;
      o << "\n";
      for (std::uint16_t k : n.kids) (*this)(k, indent + 1);
    }
  };
  Walk{*this, o}(0, 1);
  return o.str();
}

}  // namespace wsstress::core
