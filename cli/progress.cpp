// SPDX-License-Identifier: MIT OR Apache-2.0
// The progress line and the status lines. See progress.hpp.
#include "progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace wsstress::cli {

namespace {

// The terminal's width in columns (80 if it does not say).
std::size_t terminal_columns() {
  winsize ws{};
  if (ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

std::string seconds_text(double s) {
  char b[32];
  if (s < 10) {
    std::snprintf(b, sizeof b, "%.1fs", s);
  } else if (s < 120) {
    std::snprintf(b, sizeof b, "%.0fs", s);
  } else if (s < 7200) {
    const long whole = std::lround(s);  // round once, so 179.7 s is 3m00s, not 2m60s
    std::snprintf(b, sizeof b, "%ldm%02lds", whole / 60, whole % 60);
  } else {
    std::snprintf(b, sizeof b, "%.1fh", s / 3600);
  }
  return b;
}

}  // namespace

ProgressBar::ProgressBar(bool enabled, double max_seconds, std::string what, std::string unit)
    : enabled_(enabled), tty_(isatty(2) != 0), max_seconds_(max_seconds), unit_(std::move(unit)) {
  if (const char* e = std::getenv("WSSTRESS_STATUS_EVERY")) {
    char* end = nullptr;
    const double v = std::strtod(e, &end);
    if (end != e && *end == '\0' && std::isfinite(v) && v > 0) every_ = v;
  }
  if (enabled_ && !tty_) {
    std::fprintf(stderr, "%s: started\n", what.c_str());
    std::fflush(stderr);
  }
}

std::string ProgressBar::line(std::uint64_t done, std::uint64_t total, double elapsed, bool final) const {
  const double rate = elapsed > 0 ? done / elapsed : 0;
  char head[160];
  std::snprintf(head, sizeof head, "%llu/%llu %s  %.1f/s  %s", static_cast<unsigned long long>(done),
                static_cast<unsigned long long>(total), unit_.c_str(), rate, seconds_text(elapsed).c_str());
  std::string text = head;
  if (!final) {
    // The seeds left at this rate, or the time budget left, whichever ends first.
    double eta = rate > 0 && total > done ? (total - done) / rate : -1;
    if (max_seconds_ > 0 && (eta < 0 || max_seconds_ - elapsed < eta)) eta = std::max(0.0, max_seconds_ - elapsed);
    text += eta >= 0 ? "  ETA " + seconds_text(eta) : "";
  }
  return text;
}

void ProgressBar::update(std::uint64_t done, std::uint64_t total, double elapsed) {
  if (!enabled_) return;
  done_ = done, total_ = total, elapsed_ = elapsed;
  if (!tty_) {
    if (elapsed - last_status_ < every_) return;
    last_status_ = elapsed;
    std::fprintf(stderr, "status: %s\n", line(done, total, elapsed, false).c_str());
    std::fflush(stderr);
    return;
  }
  const std::size_t cols = terminal_columns();
  std::string text = line(done, total, elapsed, false);
  const std::size_t bar_width = cols > text.size() + 12 ? std::min<std::size_t>(30, cols - text.size() - 12) : 0;
  if (bar_width >= 10) {
    const std::size_t filled = total > 0 ? static_cast<std::size_t>(bar_width * static_cast<double>(done) / total) : 0;
    std::string bar(std::min(filled, bar_width), '#');
    bar.resize(bar_width, '.');
    text = "[" + bar + "] " + text;
  }
  if (text.size() >= cols) text.resize(cols - 1);  // never wrap: a wrapped line cannot be redrawn
  std::fprintf(stderr, "\r%s\033[K", text.c_str());
  drawn_ = true;
}

void ProgressBar::finish() {
  if (!drawn_) return;
  std::string text = line(done_, total_, elapsed_, true);
  const std::size_t cols = terminal_columns();
  if (text.size() >= cols) text.resize(cols - 1);
  std::fprintf(stderr, "\r%s\033[K\n", text.c_str());
  drawn_ = false;
}

}  // namespace wsstress::cli
