// SPDX-License-Identifier: MIT OR Apache-2.0
// Tests of the rayon-core oracle's comparison (stress/oracle.hpp): each
// documented deviation, the classes of interchangeable exceptions, the log's
// text form, a wrong log caught, a seed's program file, one program's log
// from each side, the later kinds' logs (spawn_broadcast, in_place_scope), the
// test-only wrong ports, and rayon-core's runner kept alive across programs
// and restarted after a hang.
#include <gtest/gtest.h>

#include <unistd.h>

#include "wsstress/oracle/oracle.hpp"

namespace {

using namespace wsstress::oracle;

Program decode(const std::string& bytes) {
  ByteSource src(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return Program::decode(src);
}

// A one-pool program: install p0 { scope { throw #2, throw #3 } }. Bytes: 1
// pool, 1 thread, 1 caller, (root pool: one choice, no byte), a scope (kind
// 3) of 2 jobs, each a throw (kind 1).
std::string two_throws() { return std::string("\x00\x00\x00\x03\x01\x01\x01", 7); }

TEST(Oracle, EveryDeviationMakesThePortSpellingRayons) {
  ASSERT_FALSE(deviations().empty());
  const Program prog = decode(two_throws());
  for (const Deviation& d : deviations()) {
    const std::string fact = std::string("caller") + d.port + "2";
    const ProgramLog::Facts port = {{fact, 1}};
    const ProgramLog::Facts rayon = {{std::string("caller") + d.rayon + "2", 1}};
    EXPECT_TRUE(compare_logs(canonical(prog, port, true), canonical(prog, rayon, false)).empty()) << d.name;
    // Without the table's entry the two spellings would differ.
    EXPECT_FALSE(compare_logs(port, rayon).empty()) << d.name;
    EXPECT_NE(std::string(d.why), "") << d.name;
  }
}

TEST(Oracle, ExceptionsAScopeMayRethrowAreOneClass) {
  const Program prog = decode(two_throws());
  ASSERT_EQ(prog.render(), "pools p0:1t; 1 caller\n  #0 install p0\n    #1 scope\n      #2 throw\n      #3 throw\n");
  const auto a = canonical(prog, {{"caller: panic #2", 1}}, false);
  const auto b = canonical(prog, {{"caller: exception #3", 1}}, true);
  EXPECT_TRUE(compare_logs(a, b).empty());
  EXPECT_EQ(a.begin()->first, "caller: panic #2|#3");
}

TEST(Oracle, AWrongLogIsADifference) {
  const Program prog = decode(two_throws());
  const ProgramLog::Facts good = {{"ran #2 (throw)", 1}, {"ran #3 (throw)", 1}, {"caller: panic #2", 1}};
  ProgramLog::Facts wrong = good;
  wrong["ran #3 (throw)"] = 2;
  const auto d = compare_logs(canonical(prog, wrong, true), canonical(prog, good, false));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].fact, "ran #3 (throw)");
  EXPECT_EQ(d[0].port, 2u);
  EXPECT_EQ(d[0].rayon, 1u);
  wrong = good;
  wrong.erase("caller: panic #2");  // a lost exception
  EXPECT_EQ(compare_logs(canonical(prog, wrong, true), canonical(prog, good, false)).size(), 1u);
}

TEST(Oracle, LogTextRoundTripsAndRefusesBadLines) {
  const ProgramLog::Facts facts = {{"broadcast #1: index 0 of 2", 3}, {"caller: value 7", 2}};
  auto back = parse_log(log_text(facts));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, facts);
  auto bad = parse_log("caller: value 7\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("log line 1 is not 'FACT xCOUNT'"), std::string::npos);
}

TEST(Oracle, ASeedsProgramFileDecodesToItsWholeBytes) {
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    const std::string bytes = seed_program_bytes(seed);
    ByteSource src(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    const Program p = Program::decode(src);
    EXPECT_EQ(src.used(), bytes.size()) << seed;
    EXPECT_EQ(seed_program_bytes(seed), bytes) << seed;  // a seed is one program
    EXPECT_FALSE(p.nodes.empty());
  }
}

