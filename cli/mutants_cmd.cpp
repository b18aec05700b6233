// SPDX-License-Identifier: MIT OR Apache-2.0
// `wsstress mutants list` and `wsstress mutants check`: the catalog, and the
// matrix of every mutant under every engine asked for, rendered as a table
// (rows as they complete on a terminal) and optionally as JSON. The engines
// are the registry's (engines/engine.hpp): their names, help and choices come
// from it, and this file names none of them.
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "html.hpp"
#include "output.hpp"
#include "report.hpp"
#include "wsstress/core/catalog.hpp"
#include "wsstress/core/shown.hpp"
#include "wsstress/core/sweep.hpp"
#include "wsstress/matrix/run_matrix.hpp"

namespace wsstress::cli {

namespace {

// The registry's engines by name, in its order: --engine's choices.
std::vector<std::string> engine_names() {
  std::vector<std::string> names;
  for (const matrix::Engine* e : matrix::all_engines()) names.emplace_back(e->name());
  return names;
}

// " (relacy: per search)": what --max-seconds is per, for the engines whose
// budget is not the whole row's.
std::string budget_units_help() {
  std::string text;
  for (const matrix::Engine* e : matrix::all_engines()) {
    if (e->budget_unit() == "mutant") continue;
    text += (text.empty() ? " (" : ", ") + std::string(e->name()) + ": per " + std::string(e->budget_unit());
  }
  return text.empty() ? text : text + ")";
}

// "a, b (what b is), c": --engine's help, in the registry's order.
std::string engines_help() {
  std::string text;
  for (const matrix::Engine* e : matrix::all_engines()) {
    text += std::string(text.empty() ? "" : ", ") + std::string(e->name());
    if (!e->gloss().empty()) text += " (" + std::string(e->gloss()) + ")";
  }
  return text;
}

struct CheckOptions {
  matrix::MatrixSpec matrix;
  std::vector<std::string> engines;
  std::string json_path, html_path, engines_text, only_text;
  std::vector<std::string> expect_kind_text;
  CLI::Option* only_opt = nullptr;
};

// "a,b,c" -> {a, b, c}; an empty or repeated item is an error naming the option.
Result<void> split_commas(const std::string& option, const std::string& text, std::vector<std::string>& out) {
  for (std::size_t start = 0;;) {
    const auto comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) return fail(option + ": empty name in " + shown(text));
    if (std::find(out.begin(), out.end(), item) != out.end())
      return fail(option + ": " + shown(item) + " is given twice");
    out.push_back(item);
    if (comma == std::string::npos) return {};
    start = comma + 1;
  }
}

// What CLI11 cannot check: the engine list, the mutant list, --expect-kind.
Result<void> resolve(CheckOptions& o) {
  if (auto ok = split_commas("--engine", o.engines_text, o.engines); !ok) return ok;
  for (const std::string& e : o.engines) {
    if (matrix::find_engine(e) == nullptr) {
      std::string names;
      for (const std::string& k : engine_names()) names += (names.empty() ? "" : ", ") + k;
      return fail("--engine: unknown engine " + shown(e) + " (engines: " + names + ")");
    }
  }
  if (o.only_opt->count() > 0) {
    if (auto ok = split_commas("--only", o.only_text, o.matrix.only); !ok) return ok;
  }
  for (const std::string& name : o.matrix.only) {
    if (core::find_mutant(name) == nullptr) {
      return fail("--only: unknown mutant " + shown(name) + " (see wsstress mutants list)");
    }
  }
  for (const std::string& e : o.expect_kind_text) {
    const auto eq = e.find('=');
    const auto kinds = eq == std::string::npos ? 0 : core::parse_failure_kinds(e.substr(eq + 1));
    if (kinds == 0) {
      return fail("--expect-kind: " + shown(e) + " is not MUTANT=KIND[|KIND...] with known kinds");
    }
    if (core::find_mutant(e.substr(0, eq)) == nullptr) {
      return fail("--expect-kind: unknown mutant " + shown(e.substr(0, eq)));
    }
    o.matrix.expect_kinds[e.substr(0, eq)] = kinds;
  }
  return {};
}

int check_command(const CheckOptions& o, const std::string& self) {
  const bool tty = isatty(1);
  const core::StopSignals stop;  // a signal ends the matrix after passing itself on to the running child
  std::vector<matrix::MatrixReport> reports;
  for (const std::string& engine : o.engines) {
    if (core::StopSignals::requested() != 0) break;
    matrix::MatrixSpec spec = o.matrix;
    spec.engine = engine;
    spec.self = self;
    std::fprintf(text_out(), "mutant matrix: engine %s, budget %g s per %s\n", engine.c_str(), spec.budget_s,
                 std::string(matrix::find_engine(engine)->budget_unit()).c_str());
    std::fflush(text_out());
    try {
      reports.push_back(
          matrix::run_matrix(spec, *matrix::find_engine(engine), [tty, engine](const matrix::MatrixRow& row) {
            if (!tty) return;
            const std::string line = matrix_row_text(engine, row);
            std::fwrite(line.data(), 1, line.size(), text_out());
            std::fflush(text_out());
          }));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "wsstress: error: %s\n", e.what());
      return kInternal;
    }
  }
  const std::string text = matrix_text(reports);
  std::fwrite(text.data(), 1, text.size(), text_out());
  int stopped = 0;
  for (const auto& m : reports) stopped = stopped != 0 ? stopped : m.stopped_by_signal;
  if (stopped == 0) stopped = core::StopSignals::requested();  // between two engines
  int code = matrix_exit_code(reports, stopped);
  if (!o.html_path.empty()) code = write_report("--html", o.html_path, matrix_html(reports), code);
  return o.json_path.empty() ? code : write_report("--json", o.json_path, matrix_json(reports), code);
}

