// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Crossbeam Project Developers; The wsstress developers
// Injector: crossbeam-deque 0.8.1's Injector (deque.rs, `Injector<T>`), the
// lock-free FIFO that rayon-core uses for the global injector and for JobFifo,
// the per-worker queue behind spawn_fifo.
//
// A linked list of blocks, each covering one "lap" of LAP indices of which the
// last is never used (BLOCK_CAP = LAP - 1 slots). `tail.index` and
// `head.index` count in steps of 1 << SHIFT; the low bit of the head index
// (HAS_NEXT) says the head block is not the last one, which lets `steal` skip
// its fence and tail check. A pusher reserves a slot with a SeqCst CAS on the
// tail index, writes the task, then sets the slot's WRITE bit (Release); a
// thief claims a slot with a SeqCst CAS on the head index (after an Acquire
// load, a SeqCst fence and a Relaxed tail load when the block may be the
// last) and waits for WRITE. A lost CAS in `steal` is `Steal::Retry`, which
// rayon-core's loops retry. Blocks are freed by the last reader through the
// READ/DESTROY handoff of `Block::destroy`, as crossbeam does.
//
// The sleep handshake leans on these orders: `push`'s CAS and `is_empty`'s two
// loads are SeqCst, so for injected jobs the publisher's (push, then read the
// counters) and the sleeper's (counter CAS, then is_empty) accesses are all
// SeqCst (see pool/README.md on the fences). The mutant kInjectorAcqRel
// weakens them to Acquire/Release, the orders the seeds' proof sketch
// assumes.
//
// Deviations, both without effect on ordering: crossbeam's `fetch_or(bit)` on
// a slot's state is `fetch_add(bit)` here (each of WRITE, READ and DESTROY is
// set at most once per slot, so the two return and store the same values, and
// the platform policy has no fetch_or); the block size is a model knob
// (M::kInjectorLap, 64 as in crossbeam) so models can cross block boundaries
// within a few jobs.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>

#include "wsstress/pool/backoff.hpp"
#include "wsstress/pool/deque.hpp"
#include "wsstress/pool/job.hpp"
#include "wsstress/pool/mutants.hpp"
#include "wsstress/pool/trace.hpp"

namespace wsstress::pool {

template <class P, class M = NoMutants>
class Injector {
  template <class T>
  using Atomic = typename P::template Atomic<T>;

  // Slot state bits.
  static constexpr std::size_t WRITE = 1;
  static constexpr std::size_t READ = 2;
  static constexpr std::size_t DESTROY = 4;
  static constexpr std::size_t LAP = M::kInjectorLap;
  static constexpr std::size_t BLOCK_CAP = LAP - 1;
  static constexpr std::size_t SHIFT = 1;
  static constexpr std::size_t HAS_NEXT = 1;
  static_assert(LAP >= 2 && (LAP & (LAP - 1)) == 0, "the injector's lap must be a power of two");

  // The handshake's SeqCst operations, or the weaker orders of the mutant.
  static constexpr std::memory_order kSeqCstOrRelease =
      M::kInjectorAcqRel ? std::memory_order_release : std::memory_order_seq_cst;
  static constexpr std::memory_order kSeqCstOrAcqRel =
      M::kInjectorAcqRel ? std::memory_order_acq_rel : std::memory_order_seq_cst;
  static constexpr std::memory_order kSeqCstOrAcquire =
      M::kInjectorAcqRel ? std::memory_order_acquire : std::memory_order_seq_cst;

  struct Slot {
    // Plain memory, as crossbeam's UnsafeCell: ordered by the WRITE bit.
    JobHeader* task = nullptr;
    Atomic<std::size_t> state{0};

    void wait_write() noexcept {
      Backoff<P> backoff;
      while ((state.load(std::memory_order_acquire) & WRITE) == 0) backoff.snooze();
    }
  };

  struct Block {
    Atomic<Block*> next{nullptr};
    Slot slots[BLOCK_CAP];

