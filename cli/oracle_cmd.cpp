// SPDX-License-Identifier: MIT OR Apache-2.0
// `wsstress oracle`: programs of the fuzzers' language run on the port and on
// real rayon-core 1.10.1, their canonical logs compared (stress/oracle.hpp).
// Here: the options, which programs (a file, a corpus folder, a seed range),
// and the report - each finding with the program, both logs and a replay
// line, then the counts, the cost per program on each side and the verdict.
// rayon-core's runner is one child kept alive across the programs
// (RayonChild), or with --child-per-program one started for each. A signal
// (SIGINT, SIGTERM, SIGHUP) or --max-seconds stops it after the program in
// progress, with the report of what ran; --json writes it as JSON.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "output.hpp"
#include "wsstress/core/run_flags.hpp"
#include "wsstress/core/shown.hpp"
#include "wsstress/core/sweep.hpp"
#include "wsstress/oracle/oracle.hpp"

namespace wsstress::cli {

namespace {

struct OracleOptions {
  std::vector<std::string> inputs, corpora;
  SeedOptions seeds;
  double hang_timeout_s = core::default_hang_timeout(core::kOracleCommand);
  double max_seconds = 0;  // 0: no limit
  std::string mutant = "none";
  std::string out_dir = ".";
  std::string json_path;
  CLI::Option* out_opt = nullptr;
  bool keep_going = false, quiet = false, child_per_program = false;
  std::string test_fault;  // hidden: oracle::rayon_test_faults(), wrong_port_test_faults(), port-hang, port-wrong-log
};

// One program to compare: its bytes and where they came from.
struct Input {
  std::string bytes, file;  // file: "" for a seed's program until a finding writes it
  std::uint64_t seed = 0;
  bool from_seed = false;
};

struct Tally {
  std::uint64_t programs = 0, agree = 0, differ = 0, hangs = 0;
  double port_s = 0, rayon_s = 0;
  int stopped_by_signal = 0;
  bool budget_exhausted = false;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  nlohmann::json findings = nlohmann::json::array();  // what, program file, seed, replay
};

// The run in progress, for the report a port hang or crash writes as it ends
// the process.
struct Running {
  const OracleOptions* o = nullptr;
  Tally* t = nullptr;
  std::string runner;
};
Running g_running;

// The report's verdict word and exit code: a hang, then a difference (or a
// crash), keep their codes; a run stopped by a signal that found nothing
// exits 128 + the signal (exit_codes.hpp); no program at all is `empty`.
SweepVerdict oracle_verdict(const Tally& t) {
  if (t.hangs != 0) return {"hang", kHang};
  if (t.differ != 0) return {"fail", kFailed};
  const char* word = t.programs != 0 ? "pass" : "empty";
  if (t.stopped_by_signal != 0) return {word, 128 + t.stopped_by_signal};
  return {word, t.programs != 0 ? static_cast<int>(kOk) : static_cast<int>(kEmpty)};
}

std::string oracle_json(const OracleOptions& o, const Tally& t, const std::string& runner, const char* verdict) {
  const auto per_program_ms = [&](double s) { return t.programs ? 1e3 * s / static_cast<double>(t.programs) : 0.0; };
  const nlohmann::json j = {
      {"schema", "wsstress.oracle/1"},
      {"tool", "wsstress 0.1.0"},
      {"mutant", o.mutant},
      {"rayon_core", "1.10.1"},
      {"rayon_runner", runner},
      {"params",
       {{"hang_timeout_s", o.hang_timeout_s},
        {"max_seconds", o.max_seconds},
        {"keep_going", o.keep_going},
        {"child_per_program", o.child_per_program}}},
      {"programs", t.programs},
      {"agree", t.agree},
      {"differ", t.differ},
      {"hang", t.hangs},
      {"elapsed_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - t.start).count()},
      {"port_ms_per_program", per_program_ms(t.port_s)},
      {"rayon_ms_per_program", per_program_ms(t.rayon_s)},
      {"budget_exhausted", t.budget_exhausted},
      {"stopped_by",
       t.stopped_by_signal != 0 ? nlohmann::json(core::signal_name(t.stopped_by_signal)) : nlohmann::json()},
      {"verdict", verdict},
      {"findings", t.findings},
  };
  return j.dump(2) + "\n";
}

// Writes --json, if asked, for a run that ends here; returns the exit code.
int write_json(const char* verdict, int code) {
  const Running& r = g_running;
  if (r.o == nullptr || r.o->json_path.empty()) return code;
  return write_report("--json", r.o->json_path, oracle_json(*r.o, *r.t, r.runner, verdict), code);
}

std::string indent(const std::string& text, const char* pad = "    ") {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t nl = text.find('\n', at);
    const std::size_t end = nl == std::string::npos ? text.size() : nl;
    out += pad + text.substr(at, end - at) + "\n";
    at = end + 1;
  }
  return out;
}

// Where a program's file is: its own, or for a seed's program the one a
// finding writes into --out, for the replay line.
std::string program_path(const OracleOptions& o, const Input& in) {
  if (!in.from_seed) return in.file;
  return o.out_dir + "/wsstress-oracle-seed-" + std::to_string(in.seed) + ".program";
}

std::string finding_text(const OracleOptions& o, const Input& in, const std::string& what, const std::string& body) {
  const std::string file = program_path(o, in);
  core::ByteSource src(reinterpret_cast<const std::uint8_t*>(in.bytes.data()), in.bytes.size());
  return "finding: " + what + "\n  program file: " + file +
         (in.from_seed ? " (seed " + std::to_string(in.seed) + ")" : "") + "\n  program:\n" +
         indent(core::Program::decode(src).render(), "  ") + body +
         "  replay: " + core::oracle_command(file, o.mutant) + "\n";
}

nlohmann::json finding_json(const OracleOptions& o, const Input& in, const std::string& what) {
  const std::string file = program_path(o, in);
  return {{"what", what},
          {"program_file", file},
          {"seed", in.from_seed ? nlohmann::json(in.seed) : nlohmann::json()},
          {"replay", core::oracle_command(file, o.mutant)}};
}

void print_finding(const OracleOptions& o, const Input& in, const std::string& what, const std::string& body) {
  if (in.from_seed) {
    std::ofstream f(program_path(o, in), std::ios::binary);
    f.write(in.bytes.data(), static_cast<std::streamsize>(in.bytes.size()));
    if (!f) std::fprintf(stderr, "wsstress: could not write %s\n", program_path(o, in).c_str());
  }
  if (g_running.t != nullptr) g_running.t->findings.push_back(finding_json(o, in, what));
  std::fputs(finding_text(o, in, what, body).c_str(), text_out());
  std::fflush(text_out());
}

// A crash of the port (a mutant's std::terminate, a fault) ends the process:
// its finding is made before the port runs and written from the signal
// handler with async-signal-safe calls only, then exit 1 (--json is then
// rendered there, under an alarm, as `run` renders a crash's report).
struct CrashFinding {
  std::string text, path, bytes;  // path: a seed's program file to write ("" none)
  int out = 1;                    // the text report's descriptor
  nlohmann::json finding;
};
CrashFinding g_crash;

void on_port_crash(int sig) {
  if (!g_crash.path.empty()) {
    const int fd = open(g_crash.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      (void)!write(fd, g_crash.bytes.data(), g_crash.bytes.size());
      close(fd);
    }
  }
  const char* name = sig == SIGABRT ? "SIGABRT" : sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : "a signal";
  static const char kKilled[] = "  killed by ", kVerdict[] = "\nverdict: crash\n";
  (void)!write(g_crash.out, g_crash.text.data(), g_crash.text.size());
  (void)!write(g_crash.out, kKilled, sizeof kKilled - 1);
  (void)!write(g_crash.out, name, std::strlen(name));
  (void)!write(g_crash.out, kVerdict, sizeof kVerdict - 1);
  int code = kFailed;
  if (g_running.o != nullptr && !g_running.o->json_path.empty()) {
    // Rendered here, as `run` renders a crash's report from its handler; an
    // alarm ends a rendering that deadlocks (a crash inside malloc).
    alarm(10);
    ++g_running.t->differ;
    g_running.t->findings.push_back(g_crash.finding);
    code = write_json("crash", kFailed);
  }
  _exit(code);
}

void arm_crash_finding(const OracleOptions& o, const Input& in, const oracle::SideRun& rayon) {
  g_crash.text = finding_text(o, in, "the port crashed", "  rayon-core log:\n" + indent(oracle::log_text(rayon.facts)));
  g_crash.path = in.from_seed ? program_path(o, in) : "";
  g_crash.bytes = in.bytes;
  g_crash.out = fileno(text_out());
  if (!o.json_path.empty()) g_crash.finding = finding_json(o, in, "the port crashed");
  static const bool installed = [] {
    struct sigaction sa {};
    sa.sa_handler = on_port_crash;
    sa.sa_flags = SA_RESETHAND;
    for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE}) sigaction(sig, &sa, nullptr);
    return true;
  }();
  (void)installed;
}