void add_check_options(CLI::App* cmd, CheckOptions& o) {
  // The first engine of the registry (real threads) is the default column.
  o.engines_text = engine_names().front();
  completes(cmd->add_option("--engine", o.engines_text, "comma-separated engines: " + engines_help()), engine_names())
      ->capture_default_str();
  add_max_seconds(cmd, o.matrix.budget_s, "seconds per mutant and engine" + budget_units_help(), 0.5, 86400.0);
  add_table_option(cmd, "--hang-timeout", core::kMatrixCommand, o.matrix.hang_timeout_s);
  o.only_opt = completes(cmd->add_option("--only", o.only_text, "comma-separated mutants to check (default: all)"),
                         mutant_names());
  cmd->add_option("--expect-kind", o.expect_kind_text,
                  "MUTANT=KINDS: replace the catalog's expected failure kinds (hang, data_race, use_after_free, "
                  "assertion, wrong_result, crash; '|' between several), to check the check (repeatable)");
  o.matrix.base.iterations = 10;
  o.matrix.base.noise = 2;
  // The table's rows for the matrix's base run; its hang timeout is the matrix's own (above).
  add_run_flags(cmd, o.matrix.base, core::kMatrixCommand, {}, {"--hang-timeout"});
  add_json(cmd, o.json_path, "write the matrix as JSON (schema wsstress.mutants/3)");
  cmd->add_option("--html", o.html_path, "write the matrix as one self-contained HTML table, coloured by outcome")
      ->check(output_path());
  cmd->footer("Examples:\n"
              "  wsstress mutants check --engine threads,sim-sc,sim-tso,relacy --max-seconds 10\n"
              "  wsstress mutants check --only no_sleep_fence,latch_set_no_wake --engine sim-tso -o matrix.json");
}

}  // namespace

Subcommand add_mutants(CLI::App& parent, const std::string& self) {
  CLI::App* cmd = parent.add_subcommand("mutants", "the mutant catalog: list it, or check every engine catches it");
  cmd->require_subcommand(1);
  CLI::App* list = cmd->add_subcommand("list", "name, upstream history and failure of every mutant");
  CLI::App* check = cmd->add_subcommand(
      "check", "run every mutant (and the clean pool) for a time budget; print the matrix; exit 1 if any row is "
               "not as the catalog expects");
  auto o = std::make_shared<CheckOptions>();
  add_check_options(check, *o);
  return {cmd, [o, list, self] {
            if (list->parsed()) {
              const std::string text = catalog_text();
              std::fwrite(text.data(), 1, text.size(), text_out());
              return static_cast<int>(kOk);
            }
            if (auto ok = resolve(*o); !ok) return usage_error(ok.error());
            if (auto ok = claim_stdout({{"--json", &o->json_path}, {"--html", &o->html_path}}); !ok)
              return usage_error(ok.error());
            return check_command(*o, self);
          }};
}

}  // namespace wsstress::cli