    Block* wait_next() noexcept {
      Backoff<P> backoff;
      for (;;) {
        Block* n = next.load(std::memory_order_acquire);
        if (n != nullptr) return n;
        backoff.snooze();
      }
    }

    // Marks DESTROY on slots [0, count) still being read; the last reader of
    // such a slot finishes the destruction. Frees the block if none is.
    static void destroy(Block* self, std::size_t count) noexcept {
      for (std::size_t i = count; i-- > 0;) {
        Slot& slot = self->slots[i];
        if ((slot.state.load(std::memory_order_acquire) & READ) == 0 &&
            (slot.state.fetch_add(DESTROY, std::memory_order_acq_rel) & READ) == 0) {
          return;
        }
      }
      delete self;
    }
  };

  struct Position {
    Atomic<std::size_t> index{0};
    Atomic<Block*> block{nullptr};
  };

 public:
  Injector() {
    Block* block = new Block();
    head_.block.store(block, std::memory_order_relaxed);
    tail_.block.store(block, std::memory_order_relaxed);
  }
  Injector(const Injector&) = delete;
  Injector& operator=(const Injector&) = delete;
  ~Injector() { free_blocks(); }

  void push(JobRef job) noexcept;
  Steal steal() noexcept;

  bool is_empty() const noexcept {
    const std::size_t head = head_.index.load(kSeqCstOrAcquire);
    const std::size_t tail = tail_.index.load(kSeqCstOrAcquire);
    return head >> SHIFT == tail >> SHIFT;
  }

  // crossbeam's `len` with Relaxed loads and without its retry loop: for state
  // dumps only, taken while the queue may be changing.
  std::size_t len_relaxed() const noexcept {
    std::size_t tail = tail_.index.load(std::memory_order_relaxed) >> SHIFT;
    std::size_t head = head_.index.load(std::memory_order_relaxed) >> SHIFT;
    if (tail <= head) return 0;
    // Each lap boundary between them is an index that holds no task.
    return tail - head - (tail / LAP - head / LAP);
  }

 private:
  void free_blocks() noexcept;

