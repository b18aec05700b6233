// The progress line of a sweep: redrawn in place on a terminal (stderr), with
// rate and ETA; nothing at all when stderr is not a terminal or --quiet.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace wsstress::cli {

class ProgressBar {
 public:
  explicit ProgressBar(bool enabled) : enabled_(enabled && isatty(2)) {}
  ~ProgressBar() { finish(); }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void update(std::uint64_t done, std::uint64_t total, double elapsed) {
    if (!enabled_) return;
    const double rate = elapsed > 0 ? done / elapsed : 0;
    const double eta = rate > 0 && total > done ? (total - done) / rate : 0;
    const int width = 30;
    const int filled = total > 0 ? static_cast<int>(width * static_cast<double>(done) / total) : 0;
    std::string bar(filled, '#');
    bar.resize(width, '.');
    std::fprintf(stderr, "\r[%s] %llu/%llu seeds  %.1f/s  ETA %s   ", bar.c_str(),
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total), rate,
                 total > 1000000 ? "-" : (std::to_string(static_cast<long long>(eta)) + "s").c_str());
    drawn_ = true;
  }
  void finish() {
    if (drawn_) std::fprintf(stderr, "\n");
    drawn_ = false;
  }

 private:
  bool enabled_;
  bool drawn_ = false;
};

}  // namespace wsstress::cli
