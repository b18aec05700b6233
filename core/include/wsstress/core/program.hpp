// SPDX-License-Identifier: MIT OR Apache-2.0
// Programs: small nested fork-join programs over up to three pools - join,
// scope / in_place_scope + spawn, scope_fifo + spawn_fifo, install into
// another pool, broadcast, detached spawn and spawn_broadcast, computed and
// throwing leaves - decoded from bytes (the fuzzers' input,
// or a file given to `wsstress run --input`) or generated from a seed (the
// `program` scenario). The sequential interpreter here is the oracle: it
// says what value or which exceptions a run must end with, how many times each
// leaf must run and how many exceptions the pools' panic handlers must see.
// The parallel interpreter is the `program` scenario (scenarios.hpp), written
// over <P, M> like every other scenario.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace wsstress::core {

// Bytes as a source of bounded choices. Past the end every choice is 0, so
// any input - empty, truncated, random - decodes to a finite program.
class ByteSource {
 public:
  ByteSource(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint64_t below(std::uint64_t n) {
    if (n <= 1) return 0;
    const std::uint8_t b = pos_ < size_ ? data_[pos_] : 0;
    ++pos_;
    return b % n;
  }
  std::size_t used() const { return pos_ < size_ ? pos_ : size_; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

struct Program {
  enum class Kind : std::uint8_t {
    Leaf,       // returns `value` after `work` (0 none, 1-3 a computation, 4 a short sleep)
    Throw,      // throws Thrown{id = node index}
    Join,       // join(kids[0], kids[1]); both always run; A's exception wins
    Scope,      // scope: each kid spawned; value = sum of the kids that returned
    ScopeFifo,  // the same with spawn_fifo
    Install,    // pools[pool].install(kids[0])
    Broadcast,  // broadcast(kids[0]) on the current pool; value = sum over workers
    Spawn,      // detached spawn of kids[0] on the current pool; value 0; its
                // exception goes to that pool's panic handler
    // Later kinds (kind_of: stored corpus files decode as before they existed).
    SpawnBroadcast,  // detached spawn_broadcast(kids[0]) on the current pool: a
                     // copy per worker, each as a Spawn; value 0
    InPlaceScope,    // in_place_scope: as Scope, the scope's body on this thread
  };
  // A node's kind from its byte (0-255): below 240 the first eight kinds, the
  // byte modulo 8 as when they were all there were (so a stored corpus file
  // decodes as it did; 240 is a multiple of 8); 240-247 SpawnBroadcast,
  // 248-255 InPlaceScope.
  static constexpr std::uint64_t kFirstLaterKind = 240;
  static Kind kind_of(std::uint64_t byte) {
    if (byte < kFirstLaterKind) return static_cast<Kind>(byte % 8);
    return byte < kFirstLaterKind + 8 ? Kind::SpawnBroadcast : Kind::InPlaceScope;
  }
  struct Node {
    Kind kind = Kind::Leaf;
    std::uint32_t value = 0;  // Leaf: the value; Install: the pool
    std::uint8_t work = 0;    // Leaf only
    std::vector<std::uint16_t> kids;
  };

  static constexpr std::size_t kMaxPools = 3;
  static constexpr std::size_t kMaxThreads = 3;
  static constexpr std::size_t kMaxNodes = 48;
  static constexpr int kMaxDepth = 6;

  std::vector<std::uint8_t> pool_threads;  // workers per pool, 1..3
  std::uint8_t callers = 1;                // outside threads each running the program
  std::vector<Node> nodes;                 // nodes[0] is the root, an Install

  // Decodes a program from any source with below(n) (ByteSource, Rng).
  template <class Src>
  static Program decode(Src& src) {
    Program p;
    const std::size_t n_pools = 1 + src.below(kMaxPools);
    for (std::size_t i = 0; i < n_pools; ++i)
      p.pool_threads.push_back(static_cast<std::uint8_t>(1 + src.below(kMaxThreads)));
    p.callers = static_cast<std::uint8_t>(1 + src.below(2));
    p.nodes.push_back({Kind::Install, static_cast<std::uint32_t>(src.below(n_pools)), 0, {}});
    const std::uint16_t body = p.build(src, kMaxDepth);
    p.nodes[0].kids.push_back(body);
    return p;
  }

  // The outcome of running a node: a value, or an exception whose id is one
  // of `ids` (a scope rethrows whichever of its jobs' exceptions came first).
  struct Outcome {
    bool throws = false;
    std::uint64_t value = 0;
    std::set<std::uint32_t> ids;
  };
  struct Expected {
    Outcome outcome;                      // of one caller's run
    std::vector<std::uint64_t> runs;      // per node: leaf and throw executions, all callers
    std::uint64_t spawns = 0;             // detached spawns that must finish, all callers
    std::uint64_t handled = 0;            // exceptions the panic handlers must receive
    std::set<std::uint32_t> handled_ids;  // ids they may carry
  };
  // The sequential interpreter.
  Expected expected() const;
  // What node `id` alone returns or which exceptions may escape it (the
  // oracle's classes of interchangeable exceptions, oracle.hpp).
  Outcome outcome_of(std::uint16_t id) const;

  // One line per node, indented: the program as a reader sees it.
  std::string render() const;
  static const char* kind_name(Kind k) noexcept;

 private:
  template <class Src>
  std::uint16_t build(Src& src, int depth) {
    const auto id = static_cast<std::uint16_t>(nodes.size());
    nodes.push_back({});
    // Room for this node's kids, leaving one node for each later sibling of
    // its ancestors (reserve_): the program never exceeds kMaxNodes.
    const bool room = depth > 0 && nodes.size() + 2 + reserve_ <= kMaxNodes;
    const Kind kind = room ? kind_of(src.below(256)) : static_cast<Kind>(src.below(2));
    nodes[id].kind = kind;
    switch (kind) {
      case Kind::Leaf:
        nodes[id].value = static_cast<std::uint32_t>(src.below(256));
        nodes[id].work = static_cast<std::uint8_t>(src.below(5));
        break;
      case Kind::Throw: break;
      case Kind::Join: {
        ++reserve_;
        const std::uint16_t a = build(src, depth - 1);
        --reserve_;
        const std::uint16_t b = build(src, depth - 1);
        nodes[id].kids = {a, b};
        break;
      }
      case Kind::Scope:
      case Kind::ScopeFifo:
      case Kind::InPlaceScope: {
        const std::size_t n = std::min<std::size_t>(1 + src.below(4), kMaxNodes - nodes.size() - reserve_);
        reserve_ += n - 1;
        for (std::size_t i = 0; i < n; ++i) {
          const std::uint16_t k = build(src, depth - 1);
          nodes[id].kids.push_back(k);
          if (i + 1 < n) --reserve_;
        }
        break;
      }
      case Kind::Install: {
        nodes[id].value = static_cast<std::uint32_t>(src.below(pool_threads.size()));
        const std::uint16_t k = build(src, depth - 1);
        nodes[id].kids = {k};
        break;
      }
      case Kind::Broadcast:
      case Kind::Spawn:
      case Kind::SpawnBroadcast: {
        const std::uint16_t k = build(src, depth - 1);
        nodes[id].kids = {k};
        break;
      }
    }
    return id;
  }

  std::size_t reserve_ = 0;
  Outcome eval(std::uint16_t id, std::size_t pool, std::uint64_t mult, Expected& e) const;
};

}  // namespace wsstress::core
