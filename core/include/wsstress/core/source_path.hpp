// SPDX-License-Identifier: MIT OR Apache-2.0
// Source paths as the tool prints them. The build maps the project root out of
// every SrcLoc and __FILE__ (-fmacro-prefix-map in the top CMakeLists.txt), so
// verdicts, dumps and traces read `pool/include/wsstress/pool/sleep/sleep.hpp:247`
// wherever the checkout is. short_source() shortens such a path further for
// the trace views, and cuts at the *last* `wsstress/` (a
// checkout in a folder named `wsstress` puts one more in an unmapped path).
#pragma once

#include <string>
#include <string_view>

namespace wsstress {

// The path from its last "wsstress/" on (wsstress/pool/deque.hpp), else its file name.
inline std::string short_source(std::string_view file) {
  const auto at = file.rfind("wsstress/");
  if (at != std::string_view::npos) return std::string(file.substr(at));
  const auto slash = file.rfind('/');
  return std::string(slash == std::string_view::npos ? file : file.substr(slash + 1));
}

}  // namespace wsstress