TEST(Oracle, ThePortsLogOfAProgram) {
  const std::string bytes = two_throws();
  PortRun r = run_port(bytes, 60, [](const std::string& dump) { FAIL() << dump; });
  EXPECT_EQ(r.sequential, "");
  const auto& f = r.run.facts;
  // One thread: the scope's jobs run LIFO, so #3 throws first and is the
  // exception the scope keeps.
  EXPECT_EQ(f.at("caller: exception #3"), 1u);
  EXPECT_EQ(f.at("program: pools 1, 1 callers, 4 nodes"), 1u);
  EXPECT_EQ(f.at("ran #2 (throw)"), 1u);
  EXPECT_EQ(f.at("ran #3 (throw)"), 1u);
  EXPECT_EQ(f.at("scope #1: jobs started in order 1,0"), 1u);  // LIFO on one thread
  EXPECT_EQ(f.at("scope #1: returned after its jobs"), 1u);
  EXPECT_EQ(f.at("pool p0: workers started 1, exited 1"), 1u);
}

// install p0 (3 threads) { spawn_broadcast { throw #2 } } (kind byte 240).
std::string spawn_broadcast_throw() { return std::string("\x00\x02\x00\xf0\x01", 5); }
// install p0 (1 thread) { in_place_scope { leaf 5, leaf 6 } } (kind byte 248).
std::string in_place_scope_one_thread() { return std::string("\x00\x00\x00\xf8\x01\x00\x05\x00\x00\x06\x00", 11); }

TEST(Oracle, ThePortsLogOfASpawnBroadcast) {
  PortRun r = run_port(spawn_broadcast_throw(), 60, [](const std::string& dump) { FAIL() << dump; });
  EXPECT_EQ(r.sequential, "");
  const auto& f = r.run.facts;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(f.at("spawn_broadcast #1: index " + std::to_string(i) + " of 3"), 1u) << i;
  EXPECT_EQ(f.at("spawn_broadcast #1: exception #2"), 3u);
  EXPECT_EQ(f.at("handler p0: exception #2"), 3u);
  EXPECT_EQ(f.at("ran #2 (throw)"), 3u);
  EXPECT_EQ(f.at("caller: value 0"), 1u);
}

TEST(Oracle, ThePortsLogOfAnInPlaceScope) {
  PortRun r = run_port(in_place_scope_one_thread(), 60, [](const std::string& dump) { FAIL() << dump; });
  EXPECT_EQ(r.sequential, "");
  EXPECT_EQ(r.run.facts.at("in_place_scope #1: jobs started in order 1,0"), 1u);  // LIFO on one thread
  EXPECT_EQ(r.run.facts.at("in_place_scope #1: returned after its jobs"), 1u);
  EXPECT_EQ(r.run.facts.at("caller: value 11"), 1u);
}

// Each test-only wrong port (WrongPort) changes the log the comparison
// reads, on a program that shows it whatever the timing: the comparison with
// the right port's log (and so with rayon-core's, which agrees) finds it.
TEST(Oracle, WrongPortsChangeTheLog) {
  const auto no_hang = [](const std::string& dump) { FAIL() << dump; };
  // install p0 (1 thread) { scope_fifo { leaf 5, leaf 6 } }: FIFO, 0 then 1.
  const std::string fifo("\x00\x00\x00\x04\x01\x00\x05\x00\x00\x06\x00", 11);
  const PortRun right = run_port(fifo, 60, no_hang);
  const PortRun lifo = run_port(fifo, 60, no_hang, false, "none", WrongPort::FifoAsLifo);
  EXPECT_EQ(right.run.facts.at("scope_fifo #1: jobs started in order 0,1"), 1u);
  EXPECT_EQ(lifo.run.facts.at("scope_fifo #1: jobs started in order 1,0"), 1u);
  EXPECT_EQ(lifo.sequential, "");  // the values are right: only the order tells
  const Program fp = decode(fifo);
  EXPECT_FALSE(compare_logs(canonical(fp, lifo.run.facts, true), canonical(fp, right.run.facts, true)).empty());
  // install p0 (3 threads) { broadcast { leaf 7 } }: indices 0, 1, 2.
  const std::string bcast("\x00\x02\x00\x06\x00\x07\x00", 7);
  const PortRun all = run_port(bcast, 60, no_hang);
  const PortRun skips = run_port(bcast, 60, no_hang, false, "none", WrongPort::BroadcastSkipsOne);
  EXPECT_EQ(all.run.facts.at("broadcast #1: index 2 of 3"), 1u);
  EXPECT_EQ(skips.run.facts.count("broadcast #1: index 2 of 3"), 0u);
  EXPECT_EQ(skips.run.facts.at("ran #2 (leaf)"), 2u);
  EXPECT_NE(skips.sequential, "");  // the sum is 14, not 21
  EXPECT_EQ(wrong_port("port-fifo-as-lifo"), WrongPort::FifoAsLifo);
  EXPECT_EQ(wrong_port("rayon-fifo-as-lifo"), WrongPort::None);
  for (const std::string& f : wrong_port_test_faults()) EXPECT_NE(wrong_port(f), WrongPort::None) << f;
}

