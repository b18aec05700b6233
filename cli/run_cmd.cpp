// SPDX-License-Identifier: MIT OR Apache-2.0
// `wsstress run`: a campaign on real threads. Sets it up from the command
// line, shows progress on a terminal, renders the report, and maps the
// outcome to an exit code; a hang, a broken invariant or a crash ends the
// process from the campaign's fatal hook, after the same report.
#include <cstdio>
#include <cstdlib>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "report.hpp"
#include "wsstress/core/catalog.hpp"
#include "wsstress/core/scenarios.hpp"
#include "wsstress/threads/campaign.hpp"

namespace wsstress::cli {

namespace {

struct RunOptions {
  core::CampaignSpec campaign;
  SeedOptions seeds;
  std::string json_path, input_path;
  bool keep_going = false, quiet = false;
  bool default_sweep = false;  // no --seed or --seeds: seeds from 0 until the first failure
  CLI::Option* scenario_opt = nullptr;
  CLI::Option* input_opt = nullptr;
  CLI::Option* max_seconds_opt = nullptr;
};

const RunOptions* g_run_options = nullptr;
ProgressBar* g_bar = nullptr;

// The text report, or with --quiet its verdict line alone.
void print_report(const threads::CampaignReport& report, bool quiet) {
  const std::string text =
      quiet ? std::string("verdict: ") + verdict_of(report).word + "\n" : run_report_text(report, true);
  std::fwrite(text.data(), 1, text.size(), text_out());
  std::fflush(text_out());
}

// A hang, a broken invariant or a crash: the pool's threads are stuck or its
// state is corrupt, so the report is written from here and the process ends.
[[noreturn]] void fatal_hook(const threads::CampaignReport& report) {
  if (g_bar) g_bar->finish();
  print_report(report, g_run_options->quiet);
  int code = verdict_of(report).code;
  if (!g_run_options->json_path.empty())
    code = write_report("--json", g_run_options->json_path, run_report_json(report), code);
  code = text_report_code(code);
  std::fflush(nullptr);
  std::_Exit(code);
}

int run_campaign_command(const RunOptions& o) {
  const auto& c = o.campaign;
  ProgressBar bar(!o.quiet, c.max_seconds,
                  "run: scenario " + c.run.scenario + ", mutant " + c.run.mutant + ", " +
                      (o.default_sweep ? std::string("seeds from 0 until the first failure")
                                       : std::to_string(core::seeds_in_shard(c.seeds, c.shard)) + " seeds"));
  g_run_options = &o;
  g_bar = &bar;
  threads::CampaignHooks hooks;
  hooks.progress = [&bar](std::uint64_t done, std::uint64_t total, double elapsed) {
    bar.update(done, total, elapsed);
  };
  hooks.fatal = fatal_hook;
  hooks.crash_is_fatal = true;
  threads::CampaignReport report;
  {
    const core::StopSignals stop;
    report = threads::run_campaign(o.campaign, hooks);
  }
  bar.finish();
  g_bar = nullptr;
  print_report(report, o.quiet);
  const int code = verdict_of(report).code;
  return o.json_path.empty() ? code : write_report("--json", o.json_path, run_report_json(report), code);
}

void add_options(CLI::App* cmd, RunOptions& o) {
  // The table's rows (stress/run_flags.hpp); the seeds and --input bound here.
  const FlagOptions flags =
      add_run_flags(cmd, o.campaign.run, core::kRunCommand, [&](const core::RunFlag& f) -> CLI::Option* {
        if (CLI::Option* seeds = o.seeds.bind(cmd, f)) return seeds;
        if (f.long_name() == "--input") return add_table_option(cmd, "--input", core::kRunCommand, o.input_path);
        return nullptr;
      });
  o.scenario_opt = flags.at("--scenario");
  o.input_opt = flags.at("--input");
  o.seeds.describe_default_sweep();
  add_json(cmd, o.json_path, "write the report as JSON (schema wsstress.run/2)");
  o.max_seconds_opt = add_max_seconds(cmd, o.campaign.max_seconds,
                                      "stop the sweep after this long (0: no limit; with no --seed or --seeds, 60 by "
                                      "default)");
  cmd->add_option("--repeat", o.campaign.repeat,
                  "run each seed this many times (on real threads a seed fixes the program and the noise, "
                  "not the interleaving)")
      ->check(whole_range(1, 1000000));
  cmd->add_flag("--control", o.campaign.control,
                "with --mutant: then run the clean pool over the same seeds and say whether the mutant's rate of "
                "workers asleep beside queued work is above it (doubles the time)");
  cmd->add_flag("--keep-going", o.keep_going, "keep sweeping after a failure (a hang or a crash still ends the run)");
  add_quiet(cmd, o.quiet, "the verdict line only: no progress bar, no text report");
  cmd->footer("Examples:\n"
              "  wsstress run --scenario inject -s 0..999           # 1000 seeds of the injector scenario\n"
              "  wsstress run --mutant no_sleep_fence --max-seconds 30 -o report.json\n"
              "  wsstress run --scenario cross --seed 42 --repeat 100   # retry one seed's program 100 times\n"
              "  wsstress run --scenario rendezvous --mutant internal_push_no_jec -s 0..999 --control");
}

}  // namespace

Subcommand add_run(CLI::App& parent) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = parent.add_subcommand(
      "run", "seeded randomized schedules on real threads, with a hang watchdog; exit 0 pass, 1 bug or crash, 4 hang");
  add_options(cmd, *o);
  return {cmd, [o] {
            auto& rs = o->campaign.run;
            if (auto ok = o->seeds.resolve(o->campaign.seeds, o->campaign.shard); !ok) return usage_error(ok.error());
            o->default_sweep = o->seeds.default_sweep(o->campaign.seeds, o->campaign.max_seconds, o->max_seconds_opt);
            if (auto ok = claim_stdout({{"--json", &o->json_path}}); !ok) return usage_error(ok.error());
            if (o->input_opt->count() > 0) {
              auto ok = read_input(o->input_path, rs.scenario, o->scenario_opt->count() > 0, rs.input);
              if (!ok) return usage_error(ok.error());
              rs.input_path = o->input_path;
            }
            if (auto ok = core::check_external_mutant(rs); !ok) return usage_error(ok.error());
            if (o->campaign.control && rs.mutant == "none") {
              return usage_error("--control compares a mutant with the clean pool: it needs --mutant");
            }
            o->campaign.stop_on_failure = !o->keep_going;
            o->campaign.program = "wsstress";
            return run_campaign_command(*o);
          }};
}

}  // namespace wsstress::cli