std::string logs_body(const core::ProgramLog::Facts& port, const core::ProgramLog::Facts& rayon) {
  std::string body = "  differences (canonical fact: port / rayon-core):\n";
  for (const auto& d : oracle::compare_logs(port, rayon)) {
    body += "    " + d.fact + ": " + std::to_string(d.port) + " / " + std::to_string(d.rayon) + "\n";
  }
  return body + "  port log (canonical):\n" + indent(oracle::log_text(port)) + "  rayon-core log (canonical):\n" +
         indent(oracle::log_text(rayon));
}

// Compares one program; returns false to stop (a finding without --keep-going).
bool compare_one(const OracleOptions& o, oracle::RayonChild& child, const Input& in, Tally& t) {
  ++t.programs;
  const std::string hook = oracle::rayon_hook(o.test_fault);
  const oracle::SideRun rayon = o.child_per_program
                                    ? oracle::run_rayon(child.runner(), in.bytes, o.hang_timeout_s, hook)
                                    : child.run(in.bytes, o.hang_timeout_s);
  if (core::StopSignals::requested() != 0 && rayon.status != oracle::SideStatus::Ok) {
    // The signal reached rayon-core's runner too (a terminal's ^C goes to the
    // process group): this program did not finish, and is not a finding.
    --t.programs;
    return false;
  }
  if (rayon.status == oracle::SideStatus::Unavailable) {
    std::fprintf(stderr, "wsstress: error: %s\n", rayon.detail.c_str());
    std::exit(kInternal);
  }
  t.rayon_s += rayon.seconds;
  if (rayon.status == oracle::SideStatus::Hang || rayon.status == oracle::SideStatus::Crash) {
    const bool hang = rayon.status == oracle::SideStatus::Hang;
    ++(hang ? t.hangs : t.differ);
    print_finding(o, in, hang ? "rayon-core hangs" : "rayon-core's run crashed", "  " + rayon.detail + "\n");
    return o.keep_going;
  }
  core::ByteSource src(reinterpret_cast<const std::uint8_t*>(in.bytes.data()), in.bytes.size());
  const core::Program prog = core::Program::decode(src);
  auto on_hang = [&](const std::string& dump) {
    print_finding(o, in, "the port hangs",
                  "  rayon-core log:\n" + indent(oracle::log_text(rayon.facts)) + "  port state:\n" + indent(dump));
    ++t.hangs;
    std::fputs("verdict: hang\n", text_out());
    const int code = write_json("hang", kHang);
    std::fflush(nullptr);
    std::_Exit(code);  // the port's threads are stuck
  };
  arm_crash_finding(o, in, rayon);
  oracle::PortRun port = oracle::run_port(in.bytes, o.hang_timeout_s, on_hang, o.test_fault == "port-hang", o.mutant,
                                          oracle::wrong_port(o.test_fault));
  t.port_s += port.run.seconds;
  if (o.test_fault == "port-wrong-log") {
    // The checker checked: a leaf that ran once more than it did.
    for (auto& [fact, n] : port.run.facts) {
      if (fact.rfind("ran #", 0) == 0) {
        ++n;
        break;
      }
    }
  }
  const auto port_facts = oracle::canonical(prog, port.run.facts, true);
  const auto rayon_facts = oracle::canonical(prog, rayon.facts, false);
  const bool same = oracle::compare_logs(port_facts, rayon_facts).empty();
  if (same && port.sequential.empty()) {
    ++t.agree;
    return true;
  }
  ++t.differ;
  std::string body =
      port.sequential.empty() ? "" : "  the port disagrees with the sequential interpreter: " + port.sequential + "\n";
  const std::string port_name = o.mutant == "none" ? "the port" : "the port (mutant " + o.mutant + ")";
  print_finding(o, in,
                port_name + (same ? " disagrees with the sequential interpreter" : " and rayon-core 1.10.1 differ"),
                body + logs_body(port_facts, rayon_facts));
  return o.keep_going;
}

