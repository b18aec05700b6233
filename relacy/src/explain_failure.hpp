// SPDX-License-Identifier: MIT OR Apache-2.0
// Why a Relacy model hung, in the simulator's words: the pool's events of the
// failing execution (EventLog, recorded by RelacyPlatform while Relacy replays
// that execution for its report) handed to the one explainer both engines use
// (wsstress/sim/explain.hpp), with Relacy's history read for what the events
// cannot say: each event's number in that history (the explanation's steps),
// which threads finished, and where the others block.
#pragma once

#include <string>
#include <vector>

namespace wsstress::relacy {

// The explanation's lines for a failed search whose Relacy result is a hang
// (DEADLOCK or LIVELOCK); empty for any other result, or when no worker
// sleeps or blocks in the recorded events. `report` is Relacy's report of
// the failing execution (with its history); call it right after the search,
// while the EventLog still holds that execution's events.
std::vector<std::string> explain_failure(const std::string& relacy_result, const std::string& report);

}  // namespace wsstress::relacy
