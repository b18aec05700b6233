// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rust Project Developers; The Rayon developers; The wsstress developers
// Rust's `usize::from_str`, the one parser behind every number rayon-core reads
// from text: the thread-count variables (builder.hpp) and the cgroup files
// num_cpus reads (platform/num_cpus.hpp).
#pragma once

#include <charconv>
#include <cstddef>
#include <optional>
#include <string_view>
#include <system_error>

namespace wsstress::pool {

// An optional leading '+', then ASCII digits only; nullopt otherwise (or on overflow).
inline std::optional<std::size_t> parse_usize(std::string_view text) noexcept {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  std::size_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace wsstress::pool
