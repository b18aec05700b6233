// SPDX-License-Identifier: MIT OR Apache-2.0
// Explicitly instantiates the production pool, <StdPlatform, NoMutants>, so every
// member of every class template is compiled (and checked) at least once, and a
// user's program links the same code this library was tested with.
#include "wsstress/pool.hpp"

namespace wsstress::pool {

template class Deque<StdPlatform>;
template class Injector<StdPlatform, NoMutants>;
template class JobFifo<StdPlatform, NoMutants>;
template class CoreLatch<StdPlatform>;
template class LockLatch<StdPlatform>;
template class CountLatch<StdPlatform>;
template class CountLockLatch<StdPlatform>;
template class SpinLatch<StdPlatform, NoMutants>;
template class ScopeLatch<StdPlatform, NoMutants>;
template class AtomicCounters<StdPlatform, NoMutants>;
template class Sleep<StdPlatform, NoMutants>;
template class WorkerThread<StdPlatform, NoMutants>;
template class Registry<StdPlatform, NoMutants>;
template class RegistryRef<StdPlatform, NoMutants>;
template class ThreadBuilder<StdPlatform, NoMutants>;
template class BasicThreadPoolBuilder<StdPlatform, NoMutants>;
template class BasicThreadPool<StdPlatform, NoMutants>;
template class ScopeBase<StdPlatform, NoMutants>;
template class Scope<StdPlatform, NoMutants>;
template class ScopeFifo<StdPlatform, NoMutants>;

}  // namespace wsstress::pool
