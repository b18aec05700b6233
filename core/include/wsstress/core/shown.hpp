// SPDX-License-Identifier: MIT OR Apache-2.0
// How an error message quotes a value the user gave: in
// single quotes, at most its first kShownBytes (100) bytes, then how long it was, so
// a 100 MB reproducer token or a 100 KB argument is still a one-line error of
// a readable length. Control characters show as '?' (the error stays one line).
// Every message that quotes a user value goes through shown(); bounded_line()
// is the backstop for messages worded by CLI11, which quote values themselves.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace wsstress {

inline constexpr std::size_t kShownBytes = 100;

// The value's first kShownBytes bytes (cut at a UTF-8 character boundary),
// control characters as '?'.
inline std::string shown_prefix(std::string_view v, std::size_t limit = kShownBytes) {
  std::size_t n = v.size() <= limit ? v.size() : limit;
  if (n < v.size()) {
    while (n > 0 && (static_cast<unsigned char>(v[n]) & 0xC0) == 0x80) --n;  // not inside a character
  }
  std::string out(v.substr(0, n));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return out;
}

// 'value', or 'its first kShownBytes bytes...' (N bytes) when it is longer.
inline std::string shown(std::string_view v) {
  if (v.size() <= kShownBytes) return "'" + shown_prefix(v) + "'";
  return "'" + shown_prefix(v) + "...' (" + std::to_string(v.size()) + " bytes)";
}

// A message with every run of more than 2 * kShownBytes non-blank bytes cut
// as shown() cuts a value (what shown() made stays as it is), and control
// characters as '?'.
inline std::string bounded_line(std::string_view line) {
  std::string out;
  std::size_t i = 0;
  while (i < line.size()) {
    if (line[i] == ' ') {
      out += ' ';
      ++i;
      continue;
    }
    const std::size_t end = line.find(' ', i);
    const std::string_view word = line.substr(i, end == std::string_view::npos ? std::string_view::npos : end - i);
    const bool cut = word.size() > 2 * kShownBytes;
    out += shown_prefix(word, cut ? kShownBytes : word.size());
    if (cut) out += "... (" + std::to_string(word.size()) + " bytes)";
    i += word.size();
  }
  return out;
}

}  // namespace wsstress
