// Tests of the rayon-core oracle's comparison (stress/oracle.hpp): each
// documented deviation, the classes of interchangeable exceptions, the log's
// text form, a wrong log caught, a seed's program file, and one program's log
// from each side (rayon-core's only where its runner was built).
#include <gtest/gtest.h>

#include <unistd.h>

#include "wsstress/stress/oracle.hpp"

namespace {

using namespace wsstress::stress;

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

#ifdef WSSTRESS_HAVE_RAYON_ORACLE  // every build with tests has it (stress/CMakeLists.txt)
TEST(Oracle, RayonCoresLogOfTheSameProgramAgrees) {
  const std::string runner = rayon_runner();
  ASSERT_EQ(access(runner.c_str(), X_OK), 0) << "no rayon-core runner at " << runner;
  const std::string bytes = two_throws();
  const SideRun rayon = run_rayon(runner, bytes, 60);
  ASSERT_EQ(rayon.status, SideStatus::Ok) << rayon.detail;
  const PortRun port = run_port(bytes, 60, [](const std::string& dump) { FAIL() << dump; });
  const Program prog = decode(bytes);
  EXPECT_TRUE(compare_logs(canonical(prog, port.run.facts, true), canonical(prog, rayon.facts, false)).empty())
      << "port:\n" << log_text(port.run.facts) << "rayon-core:\n" << log_text(rayon.facts);
}
#endif

}  // namespace