TEST(Oracle, TestFaultsNameRunnerHooks) {
  for (const std::string& f : rayon_test_faults()) EXPECT_EQ(rayon_hook(f).rfind("--", 0), 0u) << f;
  EXPECT_EQ(rayon_hook("port-hang"), "");
}

#ifdef WSSTRESS_HAVE_RAYON_ORACLE  // every build with tests has it (stress/CMakeLists.txt)
// One child for several programs gives each the log a child of its own
// gives; a hang kills it and the next program starts another.
TEST(Oracle, RayonChildKeptAliveAgreesWithAChildPerProgram) {
  const std::string runner = rayon_runner();
  RayonChild child(runner);
  for (const std::string& bytes : {two_throws(), spawn_broadcast_throw(), in_place_scope_one_thread(), two_throws()}) {
    const SideRun kept = child.run(bytes, 60);
    const SideRun fresh = run_rayon(runner, bytes, 60);
    ASSERT_EQ(kept.status, SideStatus::Ok) << kept.detail;
    ASSERT_EQ(fresh.status, SideStatus::Ok) << fresh.detail;
    const Program prog = decode(bytes);
    EXPECT_TRUE(compare_logs(canonical(prog, kept.facts, false), canonical(prog, fresh.facts, false)).empty())
        << log_text(kept.facts) << "---\n"
        << log_text(fresh.facts);
  }
  EXPECT_EQ(child.starts(), 1u);
  RayonChild hanging(runner, rayon_hook("rayon-hang"));
  EXPECT_EQ(hanging.run(two_throws(), 0.5).status, SideStatus::Hang);
  EXPECT_EQ(hanging.run(two_throws(), 0.5).status, SideStatus::Hang);
  EXPECT_EQ(hanging.starts(), 2u);
  RayonChild missing("/nonexistent/runner");
  EXPECT_EQ(missing.run(two_throws(), 1).status, SideStatus::Unavailable);
}

TEST(Oracle, RayonCoresLogsOfTheLaterKindsAgree) {
  const std::string runner = rayon_runner();
  RayonChild child(runner);
  for (const std::string& bytes : {spawn_broadcast_throw(), in_place_scope_one_thread()}) {
    const SideRun rayon = child.run(bytes, 60);
    ASSERT_EQ(rayon.status, SideStatus::Ok) << rayon.detail;
    const PortRun port = run_port(bytes, 60, [](const std::string& dump) { FAIL() << dump; });
    const Program prog = decode(bytes);
    EXPECT_TRUE(compare_logs(canonical(prog, port.run.facts, true), canonical(prog, rayon.facts, false)).empty())
        << "port:\n"
        << log_text(port.run.facts) << "rayon-core:\n"
        << log_text(rayon.facts);
  }
}

TEST(Oracle, RayonCoresLogOfTheSameProgramAgrees) {
  const std::string runner = rayon_runner();
  ASSERT_EQ(access(runner.c_str(), X_OK), 0) << "no rayon-core runner at " << runner;
  const std::string bytes = two_throws();
  const SideRun rayon = run_rayon(runner, bytes, 60);
  ASSERT_EQ(rayon.status, SideStatus::Ok) << rayon.detail;
  const PortRun port = run_port(bytes, 60, [](const std::string& dump) { FAIL() << dump; });
  const Program prog = decode(bytes);
  EXPECT_TRUE(compare_logs(canonical(prog, port.run.facts, true), canonical(prog, rayon.facts, false)).empty())
      << "port:\n"
      << log_text(port.run.facts) << "rayon-core:\n"
      << log_text(rayon.facts);
}
#endif

}  // namespace
