// SPDX-License-Identifier: MIT OR Apache-2.0
// A process-wide observer of the pool's events in the simulator, for the
// schedule fuzzer's feedback (fuzz/schedule_fuzzer.cpp turns them into
// libFuzzer's extra counters). Called on the simulator's thread, in the
// order the fibers report them; null (the default) costs one load per event.
#pragma once

#include <cstdint>

#include "wsstress/pool/trace.hpp"

namespace wsstress::sim {

using EventObserver = void (*)(std::uint32_t fiber, const pool::Event& e);
void set_event_observer(EventObserver observer) noexcept;

}  // namespace wsstress::sim
