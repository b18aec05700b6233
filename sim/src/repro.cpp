// SPDX-License-Identifier: MIT OR Apache-2.0
// Reproducer files: a simulated run's program (scenario, mutant, sizes,
// input), its knobs (seed, strategy, memory model) and every scheduling
// decision it made, as `key value` lines. A file ends with its decision count
// and an `end` line carrying a checksum of everything before it, so a file
// cut short, or with lines added or changed, is refused instead of replaying
// something else. (Files from before the count and checksum are still read.)
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <sstream>

#include "wsstress/core/catalog.hpp"
#include "wsstress/core/shown.hpp"
#include "wsstress/sim/engine.hpp"

namespace wsstress::sim {

namespace {

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

std::string hex64(std::uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
  return b;
}

bool to_u64(const std::string& s, std::uint64_t& out, int base = 10) {
  const char* digits = base == 16 ? "0123456789abcdef" : "0123456789";
  if (s.empty() || s.find_first_not_of(digits) != std::string::npos) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc() && end == s.data() + s.size();  // no overflow past 2^64 - 1
}

using Fields = std::map<std::string, std::string>;

// A free-text field on one line: a control character (a newline or carriage
// return in an exception's message) would end the line or be lost to the
// CRLF reading, so it becomes a space (parser_fuzzer found the '\r' case).
std::string one_line(std::string text) {
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return text;
}

// The header line, then `key value` lines up to the `end` line, whose
// checksum must match; nothing may follow it.
Result<Fields> read_fields(const std::string& text) {
  Fields fields;
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line.rfind("wsstress-repro ", 0) != 0) {
    return fail("not a wsstress reproducer (its first line must be 'wsstress-repro 1')");
  }
  if (line != "wsstress-repro 1") {
    return fail("reproducer version " + shown(line.substr(15)) + " is not supported (this wsstress reads version 1)");
  }
  std::size_t consumed = line.size() + 1;
  while (std::getline(in, line)) {
    if (line.rfind("end ", 0) == 0) {
      std::uint64_t sum = 0;
      if (!to_u64(line.substr(4), sum, 16) || sum != fnv1a(text.substr(0, consumed))) {
        return fail("reproducer checksum does not match its contents (edited or damaged?)");
      }
      fields["end"] = line.substr(4);
      const std::size_t after = consumed + line.size() + 1;
      if (after < text.size() && text.find_first_not_of("\n", after) != std::string::npos) {
        return fail("reproducer has text after its end line");
      }
      return fields;
    }
    consumed += line.size() + 1;
    if (line.empty()) continue;
    const auto sp = line.find(' ');
    const std::string key = line.substr(0, sp);
    if (fields.count(key)) {
      return fail("reproducer has the field " + shown(key) + " twice");
    }
    fields[key] = sp == std::string::npos ? "" : line.substr(sp + 1);
  }
  if (fields.count("decisions")) {
    return fail("reproducer has no end line (truncated?)");
  }
  return fields;
}

// The program and the knobs.
Result<void> read_run(Fields& fields, Repro& r) {
  for (const char* k : {"scenario", "mutant", "threads", "pools", "iterations", "seed", "strategy", "memory",
                        "pct-depth", "preemption-bound", "step-budget", "schedule"}) {
    if (!fields.count(k)) {
      return fail("reproducer is missing " + shown(k) + " (truncated?)");
    }
  }
  r.spec.scenario = fields["scenario"];
  const auto& names = core::scenario_names();
  if (std::find(names.begin(), names.end(), r.spec.scenario) == names.end()) {
    return fail("reproducer names an unknown scenario " + shown(r.spec.scenario));
  }
  r.spec.mutant = fields["mutant"];
  if (core::find_mutant(r.spec.mutant) == nullptr) {
    return fail("reproducer names an unknown mutant " + shown(r.spec.mutant));
  }
  const char* bad = nullptr;  // the first field out of its range
  auto num = [&](const char* key, std::uint64_t lo, std::uint64_t hi, std::uint64_t& out) {
    std::uint64_t v = 0;
    if (!to_u64(fields[key], v) || v < lo || v > hi) {
      bad = key;
      return false;
    }
    out = v;
    return true;
  };
  std::uint64_t threads, pools, iterations, depth, bound, budget;
  if (!num("threads", 1, 256, threads) || !num("pools", 1, 8, pools) || !num("iterations", 1, 1000000, iterations) ||
      !num("seed", 0, UINT64_MAX, r.config.seed) || !num("pct-depth", 1, 64, depth) ||
      !num("preemption-bound", 0, 64, bound) || !num("step-budget", 1, UINT64_MAX, budget)) {
    return fail(std::string("reproducer field '") + bad + "' has a bad value " + shown(fields[bad]));
  }
  r.spec.threads = threads;
  r.spec.pools = pools;
  r.spec.iterations = iterations;
  r.config.pct_depth = static_cast<unsigned>(depth);
  r.config.preemption_bound = static_cast<unsigned>(bound);
  r.config.step_budget = budget;
  const std::string& st = fields["strategy"];
  // (fuzz: its schedule holds every decision)
  if (const std::optional<StrategyKind> kind = parse_strategy(st)) {
    r.config.strategy = *kind;
  } else {
    return fail("reproducer names an unknown strategy " + shown(st));
  }
  const std::string& mem = fields["memory"];
  if (const std::optional<MemoryModel> m = parse_memory(mem)) {
    r.config.memory = *m;
  } else {
    return fail("reproducer names an unknown memory model " + shown(mem));
  }
  return {};
}

// The schedule (as many decisions as the file says it has) and the input.
Result<void> read_decisions(Fields& fields, Repro& r) {
  std::istringstream sched(fields["schedule"]);
  std::string tok;
  std::uint64_t v = 0;
  while (sched >> tok) {
    if (!to_u64(tok, v) || v > UINT32_MAX) {
      return fail("reproducer schedule has a bad entry " + shown(tok));
    }
    r.config.forced.push_back(static_cast<std::uint32_t>(v));
  }
  if (r.config.forced.empty() &&
      !(fields.count("decisions") && fields.at("decisions") == "0")) {  // a crash before the first decision has none
    return fail("reproducer schedule is empty (truncated?)");
  }
  if (fields.count("decisions") && (!to_u64(fields["decisions"], v) || v != r.config.forced.size())) {
    return fail("reproducer schedule has " + std::to_string(r.config.forced.size()) + " decisions, its header says " +
                shown(fields["decisions"]) + " (truncated?)");
  }
  if (!fields.count("input")) return {};
  const std::string& hex = fields["input"];
  if (hex.size() % 2 != 0 || hex.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return fail("reproducer input is not an even number of lower-case hex digits");
  }
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    r.spec.input.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return {};
}

}  // namespace

