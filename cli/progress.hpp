// SPDX-License-Identifier: MIT OR Apache-2.0
// The progress of a sweep, on stderr, for `run` and `sim` alike. On a
// terminal one line redrawn in place (cut to the terminal's width, so it never
// scrolls), with rate and an ETA that knows --max-seconds; at the end it is
// redrawn once without the ETA. Off a terminal (a CI log) a line when the sweep
// starts and a status line every WSSTRESS_STATUS_EVERY seconds (default 10),
// so a job killed by its runner still leaves a log. Nothing with --quiet.
#pragma once

#include <cstdint>
#include <string>

namespace wsstress::cli {

class ProgressBar {
 public:
  // `what`: the sweep, e.g. "run: scenario join" (the first line off a terminal);
  // `unit`: what `done` counts.
  ProgressBar(bool enabled, double max_seconds, std::string what, std::string unit = "seeds");
  ~ProgressBar() { finish(); }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void update(std::uint64_t done, std::uint64_t total, double elapsed);
  // The last line, without an ETA (idempotent).
  void finish();

 private:
  std::string line(std::uint64_t done, std::uint64_t total, double elapsed, bool final) const;

  bool enabled_;
  bool tty_;
  double max_seconds_;
  std::string unit_;
  double every_ = 10;       // off a terminal: seconds between status lines
  double last_status_ = 0;  // off a terminal: when the last one was written
  bool drawn_ = false;
  std::uint64_t done_ = 0, total_ = 0;
  double elapsed_ = 0;
};

}  // namespace wsstress::cli