// The files of a corpus folder, sorted (a folder's order is the file system's).
Result<std::vector<std::string>> corpus_files(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return fail("--corpus: " + shown(dir) + " is not a folder");
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.is_regular_file()) files.push_back(e.path().string());
  }
  if (ec) return fail("--corpus: cannot read " + shown(dir) + ": " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

// The files first, then the seeds' programs, made one at a time.
struct Plan {
  std::vector<Input> files;
  bool seeds = false;
  core::SeedRange range;
  core::Shard shard;
};

int run_oracle(const OracleOptions& o, const Plan& plan) {
  const std::string runner = oracle::rayon_runner();
  oracle::RayonChild child(runner, oracle::rayon_hook(o.test_fault));
  Tally t;
  g_running = {&o, &t, runner};
  const core::StopSignals stop;  // a signal ends the run after the program in progress
  // Whether to start another program: not after a finding (without
  // --keep-going), a stop signal or the time budget.
  bool go = true;
  const auto more = [&] {
    if (!go || (t.stopped_by_signal = core::StopSignals::requested()) != 0) return false;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t.start).count();
    t.budget_exhausted = o.max_seconds > 0 && elapsed >= o.max_seconds;
    return !t.budget_exhausted;
  };
  for (std::size_t i = 0; i < plan.files.size() && more(); ++i) {
    Input in = plan.files[i];
    go = compare_one(o, child, in, t);
  }
  for (std::uint64_t s = plan.range.from; plan.seeds && more(); ++s) {
    if ((s - plan.range.from) % plan.shard.count == plan.shard.index) {
      Input in{oracle::seed_program_bytes(s), "", s, true};
      go = compare_one(o, child, in, t);
    }
    if (s == plan.range.to) break;
  }
  if (t.stopped_by_signal == 0) t.stopped_by_signal = core::StopSignals::requested();
  const std::string stopped = t.stopped_by_signal != 0 ? ", stopped by " + core::signal_name(t.stopped_by_signal)
                              : t.budget_exhausted     ? std::string(", stopped by --max-seconds")
                                                       : std::string();
  if (!o.quiet) {
    std::fprintf(text_out(), "oracle: %llu programs: %llu agree, %llu differ, %llu hang%s (rayon-core 1.10.1: %s)\n",
                 static_cast<unsigned long long>(t.programs), static_cast<unsigned long long>(t.agree),
                 static_cast<unsigned long long>(t.differ), static_cast<unsigned long long>(t.hangs), stopped.c_str(),
                 runner.c_str());
    auto rate = [&](double s) { return s > 0 ? static_cast<double>(t.programs) / s : 0.0; };
    std::fprintf(
        text_out(), "cost per program: port %.2f ms (%.0f/s, in this process), rayon-core %.2f ms (%.0f/s, %s)\n",
        t.programs ? 1e3 * t.port_s / static_cast<double>(t.programs) : 0.0, rate(t.port_s),
        t.programs ? 1e3 * t.rayon_s / static_cast<double>(t.programs) : 0.0, rate(t.rayon_s),
        o.child_per_program ? "a child process each"
                            : ("one child kept alive, " + std::to_string(child.starts()) + " started").c_str());
  }
  const SweepVerdict v = oracle_verdict(t);
  std::fprintf(text_out(), "verdict: %s\n", v.word);
  std::fflush(text_out());
  return write_json(v.word, v.code);
}