std::string write_repro(const Repro& r) {
  std::ostringstream o;
  o << "wsstress-repro 1\n";
  o << "scenario " << r.spec.scenario << "\n";
  o << "mutant " << r.spec.mutant << "\n";
  o << "threads " << r.spec.threads << "\n";
  o << "pools " << r.spec.pools << "\n";
  o << "iterations " << r.spec.iterations << "\n";
  o << "seed " << r.config.seed << "\n";
  o << "strategy " << strategy_name(r.config.strategy) << "\n";
  o << "memory " << memory_name(r.config.memory) << "\n";
  o << "pct-depth " << r.config.pct_depth << "\n";
  o << "preemption-bound " << r.config.preemption_bound << "\n";
  o << "step-budget " << r.config.step_budget << "\n";
  o << "verdict " << one_line(r.verdict) << "\n";
  o << "message " << one_line(r.message) << "\n";
  o << "trace-hash " << hex64(r.trace_hash) << "\n";
  o << "build " << build_id() << "\n";  // the writer ran it
  if (!r.shrunk_from.empty()) o << "shrunk-from " << one_line(r.shrunk_from) << "\n";
  if (!r.spec.input.empty()) {
    static const char* hex = "0123456789abcdef";
    o << "input ";
    for (unsigned char ch : r.spec.input) o << hex[ch >> 4] << hex[ch & 15];
    o << "\n";
  }
  o << "decisions " << r.config.forced.size() << "\n";
  o << "schedule";
  for (std::uint32_t c : r.config.forced) o << ' ' << c;
  o << "\n";
  const std::string body = o.str();
  return body + "end " + hex64(fnv1a(body)) + "\n";
}

namespace {
// A reproducer that went through a Windows editor or git's autocrlf has CRLF
// line ends; its checksum was taken over LF ends, so it is read as LF.
std::string without_crlf(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
    out += text[i];
  }
  return out;
}
}  // namespace

namespace {
Result<Repro> read_repro_text(const std::string& text) {
  Result<Fields> read = read_fields(text);
  if (!read) return fail(read.error());
  Fields& fields = *read;
  Repro r;
  if (Result<void> run = read_run(fields, r); !run) return fail(run.error());
  if (Result<void> decisions = read_decisions(fields, r); !decisions) return fail(decisions.error());
  r.verdict = fields.count("verdict") ? fields["verdict"] : "";
  r.message = fields.count("message") ? fields["message"] : "";
  r.build = fields.count("build") ? fields["build"] : "";
  r.shrunk_from = fields.count("shrunk-from") ? fields["shrunk-from"] : "";
  if (fields.count("trace-hash") && !to_u64(fields["trace-hash"], r.trace_hash, 16)) {
    return fail("reproducer field 'trace-hash' has a bad value '" + fields["trace-hash"] +
                "' (expected up to 16 lower-case hex digits)");
  }
  return r;
}
}  // namespace

Result<Repro> read_repro(const std::string& raw) {
  // As written first: a file from before the CRLF reading whose message
  // ended in '\r' has that '\r' under its checksum.
  if (auto r = read_repro_text(raw); r || raw.find("\r\n") == std::string::npos) return r;
  return read_repro_text(without_crlf(raw));
}

}  // namespace wsstress::sim
