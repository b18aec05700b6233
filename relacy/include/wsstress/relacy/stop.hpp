// SPDX-License-Identifier: MIT OR Apache-2.0
// How a caller asks the running Relacy search to stop (a SIGINT to `wsstress
// relacy`): the runner polls this check while it waits for its child and
// kills the child when it says so. Kept apart from models.hpp so the models,
// which are slow to compile, do not depend on it.
#pragma once

namespace wsstress::relacy {

// `check` returns true to stop; nullptr: never stop (the default).
void set_stop_check(bool (*check)()) noexcept;

}  // namespace wsstress::relacy
