// SPDX-License-Identifier: MIT OR Apache-2.0
// `wsstress sim` and `wsstress replay`: run the simulator over a seed range,
// write a reproducer for each failure (shrunk on request), render traces.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "html.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "report.hpp"
#include "sim_outputs.hpp"
#include "timeline.hpp"
#include "wsstress/core/catalog.hpp"
#include "wsstress/core/scenarios.hpp"
#include "wsstress/core/shown.hpp"

namespace wsstress::cli {

namespace {

struct SimOptions {
  sim::SimCampaignSpec campaign;
  SeedOptions seeds;
  std::string json_path, repro_path, trace_out, html_path, input_path;
  bool trace = false, shrink = false, quiet = false, keep_going = false;
  bool default_sweep = false;  // no --seed or --seeds: seeds from 0 until the first failure
  CLI::Option* scenario_opt = nullptr;
  CLI::Option* input_opt = nullptr;
  CLI::Option* max_seconds_opt = nullptr;
};

struct ReplayOptions {
  std::string file, trace_out, html_path;
  bool trace = false, shrink = false;
  // Checking a fix on the recorded schedule: this build's pool, or a catalog
  // mutant's (`--mutant none`: the clean pool), followed as far as it can be.
  bool check_fix = false;
  std::string mutant;
};

// The HTML report's header of a reproducer's run.
HtmlRunHeader html_header(const sim::Repro& r, const std::string& repro_path) {
  return {"scenario " + r.spec.scenario + ", mutant " + r.spec.mutant + ", seed " + std::to_string(r.config.seed) +
              ", " + sim::strategy_name(r.config.strategy) + "/" + sim::memory_name(r.config.memory) + ", " +
              std::to_string(r.spec.threads) + " threads x " + std::to_string(r.spec.pools) + " pools",
          core::repro_replay_command(repro_path, true)};
}

// A run's trace, as asked: printed (--trace), as a Perfetto file (--trace-out)
// and as an HTML page (--html), each written file said. False if a file could
// not be written (said on stderr by write_report).
bool write_traces(const sim::SimResult& res, bool text, const std::string& out_path, const std::string& html_path,
                  const HtmlRunHeader& header, bool quiet) {
  if (text) {
    const std::string t = trace_text(res);
    std::fwrite(t.data(), 1, t.size(), text_out());
  }
  bool ok = true;
  const auto write = [&](const char* option, const char* label, const std::string& path, const std::string& body,
                         const char* what) {
    if (write_report(option, path, body, kOk) != kOk) {
      ok = false;
    } else if (!quiet) {
      std::fprintf(text_out(), "%s: %s (%s)\n", label, path.c_str(), what);
    }
  };
  if (!out_path.empty()) {
    write("--trace-out", "trace", out_path, trace_perfetto(res), "Chrome trace-event JSON; open it in ui.perfetto.dev");
  }
  if (!html_path.empty()) write("--html", "html", html_path, sim_html(res, header), "open it in a browser, offline");
  return ok;
}

// Re-runs a reproducer with its trace recorded, and writes what was asked.
void emit_trace(const sim::Repro& r, bool text, const std::string& out_path, const std::string& html_path,
                const std::string& repro_path, bool quiet) {
  sim::SimConfig cfg = r.config;
  cfg.record_trace = true;
  const sim::SimResult res = sim::find_sim_runner(r.spec.mutant)(r.spec, cfg);
  write_traces(res, text, out_path, html_path, html_header(r, repro_path), quiet);
}

void print_shrink(const sim::ShrinkReport& s) {
  std::fprintf(text_out(),
               "shrink: %llu attempts; iterations %zu -> %zu, threads %zu -> %zu, pools %zu -> %zu, "
               "schedule %zu -> %zu decisions, preemptions %zu -> %zu\n",
               static_cast<unsigned long long>(s.attempts), s.before.spec.iterations, s.after.spec.iterations,
               s.before.spec.threads, s.after.spec.threads, s.before.spec.pools, s.after.spec.pools,
               s.before.config.forced.size(), s.after.config.forced.size(), s.preemptions_before, s.preemptions_after);
}

// Shrinks in a child process, where a candidate run that crashes the pool ends
// only the child; the shrunk reproducer comes back through a pipe. nullopt
// (said on stderr) if the shrink could not finish: the reproducer stays as it was.
std::optional<sim::Repro> shrink_guarded(const sim::Repro& r, bool quiet) {
  const sim::ChildAnswer a = sim::answer_in_child([&] {
    const sim::ShrinkReport s = sim::shrink(r);
    if (!quiet) print_shrink(s);
    return sim::write_repro(s.after);
  });
  if (!a.started) return sim::shrink(r).after;
  Result<sim::Repro> shrunk = sim::read_repro(a.text);
  if (a.clean && shrunk) return std::move(*shrunk);
  std::fprintf(stderr,
               "wsstress: shrink: the shrinking process %s (a candidate crashed the pool?); the reproducer "
               "is written as found\n",
               sim::process_end_text(a.status).c_str());
  return std::nullopt;
}

// Writes one failure's reproducer (shrunk on request) and its traces, and
// says where; returns the reproducer's path and adds each path it wrote to
// `written`. With --keep-going each is named by its seed (sim_outputs.hpp).
// An output that cannot be written is said on stderr; the failure's exit code stands.
std::string write_failure(const SimOptions& o, const sim::SimFailure& f, std::set<std::string>& written) {
  const auto& run = o.campaign.base.run;
  sim::Repro repro = f.repro;
  const auto named = [&](const std::string& p) { return o.keep_going && !p.empty() ? per_seed_path(p, f.seed) : p; };
  const std::string path =
      o.repro_path.empty() ? "wsstress-" + run.scenario + "-" + run.mutant + "-seed" + std::to_string(f.seed) + ".repro"
                           : named(o.repro_path);
  // A crash is neither shrunk nor traced here: each run would end this process.
  const bool crash = f.result.verdict.kind == core::VerdictKind::Crash;
  if (o.shrink && !crash) {
    if (std::optional<sim::Repro> shrunk = shrink_guarded(repro, o.quiet)) repro = std::move(*shrunk);
  }
  written.insert(path);
  if (const Result<void> w = write_output(path, sim::write_repro(repro)); !w) {
    std::fprintf(stderr, "wsstress: error: reproducer: %s\n", w.error().c_str());  // the failure's exit code stands
  } else if (!o.quiet) {
    const std::string t = sim_reproducer_text(path, repro);
    std::fwrite(t.data(), 1, t.size(), text_out());
  }
  if ((o.trace || !o.trace_out.empty() || !o.html_path.empty()) && !crash) {
    const std::string trace_out = named(o.trace_out), html = named(o.html_path);
    written.insert(trace_out);
    written.insert(html);
    // A trace that cannot be written is said; the failure's exit code stands.
    emit_trace(repro, o.trace, trace_out, html, path, o.quiet);
  }
  return path;
}

int sim_command(const SimOptions& o) {
  const auto& b = o.campaign.base;
  ProgressBar bar(!o.quiet, b.max_seconds,
                  "sim: scenario " + b.run.scenario + ", mutant " + b.run.mutant + ", " +
                      (o.default_sweep ? std::string("seeds from 0 until the first failure")
                                       : std::to_string(core::seeds_in_shard(b.seeds, b.shard)) + " seeds"));
  auto progress = [&bar](std::uint64_t done, std::uint64_t total, double elapsed) { bar.update(done, total, elapsed); };
  sim::SimCampaignReport rep;
  {
    const core::StopSignals stop;
    rep = sim::run_sim_campaign(o.campaign, progress);
  }
  bar.finish();
  std::string text = o.quiet ? "" : sim_report_header_text(rep);
  std::fwrite(text.data(), 1, text.size(), text_out());
  int code = verdict_of(rep).code;
  std::vector<std::string> repro_paths;
  std::set<std::string> written;
  for (const auto& f : rep.failures) {
    text = o.quiet ? "" : sim_failure_text(f);
    std::fwrite(text.data(), 1, text.size(), text_out());
    repro_paths.push_back(write_failure(o, f, written));
  }
  // An earlier run's output this run did not replace would read as this run's.
  const bool settled = settle_unwritten("--repro", o.repro_path, OutputKind::Repro, written) &
                       settle_unwritten("--trace-out", o.trace_out, OutputKind::Trace, written) &
                       settle_unwritten("--html", o.html_path, OutputKind::Html, written);
  if (!settled && code == kOk) code = kInternal;
  std::fprintf(text_out(), "verdict: %s\n", verdict_of(rep).word);
  std::fflush(text_out());
  return o.json_path.empty() ? code : write_report("--json", o.json_path, sim_report_json(rep, repro_paths), code);
}

// "; recorded by build X, this is build Y" when another executable wrote it.
std::string other_build(const sim::Repro& r) {
  if (r.build.empty() || r.build == sim::build_id()) return "";
  return "; recorded by build " + r.build + ", this is build " + sim::build_id();
}

// The replay's verdict and whether it is the recorded run again (its verdict
// and, when recorded, its trace hash); what differed goes to stderr.
bool print_replay_verdict(const sim::Repro& r, const sim::SimResult& res) {
  std::fprintf(text_out(), "replay: %s%s%s\n", core::verdict_name(res.verdict.kind),
               res.verdict.message.empty() ? "" : ": ", res.verdict.message.c_str());
  std::fputs(explanation_text(res.verdict).c_str(), text_out());
  if (!res.verdict.dump.empty()) std::fprintf(text_out(), "state when it was detected:\n%s", res.verdict.dump.c_str());
  if (r.trace_hash != 0) {
    std::fprintf(text_out(), "replay: trace hash %s, %s the recorded one\n", hash_text(res.trace_hash).c_str(),
                 res.trace_hash == r.trace_hash ? "same as" : "DIFFERENT from");
  }
  const std::string replayed = core::verdict_name(res.verdict.kind);
  const bool same_verdict = r.verdict.empty() || r.verdict == replayed;
  const bool same_trace = r.trace_hash == 0 || r.trace_hash == res.trace_hash;
  if (!same_verdict || !same_trace) {
    std::fprintf(stderr, "wsstress: error: the replay did not reproduce the recorded run: %s%s\n",
                 !same_verdict ? ("recorded " + r.verdict + ", replayed " + replayed).c_str()
                               : "same verdict, another interleaving (trace hash)",
                 other_build(r).c_str());
  }
  return same_verdict && same_trace;
}

// A replay on other code (--check-fix, --mutant): where it left the recorded
// schedule, and whether the recorded failure is still there. Its exit code is
// this run's verdict's: 0 when the failure is gone.
int print_fix_check(const sim::Repro& r, const sim::SimResult& res, const std::string& mutant) {
  std::fprintf(
      text_out(), "replay: %s\n",
      res.divergence.empty()
          ? ("followed the whole recorded schedule (" + std::to_string(r.config.forced.size()) + " decisions)").c_str()
          : ("left it: " + res.divergence +
             "; from there on, the non-preemptive rule (the fiber that ran last "
             "goes on, else the lowest runnable; a load reads the newest store)")
                .c_str());
  std::fprintf(text_out(), "replay: %s%s%s\n", core::verdict_name(res.verdict.kind),
               res.verdict.message.empty() ? "" : ": ", res.verdict.message.c_str());
  std::fputs(explanation_text(res.verdict).c_str(), text_out());
  if (!res.verdict.dump.empty()) std::fprintf(text_out(), "state when it was detected:\n%s", res.verdict.dump.c_str());
  const std::string recorded = r.verdict + (r.message.empty() ? "" : ": " + r.message);
  if (res.verdict.kind == core::VerdictKind::Pass) {
    std::fprintf(text_out(), "fix check: the recorded failure (%s) is gone on %s\n", recorded.c_str(), mutant.c_str());
  } else {
    std::fprintf(text_out(), "fix check: %s on %s (recorded: %s)\n",
                 r.verdict == core::verdict_name(res.verdict.kind) ? "it still fails" : "it fails another way",
                 mutant.c_str(), recorded.c_str());
  }
  return exit_code_for(res.verdict.kind);
}

// The replay itself: run, print, shrink. In a child process of its own
// (replay_command), so that a reproducer of a crash crashes only the child.
int replay_run(const ReplayOptions& o, const Result<sim::Repro>& r) {
  sim::SimConfig cfg = r->config;
  cfg.record_trace = o.trace || !o.trace_out.empty() || !o.html_path.empty();
  if (o.check_fix) {
    core::RunSpec spec = r->spec;
    if (!o.mutant.empty()) spec.mutant = o.mutant;
    cfg.forced_then_keep_running = true;
    std::fprintf(text_out(),
                 "replay: checking a fix: the schedule recorded on mutant %s, replayed on %s (this build)\n",
                 r->spec.mutant.c_str(), spec.mutant == "none" ? "the clean pool" : ("mutant " + spec.mutant).c_str());
    std::fflush(text_out());  // said before a crash can end this process
    const sim::SimResult res = sim::find_sim_runner(spec.mutant)(spec, cfg);
    const bool unwritten = !write_traces(res, o.trace, o.trace_out, o.html_path, html_header(*r, o.file), false);
    const int code = print_fix_check(*r, res, spec.mutant == "none" ? "the clean pool" : "mutant " + spec.mutant);
    return unwritten && code == kOk ? static_cast<int>(kInternal) : code;
  }
  std::fprintf(text_out(), "replay: scenario %s, mutant %s, seed %llu, %s/%s, %zu decisions\n",
               r->spec.scenario.c_str(), r->spec.mutant.c_str(), static_cast<unsigned long long>(r->config.seed),
               sim::strategy_name(r->config.strategy), sim::memory_name(r->config.memory), r->config.forced.size());
  if (!r->shrunk_from.empty()) std::fprintf(text_out(), "replay: shrunk from %s\n", r->shrunk_from.c_str());
  std::fflush(text_out());  // said before a crash can end this process
  sim::SimResult res = sim::find_sim_runner(r->spec.mutant)(r->spec, cfg);
  // A schedule that no longer fits is the recorded run not shown again: a
  // finding about the run (exit 3, as another verdict is), not a bad command line.
  if (!res.divergence.empty()) {
    std::fprintf(stderr,
                 "wsstress: error: %s: the replay did not reproduce the recorded run: %s (was it recorded "
                 "with another build of the pool, or its settings edited?)%s\n",
                 o.file.c_str(), res.divergence.c_str(), other_build(*r).c_str());
    return kInternal;
  }
  if (!r->spec.input.empty()) {
    core::ByteSource src(reinterpret_cast<const std::uint8_t*>(r->spec.input.data()), r->spec.input.size());
    std::fprintf(text_out(), "program: %s", core::Program::decode(src).render().c_str());
  }
  // An output that failed is said on stderr; the verdict below still stands.
  bool unwritten = !write_traces(res, o.trace, o.trace_out, o.html_path, html_header(*r, o.file), false);
  const bool reproduced = print_replay_verdict(*r, res);
  if (o.shrink && reproduced && r->verdict != "crash") {
    const std::optional<sim::Repro> shrunk = shrink_guarded(*r, false);
    const std::string out = o.file + ".shrunk";
    if (!shrunk) {
      unwritten = true;
    } else if (const Result<void> written = write_output(out, sim::write_repro(*shrunk)); !written) {
      std::fprintf(stderr, "wsstress: error: --shrink: %s\n", written.error().c_str());
      unwritten = true;
    } else {
      std::fprintf(text_out(), "shrunk reproducer: %s\n", out.c_str());
    }
  }
  // A replay that shows something else than was recorded is not that failure
  // again: the tool could not do what it was asked (another build of the pool?).
  const int code = reproduced ? exit_code_for(res.verdict.kind) : static_cast<int>(kInternal);
  return unwritten && code == kOk ? static_cast<int>(kInternal) : code;
}

int replay_command(const ReplayOptions& o) {
  std::ifstream in(o.file);
  if (!in) {
    std::fprintf(stderr, "wsstress: error: %s: cannot open the reproducer\n", shown(o.file).c_str());
    return kUsage;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  const Result<sim::Repro> r = sim::read_repro(ss.str());
  if (!r) {
    std::fprintf(stderr, "wsstress: error: %s: %s\n", shown(o.file).c_str(), bounded_line(r.error()).c_str());
    return kUsage;
  }
  if (!o.mutant.empty()) {
    core::RunSpec spec = r->spec;
    spec.mutant = o.mutant;
    if (const Result<void> ok = core::check_external_mutant(spec); !ok) return usage_error(ok.error());
  }
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return replay_run(o, r);  // no child: replay here
  if (pid == 0) {
    const int code = text_report_code(replay_run(o, r));
    std::fflush(nullptr);
    _exit(code);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  // The pool crashed the replay: the same crash as recorded, or not.
  const std::string how = sim::process_end_text(status);
  std::fprintf(text_out(), "replay: crash: %s\n", how.c_str());
  std::fflush(text_out());
  if (r->verdict == "crash" && r->message.rfind(how, 0) == 0) return kFailed;
  std::fprintf(
      stderr,
      "wsstress: error: the replay did not reproduce the recorded run: recorded %s%s%s, replayed a crash (%s)%s\n",
      r->verdict.c_str(), r->message.empty() ? "" : ": ", r->message.c_str(), how.c_str(), other_build(*r).c_str());
  return kInternal;
}

void add_sim_options(CLI::App* cmd, SimOptions& o) {
  o.campaign = sim::sim_command_defaults();
  auto& ss = o.campaign.base.run;
  ss.iterations = 3;
  // The table's rows (stress/run_flags.hpp), the seeds bound here.
  o.scenario_opt = add_run_flags(cmd, ss, core::kSimCommand, [&](const core::RunFlag& f) {
                     return o.seeds.bind(cmd, f);
                   }).at("--scenario");
  o.seeds.describe_default_sweep();
  // --strategy, --memory and the knobs: the simulator's table (wsstress/sim/flags.hpp).
  add_sim_flags(cmd, o.campaign);
  o.max_seconds_opt = add_max_seconds(cmd, o.campaign.base.max_seconds,
                                      "stop after this long (0: no limit; with no --seed or --seeds, 60 by default)");
  add_json(cmd, o.json_path, "write the report as JSON (schema wsstress.sim/1)");
  cmd->add_option("--repro", o.repro_path, "where to write a failure's reproducer")->check(output_path());
  cmd->add_flag("--trace", o.trace, "print a failure's interleaving with source locations");
  cmd->add_option("--trace-out", o.trace_out, "write a failure's trace as Chrome trace-event JSON (Perfetto)")
      ->check(output_path());
  cmd->add_option("--html", o.html_path, "write a failure's report as one self-contained HTML file (timeline, dump)")
      ->check(output_path());
  cmd->add_flag("--shrink", o.shrink, "minimise a failure's program and schedule before writing it");
  o.input_opt = completes_files(
      cmd->add_option("--input", o.input_path, "a program file (a program_fuzzer input) for --scenario program"));
  cmd->add_flag("--keep-going", o.keep_going, "keep sweeping after a failure");
  add_quiet(cmd, o.quiet, "the verdict line only: no progress line, no text report");
  cmd->footer("Examples:\n"
              "  wsstress sim --scenario inject --mutant no_sleep_fence --strategy pct --memory tso -s 0..9999\n"
              "  wsstress sim --scenario join --strategy dfs --preemption-bound 2 --seed 0\n"
              "  wsstress sim --mutant latch_set_no_wake --repro f.repro --shrink   # then: wsstress replay f.repro");
}

// What CLI11 cannot check, and the texts turned into the campaign's settings.
Result<void> resolve(SimOptions& o) {
  auto& c = o.campaign.base;
  if (auto ok = o.seeds.resolve(c.seeds, c.shard); !ok) return ok;
  o.default_sweep = o.seeds.default_sweep(c.seeds, c.max_seconds, o.max_seconds_opt);
  if (o.input_opt->count() > 0) {
    if (auto ok = read_input(o.input_path, c.run.scenario, o.scenario_opt->count() > 0, c.run.input); !ok) return ok;
    c.run.input_path = o.input_path;
  }
  if (auto ok = core::check_external_mutant(c.run); !ok) return ok;
  c.stop_on_failure = !o.keep_going;
  o.campaign.crash_guard = true;  // a crash of the pool is a finding, not the end of the command
  return {};
}

}  // namespace

Subcommand add_sim(CLI::App& parent) {
  auto o = std::make_shared<SimOptions>();
  CLI::App* cmd = parent.add_subcommand(
      "sim", "the deterministic simulator: every thread a fiber, one seed one interleaving; exit 0 pass, 1 bug or "
             "crash, 4 hang (lost wake-up or livelock)");
  add_sim_options(cmd, *o);
  return {cmd, [o] {
            if (auto ok = resolve(*o); !ok) return usage_error(ok.error());
            if (auto ok = claim_stdout({{"--json", &o->json_path},
                                        {"--repro", &o->repro_path},
                                        {"--trace-out", &o->trace_out},
                                        {"--html", &o->html_path}});
                !ok) {
              return usage_error(ok.error());
            }
            // A failure's reproducer goes to the current folder unless --repro
            // says where: refused now, not after a hang is found.
            if (o->repro_path.empty()) {
              const auto& run = o->campaign.base.run;
              if (const std::string why =
                      output_path_refusal("wsstress-" + run.scenario + "-" + run.mutant + "-seed0.repro");
                  !why.empty()) {
                return usage_error("the default reproducer path: " + why + " (give --repro FILE)");
              }
            }
            return sim_command(*o);
          }};
}

Subcommand add_replay(CLI::App& parent) {
  auto o = std::make_shared<ReplayOptions>();
  CLI::App* cmd = parent.add_subcommand("replay", "replay a simulator reproducer exactly");
  cmd->footer(
      "Examples:\n"
      "  wsstress replay f.repro --trace-out f.trace.json   # open it in https://ui.perfetto.dev\n"
      "  wsstress replay f.repro --mutant none              # the same schedule on the clean pool: is it gone?");
  completes_files(cmd->add_option("file", o->file, "the reproducer file")->required());
  cmd->add_flag("--trace", o->trace, "print the interleaving with source locations");
  cmd->add_option("--trace-out", o->trace_out, "write the trace as Chrome trace-event JSON (Perfetto)")
      ->check(output_path());
  cmd->add_option("--html", o->html_path, "write the run's report as one self-contained HTML file (timeline, dump)")
      ->check(output_path());
  cmd->add_flag("--shrink", o->shrink, "minimise it, writing FILE.shrunk");
  cmd->add_flag("--check-fix", o->check_fix,
                "replay on this build's pool: follow the schedule as far as this code allows, then the "
                "non-preemptive rule, and say whether the failure is gone (exit 0 if it is)");
  cmd->add_option("--mutant", o->mutant, "with --check-fix (implied): replay on this mutant ('none': the clean pool)")
      ->check([](const std::string& v) { return core::run_flag("--mutant").check(v); });
  return {cmd, [o] {
            if (!o->mutant.empty()) o->check_fix = true;
            if (o->check_fix && o->shrink)
              return usage_error("--shrink shrinks the recorded failure: not with --check-fix");
            auto ok =
                claim_stdout({{"the reproducer", &o->file}, {"--trace-out", &o->trace_out}, {"--html", &o->html_path}});
            if (!ok) return usage_error(ok.error());
            return replay_command(*o);
          }};
}

}  // namespace wsstress::cli