// --out: a folder that exists and takes a program file ("" none).
std::string out_dir_refusal(const std::string& dir) {
  if (dir.empty()) return "an empty path (give a folder)";
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return shown(dir) + " does not exist (give an existing folder)";
  if (!std::filesystem::is_directory(dir, ec)) return shown(dir) + " is not a folder";
  return output_path_refusal(dir + "/wsstress-oracle-seed-0.program");
}

void add_options(CLI::App* cmd, OracleOptions& o) {
  cmd->add_option("--input", o.inputs, "a program file (what `run --scenario program --input` takes); repeatable");
  cmd->add_option("--corpus", o.corpora,
                  "every file of this folder is a program (e.g. fuzz/corpus/program); repeatable");
  o.seeds.add_to(cmd);
  add_table_option(cmd, "--hang-timeout", core::kOracleCommand, o.hang_timeout_s)
      ->description("seconds either side may take on one program before it is a hang");
  one_of(cmd->add_option("--mutant", o.mutant,
                         "run the port with this catalog mutant (`wsstress mutants list`); "
                         "one that crashes the pool ends the run"),
         mutant_names());
  o.out_opt = completes_files(cmd->add_option(
      "--out", o.out_dir, "folder for the program file of a generated program with a finding (it must exist)"));
  add_max_seconds(cmd, o.max_seconds, "stop after this long, once the program in progress ends (0: no limit)");
  add_json(cmd, o.json_path, "write the report as JSON (schema wsstress.oracle/1)");
  cmd->add_flag("--keep-going", o.keep_going,
                "compare every program, not stop at the first finding (a hang of the "
                "port still ends the run)");
  cmd->add_flag("--child-per-program", o.child_per_program,
                "start rayon-core's runner for each program (the cost it saves) instead of keeping one alive");
  add_quiet(cmd, o.quiet, "the findings and the verdict line only");
  std::vector<std::string> faults = oracle::rayon_test_faults();
  faults.insert(faults.end(), oracle::wrong_port_test_faults().begin(), oracle::wrong_port_test_faults().end());
  faults.insert(faults.end(), {"port-hang", "port-wrong-log"});
  cmd->add_option("--test-fault", o.test_fault, "test hook")->group("")->check(CLI::IsMember(faults));
  cmd->footer(
      "Exit codes: 0 all agree, 1 a difference (or a crash), 2 usage error, 3 no rayon-core runner, 4 a hang, 5 no "
      "program; 128+N stopped by signal N (130 SIGINT, 143 SIGTERM) after the program in progress, nothing found.\n"
      "Examples:\n"
      "  wsstress oracle --corpus fuzz/corpus/program          # the fuzz corpus on both\n"
      "  wsstress oracle --seeds 0..999 --keep-going           # 1000 generated programs\n"
      "  wsstress oracle --seeds 0..99 --mutant cross_is_cold    # a catalog mutant on the port side\n"
      "  wsstress oracle --input wsstress-oracle-seed-7.program  # replay one finding");
}

}  // namespace

