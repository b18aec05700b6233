// Running a fuzz target as a child process. See fuzzer.hpp.
#include "fuzzer.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <regex>

#include "exit_codes.hpp"
#include "wsstress/companion.hpp"
#include "wsstress/stress/run_flags.hpp"
#include "wsstress/stress/sweep.hpp"

#ifndef WSSTRESS_SOURCE_DIR
#define WSSTRESS_SOURCE_DIR "."
#endif

namespace wsstress::cli {

void FuzzRun::read_line(const std::string& line) {
  static const std::regex count_re(R"(^#(\d+)\s)"), cov_re(R"(cov: (\d+))"), eps_re(R"(exec/s: (\d+))"),
      stat_re(R"(stat::number_of_executed_units: (\d+))"), unit_re(R"(Test unit written to (\S+))");
  std::smatch m;
  if (std::regex_search(line, m, count_re)) execs = std::max<std::uint64_t>(execs, std::stoull(m[1]));
  if (std::regex_search(line, m, cov_re)) cov = std::stoull(m[1]);
  if (std::regex_search(line, m, eps_re)) exec_per_s = std::stoull(m[1]);
  if (std::regex_search(line, m, stat_re)) execs = std::max<std::uint64_t>(execs, std::stoull(m[1]));
  if (std::regex_search(line, m, unit_re) && crash.empty()) {
    crash = m[1];
    finding_execs = execs;
  }
  if (line.find("standalone driver") != std::string::npos) {
    engine = "standalone driver (random inputs, no coverage guidance)";
    standalone = true;
  }
  if (line.rfind("== wsstress", 0) == 0 && verdict_lines.size() < 4) verdict_lines.push_back(line);
  tail.push_back(line);
  if (tail.size() > 80) tail.pop_front();
}

bool is_dir(const std::string& p) {
  struct stat st{};
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_exec(const std::string& p) { return access(p.c_str(), X_OK) == 0 && !is_dir(p); }

namespace {
std::string dir_of(const std::string& self) {
  const auto slash = self.rfind('/');
  return slash == std::string::npos ? "." : self.substr(0, slash);
}
}  // namespace

// The build tree's fuzz/ beside cli/, else the installed layout's.
std::string default_fuzz_bin(const std::string& self) {
  const std::string dir = dir_of(self);
  if (is_dir(dir + "/../fuzz")) return dir + "/../fuzz";
  return dir + "/../" + kInstalledLibexecDir + "/fuzz";
}

// Where the seed corpora and dictionaries are: the installed layout's data
// folder when the tool runs installed, else the source tree it was built from.
std::string fuzz_data_root(const std::string& self) {
  const std::string installed = dir_of(self) + "/../" + kInstalledDataDir;
  return is_dir(installed + "/fuzz") ? installed : WSSTRESS_SOURCE_DIR;
}

unsigned target_taker(const std::string& target) {
  return target == "program" ? stress::kProgramFuzzer : stress::kScheduleFuzzer;
}

std::vector<std::string> fuzzer_args(const FuzzOptions& o, const std::string& bin, const std::string& corpus) {
  const std::string src = fuzz_data_root(o.self);
  std::vector<std::string> args = {bin, corpus};
  const std::string seed_corpus = src + "/fuzz/corpus/" + o.target;
  if (is_dir(seed_corpus)) args.push_back(seed_corpus);
  char num[64];
  std::snprintf(num, sizeof num, "%g", o.time_s);
  args.push_back(std::string("-max_total_time=") + num);
  args.push_back("-print_final_stats=1");
  args.push_back("-artifact_prefix=" + o.out_dir + "/");
  args.push_back("-timeout=60");
  args.push_back(o.target == "program" ? "-max_len=256" : "-max_len=4096");
  if (const std::string dict = src + "/fuzz/" + o.target + ".dict"; access(dict.c_str(), R_OK) == 0) {
    args.push_back("-dict=" + dict);
  }
  if (o.runs > 0) args.push_back("-runs=" + std::to_string(o.runs));
  if (o.seed > 0) args.push_back("-seed=" + std::to_string(o.seed));
  if (o.jobs > 1) args.push_back("-fork=" + std::to_string(o.jobs));
  // The target's own options, from the flag table, after the flag that makes
  // libFuzzer (and the standalone driver) leave the rest to the target; its
  // fork mode passes them on to its children.
  stress::RunSpec spec;
  spec.mutant = o.mutant;
  spec.scenario = o.scenario;
  spec.hang_timeout_s = o.hang_timeout_s;
  args.push_back("-ignore_remaining_args=1");
  for (std::string& a : stress::run_arguments(spec, target_taker(o.target))) args.push_back(std::move(a));
  return args;
}

pid_t start_fuzzer(const FuzzOptions& o, const std::vector<std::string>& args, int& fd) {
  int pipefd[2];
  if (pipe(pipefd) != 0) return -1;
  const pid_t pid = fork();
  if (pid != 0) {
    if (pid > 0) setpgid(pid, pid);  // as the child does: whichever runs first, the group exists before a kill
    close(pipefd[1]);
    fd = pipefd[0];
    if (pid < 0) close(pipefd[0]);
    return pid;
  }
  setpgid(0, 0);  // so the backstop can stop libFuzzer's fork-mode children too
  dup2(pipefd[1], 2);
  const int devnull = open("/dev/null", O_WRONLY);
  if (devnull >= 0) dup2(devnull, 1);
  close(pipefd[0]);
  close(pipefd[1]);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv(args[0].c_str(), argv.data());
  std::fprintf(stderr, "wsstress: error: cannot run %s: %s\n", args[0].c_str(), std::strerror(errno));
  _exit(kInternal);
}


FuzzRun watch_fuzzer(const FuzzOptions& o, pid_t pid, int fd) {
  FuzzRun run;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const bool tty = !o.quiet && isatty(2);
  double limit = o.time_s + 120;  // libFuzzer stops itself at -max_total_time; this is the backstop
  double last_draw = -1;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 200) > 0) {
      char buf[4096];
      const ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      run.partial.append(buf, static_cast<std::size_t>(n));
      for (std::size_t nl; (nl = run.partial.find('\n')) != std::string::npos;) {
        const std::string line = run.partial.substr(0, nl);
        run.partial.erase(0, nl + 1);
        run.read_line(line);
      }
    }
    if (tty && elapsed() - last_draw >= 0.5) {
      last_draw = elapsed();
      std::fprintf(stderr, "\rfuzz %s_fuzzer: %.0f/%g s, %llu execs, %llu exec/s, cov %llu   ", o.target.c_str(),
                   elapsed(), o.time_s, static_cast<unsigned long long>(run.execs),
                   static_cast<unsigned long long>(run.exec_per_s), static_cast<unsigned long long>(run.cov));
    }
    if (const int sig = stress::StopSignals::requested(); sig != 0 && run.stopped_by_signal == 0) {
      kill(-pid, sig);  // its own process group: a terminal's signal did not reach it
      run.stopped_by_signal = sig;
      limit = std::min(limit, elapsed() + 10);
    }
    if (elapsed() > limit) {
      kill(-pid, SIGKILL);
      run.killed = run.stopped_by_signal == 0;
      break;
    }
  }
  close(fd);
  waitpid(pid, &run.status, 0);
  run.secs = elapsed();
  if (tty) std::fprintf(stderr, "\n");
  if (run.finding_execs == 0) run.finding_execs = run.execs;
  return run;
}

}  // namespace wsstress::cli
