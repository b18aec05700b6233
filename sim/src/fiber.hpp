// SPDX-License-Identifier: MIT OR Apache-2.0
// A simulated thread: its Boost.Context fiber, what it is blocked on, its
// store buffer, thread-locals and where it last was. Internal to the
// simulator (the scheduler owns fibers; strategies read them).
#pragma once

#include <boost/context/fiber.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "cpp_memory.hpp"
#include "store_buffer.hpp"
#include "wsstress/core/worker_state.hpp"
#include "wsstress/sim/sim.hpp"

namespace wsstress::sim {

enum class FiberState { Runnable, BlockedMutex, BlockedCond, BlockedJoin, Sleeping, Done };
const char* fiber_state_name(FiberState s) noexcept;

// One thread_local_slot value of a fiber (Scheduler::tls).
struct TlsSlot {
  const void* key;
  void* value;
  void (*destroy)(void*);
};

struct Fiber {
  std::uint32_t id = 0;
  std::uint32_t parent = UINT32_MAX;  // the fiber that spawned it (none for main)
  std::string name;
  // The body returned (the stack holds only the entry frames). Declared
  // before ctx, so it is still alive while ctx's destructor frees the stack.
  bool returned = false;
  boost::context::fiber ctx;
  FiberState state = FiberState::Runnable;
  const void* wait_on = nullptr;
  std::uint64_t wait_seq = 0;  // condvar FIFO order
  std::uint64_t wake_at = 0;
  std::function<void()> body;
  StoreBuffer buffer;
  cppmem::Thread mem;        // cpp memory: the fiber's clocks
  std::vector<TlsSlot> tls;  // the fiber's thread_local_slot values
  SrcLoc loc{};
  // The last point outside the system headers: a lock taken through
  // std::unique_lock is located in <unique_lock.h>, so a verdict about it
  // names this pool line as well.
  SrcLoc pool_loc{"", 0};
  Op last_op = Op::Start;
  // The object of that operation (the atomic, mutex or condvar it is about to
  // touch; null for a fence, a yield, a start): POS tells racing events by it.
  const void* next_addr = nullptr;
  core::WorkerSlot* slot = nullptr;
  // ASan's view of the fiber's stack (wsstress/sim/asan.hpp).
  const void* stack_bottom = nullptr;
  std::size_t stack_size = 0;
  void* fake_stack = nullptr;
};

}  // namespace wsstress::sim