  alignas(128) Position head_;
  alignas(128) Position tail_;
};

template <class P, class M>
void Injector<P, M>::push(JobRef job) noexcept {
  Backoff<P> backoff;
  std::size_t tail = tail_.index.load(std::memory_order_acquire);
  Block* block = tail_.block.load(std::memory_order_acquire);
  std::unique_ptr<Block> next_block;

  for (;;) {
    const std::size_t offset = (tail >> SHIFT) % LAP;
    // At the end of a block: wait until the pusher that filled it installs the next.
    if (offset == BLOCK_CAP) {
      backoff.snooze();
      tail = tail_.index.load(std::memory_order_acquire);
      block = tail_.block.load(std::memory_order_acquire);
      continue;
    }
    // Allocated before the CAS, so others wait for the installation as briefly as possible.
    if (offset + 1 == BLOCK_CAP && !next_block) next_block = std::make_unique<Block>();

    const std::size_t new_tail = tail + (1 << SHIFT);
    if (tail_.index.compare_exchange_weak(tail, new_tail, kSeqCstOrAcqRel, std::memory_order_acquire)) {
      if (offset + 1 == BLOCK_CAP) {
        Block* next = next_block.release();
        const std::size_t next_index = new_tail + (1 << SHIFT);
        tail_.block.store(next, std::memory_order_release);
        tail_.index.store(next_index, std::memory_order_release);
        block->next.store(next, std::memory_order_release);
      }
      Slot& slot = block->slots[offset];
      slot.task = job.header();
      slot.state.fetch_add(WRITE, std::memory_order_release);
      return;
    }
    // The failed CAS left the current tail index in `tail`.
    block = tail_.block.load(std::memory_order_acquire);
    backoff.spin();
  }
}

template <class P, class M>
Steal Injector<P, M>::steal() noexcept {
  std::size_t head;
  Block* block;
  std::size_t offset;
  Backoff<P> backoff;
  for (;;) {
    head = head_.index.load(std::memory_order_acquire);
    block = head_.block.load(std::memory_order_acquire);
    offset = (head >> SHIFT) % LAP;
    // At the end of a block: wait until the next one is installed.
    if (offset != BLOCK_CAP) break;
    backoff.snooze();
  }

  std::size_t new_head = head + (1 << SHIFT);
  if ((new_head & HAS_NEXT) == 0) {
    P::fence(std::memory_order_seq_cst);
    const std::size_t tail = tail_.index.load(std::memory_order_relaxed);
    if (head >> SHIFT == tail >> SHIFT) return Steal{StealKind::Empty, JobRef()};
    // Head and tail in different blocks: the head block is not the last.
    if ((head >> SHIFT) / LAP != (tail >> SHIFT) / LAP) new_head |= HAS_NEXT;
  }

  if (!head_.index.compare_exchange_weak(head, new_head, kSeqCstOrAcqRel, std::memory_order_acquire)) {
    return Steal{StealKind::Retry, JobRef()};
  }

  // The last slot of a block: move the head to the next block.
  if (offset + 1 == BLOCK_CAP) {
    Block* next = block->wait_next();
    std::size_t next_index = (new_head & ~HAS_NEXT) + (1 << SHIFT);
    if (next->next.load(std::memory_order_relaxed) != nullptr) next_index |= HAS_NEXT;
    head_.block.store(next, std::memory_order_release);
    head_.index.store(next_index, std::memory_order_release);
  }

  Slot& slot = block->slots[offset];
  slot.wait_write();
  JobRef task(slot.task);
  // Free the block if we read its last slot, or if its destroyer waited for us.
  if (offset + 1 == BLOCK_CAP || (slot.state.fetch_add(READ, std::memory_order_acq_rel) & DESTROY) != 0) {
    Block::destroy(block, offset);
  }
  return Steal{StealKind::Success, task};
}

// crossbeam's Drop: the queue is ours alone now; free every block left.
template <class P, class M>
void Injector<P, M>::free_blocks() noexcept {
  std::size_t head = head_.index.load(std::memory_order_relaxed) & ~((std::size_t{1} << SHIFT) - 1);
  const std::size_t tail = tail_.index.load(std::memory_order_relaxed) & ~((std::size_t{1} << SHIFT) - 1);
  Block* block = head_.block.load(std::memory_order_relaxed);
  while (head != tail) {
    // Tasks are JobRefs, which own nothing; only the lap ends free a block.
    if ((head >> SHIFT) % LAP == BLOCK_CAP) {
      Block* next = block->next.load(std::memory_order_relaxed);
      delete block;
      block = next;
    }
    head += std::size_t{1} << SHIFT;
  }
  delete block;
}

// Gives spawn_fifo jobs FIFO order on their worker (job.rs's JobFifo): the job
// itself goes into this queue and the worker's deque receives a JobRef to the
// queue, so however the deque hands out its entries (popped LIFO or stolen
// FIFO), each run of that JobRef takes the oldest queued job.
template <class P, class M = NoMutants>
class JobFifo : public JobHeader {
 public:
  JobFifo() : JobHeader{&JobFifo::execute} {}

  JobRef push(JobRef job) noexcept {
    inner_.push(job);
    return JobRef(this);
  }

 private:
  static void execute(JobHeader* header) noexcept {
    auto* self = static_cast<JobFifo*>(header);
    for (;;) {
      Steal s = self->inner_.steal();
      if (s.kind == StealKind::Success) return s.job.execute();
      if (s.kind == StealKind::Empty) abort_with<P>("FIFO is empty");
      trace<P>([] {
        return Event{EventKind::StealRetry, nullptr, Event::kNoWorker, std::uint64_t(StealRetryFrom::JobFifo)};
      });
    }
  }

  Injector<P, M> inner_;
};

}  // namespace wsstress::pool
