// SPDX-License-Identifier: MIT OR Apache-2.0
// rayon-core 1.10.1's side of the oracle (oracle.hpp): its runner in a child
// process with a time limit, one per program (run_rayon) or one kept alive
// across programs (RayonChild). The port's side is oracle_port.cpp.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "wsstress/core/companion.hpp"
#include "wsstress/oracle/oracle.hpp"

namespace wsstress::oracle {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A child's stdout and stderr, read until both close or the deadline.
struct ChildOutput {
  std::string out, err;
  bool timed_out = false;
};

ChildOutput read_child(int out_fd, int err_fd, std::chrono::steady_clock::time_point deadline) {
  ChildOutput r;
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* bufs[2] = {&r.out, &r.err};
  int open = 2;
  while (open > 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      break;
    }
    const int n = poll(fds, 2, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (n < 0 && errno != EINTR) break;
    for (int i = 0; i < 2 && n > 0; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[4096];
      const ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        bufs[i]->append(buf, static_cast<std::size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        fds[i].fd = -1;
        --open;
      }
    }
  }
  return r;
}

// Starts `args` with the three pipes; the child dies with this process.
// Only async-signal-safe calls after fork (the port's threads may exist).
pid_t start_child(const std::vector<std::string>& args, int in[2], int out[2], int err[2]) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid != 0) return pid;
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);
  dup2(in[0], 0);
  dup2(out[1], 1);
  dup2(err[1], 2);
  execv(argv[0], argv.data());
  static const char kMsg[] = "cannot start the rayon-core runner\n";
  (void)!write(2, kMsg, sizeof kMsg - 1);
  _exit(127);
}

std::string no_runner(const std::string& runner) {
  return "no rayon-core runner at " + runner +
         " (it is built with cargo: install one, e.g. scripts/setup, and rebuild; or set WSSTRESS_RAYON_ORACLE)";
}

// The bytes of `bytes` the decoder reads (a few hundred at most: the rest
// decodes to nothing on either side).
std::size_t used_bytes(const std::string& bytes) {
  ByteSource src(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  (void)Program::decode(src);
  return src.used();
}

// How a runner that ended ends a side's run: its exit status and stderr.
void ended(SideRun& r, int status, const std::string& err) {
  r.status = WIFEXITED(status) && WEXITSTATUS(status) == 127 ? SideStatus::Unavailable : SideStatus::Crash;
  r.detail = (WIFSIGNALED(status) ? "rayon-core's runner died of signal " + std::to_string(WTERMSIG(status))
                                  : "rayon-core's runner exited " + std::to_string(WEXITSTATUS(status))) +
             (err.empty() ? "" : ": " + err);
}

}  // namespace

// The environment's, else beside this program (wsstress in the build tree
// and OSS-Fuzz's $OUT), else where a fuzz target finds it: ../cli/ in the
// build tree, ../ in the installed libexec/wsstress/fuzz/.
std::string rayon_runner() {
  const std::string found = companion_program("wsstress-rayon-oracle", "WSSTRESS_RAYON_ORACLE");
  if (std::getenv("WSSTRESS_RAYON_ORACLE") != nullptr || access(found.c_str(), X_OK) == 0) return found;
  for (const char* up : {"../cli/", "../"}) {
    const std::string there = self_dir() + up + "wsstress-rayon-oracle";
    if (access(there.c_str(), X_OK) == 0) return there;
  }
  return found;
}

std::string rayon_hook(const std::string& test_fault) {
  if (test_fault == "rayon-hang") return "--hang";
  if (test_fault == "rayon-fifo-as-lifo") return "--fifo-as-lifo";
  if (test_fault == "rayon-broadcast-skips-one") return "--broadcast-skips-one";
  return "";
}

const std::vector<std::string>& rayon_test_faults() {
  static const std::vector<std::string> names = {"rayon-hang", "rayon-fifo-as-lifo", "rayon-broadcast-skips-one"};
  return names;
}

