// `wsstress run` and `wsstress mutants`: set up a campaign or a matrix, show
// progress on a terminal, render the report, map the outcome to an exit code.
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "report.hpp"
#include "wsstress/stress/catalog.hpp"

namespace wsstress::cli {

namespace {

bool parse_u64(std::string_view t, std::uint64_t& out) {
  if (t.empty()) return false;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  return ec == std::errc() && end == t.data() + t.size();
}

// A one-line progress bar with rate and ETA, redrawn in place; only on a terminal.
class ProgressBar {
 public:
  explicit ProgressBar(bool enabled) : enabled_(enabled && isatty(2)) {}
  ~ProgressBar() { finish(); }
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

int exit_code_for(stress::VerdictKind k) {
  switch (k) {
    case stress::VerdictKind::Pass: return kOk;
    case stress::VerdictKind::Bug: return kFailed;
    case stress::VerdictKind::Hang: return kHang;
    case stress::VerdictKind::Internal: return kInternal;
  }
  return kInternal;
}

const RunOptions* g_run_options = nullptr;
ProgressBar* g_bar = nullptr;

[[noreturn]] void fatal_hook(const stress::CampaignReport& report) {
  if (g_bar) g_bar->finish();
  const std::string text = run_report_text(report, true);
  std::fwrite(text.data(), 1, text.size(), stderr);
  if (!g_run_options->json_path.empty()) {
    const std::string err = write_atomically(g_run_options->json_path, run_report_json(report));
    if (!err.empty()) std::fprintf(stderr, "wsstress: error: %s\n", err.c_str());
  }
  std::fflush(nullptr);
  std::_Exit(exit_code_for(report.overall()));
}

}  // namespace

bool parse_seed_range(const std::string& text, stress::SeedRange& out, std::string& error) {
  const auto dots = text.find("..");
  std::uint64_t a = 0, b = 0;
  if (dots == std::string::npos) {
    if (!parse_u64(text, a)) {
      error = "'" + text + "' is not a seed (a number 0..18446744073709551615)";
      return false;
    }
    out = {a, a};
    return true;
  }
  if (!parse_u64(std::string_view(text).substr(0, dots), a) || !parse_u64(std::string_view(text).substr(dots + 2), b)) {
    error = "'" + text + "' is not a seed range (expected A..B with whole numbers)";
    return false;
  }
  if (a > b) {
    error = "seed range '" + text + "' is empty (its start is after its end)";
    return false;
  }
  out = {a, b};
  return true;
}

bool parse_shard(const std::string& text, stress::Shard& out, std::string& error) {
  const auto slash = text.find('/');
  std::uint64_t i = 0, n = 0;
  if (slash == std::string::npos || !parse_u64(std::string_view(text).substr(0, slash), i) ||
      !parse_u64(std::string_view(text).substr(slash + 1), n)) {
    error = "'" + text + "' is not a shard (expected I/N, e.g. 0/8)";
    return false;
  }
  if (n == 0 || i >= n) {
    error = "shard '" + text + "' is out of range (need 0 <= I < N)";
    return false;
  }
  out = {i, n};
  return true;
}

int run_command(const RunOptions& o) {
  if (stress::find_mutant(o.campaign.run.mutant) == nullptr) {
    std::fprintf(stderr, "wsstress: error: --mutant: unknown mutant '%s' (see wsstress mutants list)\n",
                 o.campaign.run.mutant.c_str());
    return kUsage;
  }
  ProgressBar bar(!o.quiet);
  g_run_options = &o;
  g_bar = &bar;
  stress::CampaignHooks hooks;
  hooks.progress = [&bar](std::uint64_t done, std::uint64_t total, double elapsed) { bar.update(done, total, elapsed); };
  hooks.fatal = fatal_hook;
  const stress::CampaignReport report = stress::run_campaign(o.campaign, hooks);
  bar.finish();
  g_bar = nullptr;
  if (!o.quiet) {
    const std::string text = run_report_text(report, true);
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  if (!o.json_path.empty()) {
    const std::string err = write_atomically(o.json_path, run_report_json(report));
    if (!err.empty()) {
      std::fprintf(stderr, "wsstress: error: --json: %s\n", err.c_str());
      return kInternal;
    }
  }
  return exit_code_for(report.overall());
}

int mutants_list_command() {
  const std::string text = catalog_text();
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kOk;
}

int mutants_check_command(const CheckOptions& o) {
  for (const std::string& name : o.matrix.only) {
    if (stress::find_mutant(name) == nullptr) {
      std::fprintf(stderr, "wsstress: error: --only: unknown mutant '%s' (see wsstress mutants list)\n", name.c_str());
      return kUsage;
    }
  }
  const bool tty = isatty(1);
  std::vector<stress::MatrixReport> reports;
  for (const std::string& engine : o.engines) {
    stress::MatrixSpec spec = o.matrix;
    spec.engine = engine;
    std::printf("mutant matrix: engine %s, budget %g s per mutant\n", engine.c_str(), spec.budget_s);
    std::fflush(stdout);
    try {
      reports.push_back(stress::run_matrix(spec, [tty, engine](const stress::MatrixRow& row) {
        if (tty) {
          const std::string line = matrix_row_text(engine, row);
          std::fwrite(line.data(), 1, line.size(), stdout);
          std::fflush(stdout);
        }
      }));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "wsstress: error: %s\n", e.what());
      return kInternal;
    }
  }
  const std::string text = matrix_text(reports);
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (!o.json_path.empty()) {
    const std::string err = write_atomically(o.json_path, matrix_json(reports));
    if (!err.empty()) {
      std::fprintf(stderr, "wsstress: error: --json: %s\n", err.c_str());
      return kInternal;
    }
  }
  for (const auto& m : reports) {
    for (const auto& row : m.rows) {
      if (!row.as_expected) return kFailed;
    }
  }
  return kOk;
}

}  // namespace wsstress::cli
