// SPDX-License-Identifier: MIT OR Apache-2.0
// The tool's name and version as `wsstress --version` and every report's
// "tool" field spell them. The version is written once, in the top
// CMakeLists.txt (project(... VERSION)), and reaches this target as
// WSSTRESS_VERSION (cli/CMakeLists.txt).
#pragma once

#ifndef WSSTRESS_VERSION
#error "WSSTRESS_VERSION is defined by cli/CMakeLists.txt from the project's VERSION"
#endif

namespace wsstress::cli {

inline constexpr const char* kToolVersion = "wsstress " WSSTRESS_VERSION;  // "wsstress 0.1.0"

}  // namespace wsstress::cli
