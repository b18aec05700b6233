// SPDX-License-Identifier: MIT OR Apache-2.0
// The `tsan` column's reading of a ThreadSanitizer report (tsan.cpp), exposed
// for its test.
#pragma once

#include <string>

namespace wsstress::matrix {

// A TSan report's one line for that row: its kind and, for each of its two
// accesses, the first frame of the project's own code ("ThreadSanitizer: data
// race: Read of size 1 by thread T2 in JobResult::into_return_value at
// job.hpp:112; Previous write ...").
std::string summarize_tsan_report(const std::string& log);

}  // namespace wsstress::matrix