SideRun run_rayon(const std::string& runner, const std::string& bytes, double timeout_s, const std::string& hook) {
  SideRun r;
  if (access(runner.c_str(), X_OK) != 0) {
    r.status = SideStatus::Unavailable;
    r.detail = no_runner(runner);
    return r;
  }
  const auto t0 = std::chrono::steady_clock::now();
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    r.status = SideStatus::Unavailable;
    r.detail = std::string("cannot make a pipe: ") + std::strerror(errno);
    return r;
  }
  // The bytes the decoder reads, written before the child starts, so the
  // pipe's buffer holds them and no write can meet a closed pipe.
  (void)!write(in[1], bytes.data(), used_bytes(bytes));
  close(in[1]);
  std::vector<std::string> args = {runner, "-"};
  if (!hook.empty()) args.push_back(hook);
  const pid_t pid = start_child(args, in, out, err);
  close(in[0]);
  close(out[1]);
  close(err[1]);
  if (pid < 0) {
    close(out[0]);
    close(err[0]);
    r.status = SideStatus::Unavailable;
    r.detail = std::string("cannot fork: ") + std::strerror(errno);
    return r;
  }
  const auto deadline =
      t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(timeout_s));
  ChildOutput o = read_child(out[0], err[0], deadline);
  close(out[0]);
  close(err[0]);
  if (o.timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.seconds = seconds_since(t0);
  if (o.timed_out) {
    r.status = SideStatus::Hang;
    r.detail = "rayon-core's run did not end within " + seconds_text(timeout_s) + " (killed)";
    return r;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    ended(r, status, o.err);
    return r;
  }
  auto facts = parse_log(o.out);
  if (!facts) {
    r.status = SideStatus::Crash;
    r.detail = "rayon-core's runner wrote an unreadable log: " + facts.error();
    return r;
  }
  r.facts = std::move(*facts);
  return r;
}

std::string RayonChild::start() {
  if (access(runner_.c_str(), X_OK) != 0) return no_runner(runner_);
  // stdin is a socket, so that a write to a child that died fails (EPIPE,
  // MSG_NOSIGNAL) instead of raising SIGPIPE in this process.
  int in[2], out[2], err[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0 || pipe2(out, O_CLOEXEC) != 0 ||
      pipe2(err, O_CLOEXEC) != 0) {
    return std::string("cannot make a pipe: ") + std::strerror(errno);
  }
  std::vector<std::string> args = {runner_, "--serve"};
  if (!hook_.empty()) args.push_back(hook_);
  const pid_t pid = start_child(args, in, out, err);
  close(in[0]);
  close(out[1]);
  close(err[1]);
  if (pid < 0) {
    for (int fd : {in[1], out[0], err[0]}) close(fd);
    return std::string("cannot fork: ") + std::strerror(errno);
  }
  pid_ = pid;
  in_ = in[1];
  out_ = out[0];
  err_ = err[0];
  ++starts_;
  return "";
}

int RayonChild::stop() {
  if (pid_ < 0) return -1;
  for (int fd : {in_, out_, err_}) close(fd);
  kill(pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = in_ = out_ = err_ = -1;
  return status;
}

SideRun RayonChild::run(const std::string& bytes, double timeout_s) {
  SideRun r;
  const auto t0 = std::chrono::steady_clock::now();
  if (pid_ < 0) {
    if (std::string why = start(); !why.empty()) {
      r.status = SideStatus::Unavailable;
      r.detail = why;
      return r;
    }
  }
  const std::size_t n = used_bytes(bytes);
  std::string msg;
  for (int i = 0; i < 4; ++i) msg.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  msg.append(bytes.data(), n);
  for (std::size_t at = 0; at < msg.size();) {  // a failed write shows as the child's end, read below
    const ssize_t w = send(in_, msg.data() + at, msg.size() - at, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    at += static_cast<std::size_t>(w);
  }
  // The reply: the log, then an empty line.
  const auto deadline =
      t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(timeout_s));
  std::string out, err;
  bool closed = false, timed_out = false;
  std::size_t end = std::string::npos;
  while (end == std::string::npos && !closed) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd fds[2] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}};
    if (poll(fds, 2, static_cast<int>(std::min<long long>(left.count(), 1000))) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].revents == 0) continue;
      char buf[4096];
      const ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        (i == 0 ? out : err).append(buf, static_cast<std::size_t>(got));
      } else if (i == 0 && (got == 0 || errno != EINTR)) {
        closed = true;
      }
    }
    end = out.find("\n\n");
  }
  if (end == std::string::npos) {
    const int status = stop();
    r.seconds = seconds_since(t0);
    if (timed_out) {
      r.status = SideStatus::Hang;
      r.detail = "rayon-core's run did not end within " + seconds_text(timeout_s) + " (killed)";
    } else {
      ended(r, status, err);
    }
    return r;
  }
  r.seconds = seconds_since(t0);
  auto facts = parse_log(out.substr(0, end + 1));
  if (!facts) {
    stop();
    r.status = SideStatus::Crash;
    r.detail = "rayon-core's runner wrote an unreadable log: " + facts.error();
    return r;
  }
  r.facts = std::move(*facts);
  return r;
}

}  // namespace wsstress::oracle
