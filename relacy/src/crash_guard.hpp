// SPDX-License-Identifier: MIT OR Apache-2.0
// A crash inside a simulated thread is that model's failure, as the pool's
// own abort already is (RelacyPlatform::abort_pool): while a
// search runs, std::terminate (an exception leaving a noexcept frame) and
// SIGSEGV/SIGBUS raised in a simulated thread end the execution through
// Relacy's fail_test, which jumps to Relacy's main fiber and never returns;
// Relacy then runs that execution again with its history on and reports it
// like a failed assertion. The result says `crash: ...`, so the catalog's
// classifier calls it a crash. A crash outside a simulated thread (Relacy's own
// scheduler, the harness) still kills the search process: the tool's fault,
// which the command reports as an error (exit 3).
#pragma once

#include <signal.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "wsstress/relacy/platform.hpp"

namespace wsstress::relacy {

class CrashGuard {
 public:
  CrashGuard() {
    desc()[0] = '\0';
    previous_terminate_ = std::set_terminate(&on_terminate);
    struct sigaction sa {};
    sa.sa_handler = &on_signal;
    // fail_test leaves the handler by a jump, not a return: without
    // SA_NODEFER the signal would stay blocked for the history's rerun.
    sa.sa_flags = SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &previous_[0]);
    sigaction(SIGBUS, &sa, &previous_[1]);
  }
  ~CrashGuard() {
    std::set_terminate(previous_terminate_);
    sigaction(SIGSEGV, &previous_[0], nullptr);
    sigaction(SIGBUS, &previous_[1], nullptr);
  }
  CrashGuard(const CrashGuard&) = delete;
  CrashGuard& operator=(const CrashGuard&) = delete;

  // What the last crash was ("" if none): the search's result replaces
  // Relacy's "USER ASSERT FAILED" with it.
  static const char* crash() { return desc(); }

 private:
  static char* desc() {
    static char text[400];
    return text;
  }
  static bool in_model_thread() { return rl::is_ctx() && rl::ctx().threadx_ != nullptr; }

  [[noreturn]] static void fail(const char* why) {
    rl::ctx().fail_test(why, rl::test_result_user_assert_failed, RL_INFO);
    std::abort();  // unreachable: the failed execution is not resumed
  }

  static void on_terminate() {
    if (!in_model_thread()) std::abort();
    std::snprintf(desc(), 400, "crash: std::terminate in a simulated thread");
    if (std::exception_ptr e = std::current_exception()) {
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& x) {
        std::snprintf(desc(), 400, "crash: std::terminate in a simulated thread: %s", x.what());
      } catch (...) {
      }
    }
    fail(desc());
  }

  static void on_signal(int sig) {
    if (!in_model_thread()) {
      signal(sig, SIG_DFL);
      raise(sig);
      return;
    }
    const char* abbrev = sigabbrev_np(sig);
    std::snprintf(desc(), 400, "crash: killed by SIG%s (signal %d) in a simulated thread", abbrev ? abbrev : "?", sig);
    fail(desc());
  }

  std::terminate_handler previous_terminate_ = nullptr;
  struct sigaction previous_[2]{};
};

}  // namespace wsstress::relacy