Subcommand add_oracle(CLI::App& parent) {
  auto o = std::make_shared<OracleOptions>();
  CLI::App* cmd = parent.add_subcommand(
      "oracle",
      "run programs on the port and on rayon-core 1.10.1 and compare what each did; exit 0 agree, 1 differ, 4 hang");
  add_options(cmd, *o);
  return {cmd, [o] {
            Plan plan;
            for (const std::string& path : o->inputs) {
              std::string scenario = "program", bytes;
              if (auto ok = read_input(path, scenario, true, bytes); !ok) return usage_error(ok.error());
              plan.files.push_back({bytes, path});
            }
            for (const std::string& dir : o->corpora) {
              auto files = corpus_files(dir);
              if (!files) return usage_error(files.error());
              for (const std::string& f : *files) {
                std::string scenario = "program", bytes;
                if (auto ok = read_input(f, scenario, true, bytes); !ok) return usage_error(ok.error());
                plan.files.push_back({bytes, f});
              }
            }
            plan.seeds = o->seeds.seed_opt->count() + o->seeds.seeds_opt->count() > 0;
            if (auto ok = o->seeds.resolve(plan.range, plan.shard); !ok) return usage_error(ok.error());
            if (o->inputs.empty() && o->corpora.empty() && !plan.seeds) {
              return usage_error("oracle: say which programs: --input FILE, --corpus DIR or --seeds A..B");
            }
            // Refused now, not when a finding's program file cannot be written.
            if (o->out_opt->count() > 0 || plan.seeds) {
              if (const std::string why = out_dir_refusal(o->out_dir); !why.empty())
                return usage_error("--out: " + why);
            }
            if (auto ok = claim_stdout({{"--json", &o->json_path}}); !ok) return usage_error(ok.error());
            return run_oracle(*o, plan);
          }};
}

}  // namespace wsstress::cli
