// SPDX-License-Identifier: MIT OR Apache-2.0
// The port's side of the rayon-core oracle (oracle.hpp): one program run by
// the `program` scenario's interpreter with a log, in this process, under a
// watchdog thread (or a test-only wrong port of it: WrongPort); on the
// production pool or on a catalog mutant's (the
// mutants that share a static part share one instantiation, as in
// runners.cpp, here over StdPlatform).
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "wsstress/core/scenario.hpp"
#include "wsstress/core/scenarios/programs.hpp"
#include "wsstress/oracle/oracle.hpp"
#include "wsstress/pool/mutant_list.hpp"
#include "wsstress/pool/platform/std.hpp"

namespace wsstress::oracle {

namespace {

using OnHang = std::function<void(const std::string&)>;

template <class M>
PortRun run_port_as(const std::string& bytes, double timeout_s, const OnHang& on_hang, bool hang, WrongPort wrong) {
  using P = pool::StdPlatform;
  PortRun result;
  const auto t0 = std::chrono::steady_clock::now();
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> g(m);
    if (!cv.wait_for(g, std::chrono::duration<double>(timeout_s), [&] { return done; })) {
      on_hang("the port's run did not end within " + seconds_text(timeout_s) + "\n" + dump_live_state());
    }
  });
  while (hang) std::this_thread::sleep_for(std::chrono::seconds(1));
  ByteSource src(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  const Program prog = Program::decode(src);
  RunSpec spec;
  spec.scenario = "program";
  spec.input = bytes;
  Ctx<P, M> c(spec, 0);
  ProgramLog log(wrong);
  ProgramScenarios<P, M>::observe(c, prog, log);
  {
    std::lock_guard<std::mutex> g(m);
    done = true;
  }
  cv.notify_one();
  watchdog.join();
  result.run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  result.run.facts = log.facts();
  if (const Verdict v = c.verdict(); v.kind != VerdictKind::Pass) result.sequential = v.message;
  return result;
}

using PortFn = PortRun (*)(const std::string&, double, const OnHang&, bool, WrongPort);

template <class T>
PortRun run_mutant(const std::string& bytes, double timeout_s, const OnHang& on_hang, bool hang, WrongPort wrong) {
  using M = pool::mutants::RuntimeMutants<pool::mutants::StaticPartOf<T>>;
  M::template select<T>();
  return run_port_as<M>(bytes, timeout_s, on_hang, hang, wrong);
}

const std::map<std::string, PortFn>& mutant_runners() {
#define WSSTRESS_ENTRY(Type, name, ...) {#name, &run_mutant<pool::mutants::Type>},
  static const std::map<std::string, PortFn> runners = {WSSTRESS_POLICIES(WSSTRESS_ENTRY)};
#undef WSSTRESS_ENTRY
  return runners;
}

}  // namespace

bool port_has_mutant(const std::string& mutant) { return mutant_runners().count(mutant) == 1; }

PortRun run_port(const std::string& bytes, double timeout_s, const OnHang& on_hang, bool hang,
                 const std::string& mutant, WrongPort wrong) {
  if (mutant == "none") return run_port_as<pool::NoMutants>(bytes, timeout_s, on_hang, hang, wrong);
  return mutant_runners().at(mutant)(bytes, timeout_s, on_hang, hang, wrong);
}

WrongPort wrong_port(const std::string& test_fault) {
  if (test_fault == "port-broadcast-skips-one") return WrongPort::BroadcastSkipsOne;
  if (test_fault == "port-fifo-as-lifo") return WrongPort::FifoAsLifo;
  return WrongPort::None;
}

const std::vector<std::string>& wrong_port_test_faults() {
  static const std::vector<std::string> names = {"port-broadcast-skips-one", "port-fifo-as-lifo"};
  return names;
}

}  // namespace wsstress::oracle
