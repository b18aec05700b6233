// SPDX-License-Identifier: MIT OR Apache-2.0
// The external programs' table (scenarios/external.hpp runs them): the one
// list a scoreboard reads. Per scenario: where its program comes from, the
// verdict it must get (a buggy program fails under at least one engine
// setting within the budget; its fixed twin passes that budget), the kind of
// failure, and a memory model it shows under. Kept apart from the programs
// so that the CLI can ask about a name without the platform templates.
#pragma once

#include <string_view>

namespace wsstress::core {

// What an external program must do, and where its bug shows.
struct ExternalProgram {
  const char* scenario;
  const char* source;  // repository@commit:path
  bool fails;          // the buggy program (true) or its fixed twin (false)
  const char* kind;    // the failure's kind when it fails: "bug" (its own assertion) or "hang" (a deadlock)
  const char* memory;  // a memory model the bug shows under (sc, tso, cpp)
};

// Every external program, once: X(S, scenario, source, fails, kind, memory),
// the source as repository@commit:path (a twin's: where its fix is; each
// read at that commit). S is passed through for the scenario
// list (scenarios.hpp appends these rows to WSSTRESS_SCENARIOS), so this is
// the one place a program is registered; its runner is the member function of
// the same name in ExternalScenarios (external.hpp).
#define WSSTRESS_EXT_SCTBENCH "mc-imperial/sctbench@d59ab26d:benchmarks/chess/"
#define WSSTRESS_EXT_CDSCHECKER "computersforpeace/model-checker-benchmarks@bd72205f:"
#define WSSTRESS_EXT_GOKER "timmyyuan/gobench@2e91eb10:gobench/goker/blocking/"
#define WSSTRESS_EXTERNAL_PROGRAMS(X, S)                                                                            \
  X(S, ext_wsq, WSSTRESS_EXT_SCTBENCH "WorkStealQueue.cpp", true, "bug", "sc")                                      \
  X(S, ext_wsq_fixed, WSSTRESS_EXT_SCTBENCH "WorkStealQueue.h", false, "", "sc")                                    \
  X(S, ext_iwsq, WSSTRESS_EXT_SCTBENCH "InterlockedWorkStealQueue.cpp", true, "bug", "sc")                          \
  X(S, ext_iwsq_fixed, WSSTRESS_EXT_SCTBENCH "WorkStealQueue.h", false, "", "sc")                                   \
  X(S, ext_chase_lev, WSSTRESS_EXT_CDSCHECKER "chase-lev-deque/deque.c", true, "bug", "cpp")                        \
  X(S, ext_chase_lev_fixed, WSSTRESS_EXT_CDSCHECKER "chase-lev-deque-bugfix/deque.c", false, "", "cpp")             \
  X(S, ext_kubernetes10182, WSSTRESS_EXT_GOKER "kubernetes/10182", true, "hang", "sc")                              \
  X(S, ext_kubernetes10182_fixed, "kubernetes/kubernetes@64ad3e17:pkg/kubelet/status_manager.go", false, "", "sc")  \
  X(S, ext_etcd6873, WSSTRESS_EXT_GOKER "etcd/6873", true, "hang", "sc")                                            \
  X(S, ext_etcd6873_fixed, "etcd-io/etcd@7618fdd1:proxy/grpcproxy/watch_broadcasts.go", false, "", "sc")            \
  X(S, ext_moby25384, WSSTRESS_EXT_GOKER "moby/25384", true, "hang", "sc")                                          \
  X(S, ext_moby25384_fixed, "moby/moby@42360d16:plugin/manager.go", false, "", "sc")                                \
  X(S, ext_kubernetes11298, WSSTRESS_EXT_GOKER "kubernetes/11298", true, "hang", "sc")                              \
  X(S, ext_kubernetes11298_fixed, "kubernetes/kubernetes@8a1c20ba:contrib/mesos/pkg/election/master.go", false, "", \
    "sc")

#define WSSTRESS_EXTERNAL_ROW(S, name, source, fails, kind, memory) ExternalProgram{#name, source, fails, kind, memory},
inline constexpr ExternalProgram kExternalPrograms[] = {WSSTRESS_EXTERNAL_PROGRAMS(WSSTRESS_EXTERNAL_ROW, _)};
#undef WSSTRESS_EXTERNAL_ROW

// The external program behind a scenario name, or null for the pool's own.
inline const ExternalProgram* find_external(std::string_view scenario) {
  for (const ExternalProgram& e : kExternalPrograms) {
    if (scenario == e.scenario) return &e;
  }
  return nullptr;
}

}  // namespace wsstress::core
