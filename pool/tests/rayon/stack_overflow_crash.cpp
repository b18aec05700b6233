// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// Port of rayon-core 1.10.1 tests/stack_overflow_crash.rs (no test harness, as
// upstream). Run without arguments, it runs itself twice: with 8 MB worker
// stacks a 32 MB recursion must kill the child with SIGSEGV or SIGABRT (never a
// normal exit); with 48 MB stacks the same recursion must succeed.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "wsstress/pool.hpp"

namespace {

// 1 MB of stack per level; the volatile writes keep the frame from being
// elided, and the buffer's address escaping into an asm statement keeps clang
// from shrinking it to the bytes written (under ASan, the fuzz preset, the
// frame was 96 bytes and the 8 MB stack never overflowed).
__attribute__((noinline)) void force_stack_overflow(unsigned depth) {
  volatile char buffer[1024 * 1024];
  asm volatile("" : : "r"(buffer) : "memory");
  buffer[0] = static_cast<char>(depth);
  buffer[sizeof(buffer) - 1] = static_cast<char>(depth);
  if (depth > 0) force_stack_overflow(depth - 1);
  buffer[1] = buffer[0];
}

void disable_core() {
  rlimit none{0, 0};
  setrlimit(RLIMIT_CORE, &none);
}

// Runs this program with `arg`; returns waitpid's status.
int run_child(const char* self, const char* arg) {
  pid_t pid = fork();
  if (pid == 0) {
    // Under a sanitizer preset, let the overflow's SIGSEGV kill the child as it
    // does in a plain build, instead of the sanitizer turning it into exit(1).
    for (const char* var : {"ASAN_OPTIONS", "TSAN_OPTIONS"}) {
      const char* old = std::getenv(var);
      std::string opts = old ? std::string(old) + ":handle_segv=0" : "handle_segv=0";
      setenv(var, opts.c_str(), 1);
    }
    execl(self, self, arg, static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 1) {
    int failures = 0;
    int status = run_child("/proc/self/exe", "8");
    // status.code() == None: killed, not exited; by SIGSEGV or SIGABRT.
    if (WIFEXITED(status) || !(WTERMSIG(status) == SIGSEGV || WTERMSIG(status) == SIGABRT)) {
      std::fprintf(stderr, "8 MB stacks: expected death by SIGSEGV or SIGABRT, got status %#x\n", status);
      ++failures;
    }
    status = run_child("/proc/self/exe", "48");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "48 MB stacks: expected exit 0, got status %#x\n", status);
      ++failures;
    }
    std::printf("%d passed, %d failed\n", 2 - failures, failures);
    return failures == 0 ? 0 : 1;
  }
  const std::size_t stack_size_in_mb = std::strtoul(argv[1], nullptr, 10);
  wsstress::ThreadPoolBuilder builder;
  builder.stack_size(stack_size_in_mb * 1024 * 1024);
  wsstress::ThreadPool pool(std::move(builder));
  pool.install([] {
    disable_core();
    force_stack_overflow(32);
  });
  return 0;
}
