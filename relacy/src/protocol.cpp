// SPDX-License-Identifier: MIT OR Apache-2.0
// What the client asks the runner (wsstress-relacy) for - a search, as its
// command line - and what the runner writes back: a search's raw result as
// length-prefixed text, and the model list as JSON. Both sides link this file
// (wsstress_relacy_client), so the two cannot drift apart.
#include <cstdlib>
#include <sstream>

#include <nlohmann/json.hpp>

#include "wsstress/relacy/models.hpp"

namespace wsstress::relacy {

namespace {

void put(std::ostream& o, const std::string& text) { o << text.size() << ' ' << text; }

bool get(std::istream& in, std::string& text) {
  std::size_t n = 0;
  if (!(in >> n)) return false;
  in.get();
  text.resize(n);
  return n == 0 || static_cast<bool>(in.read(text.data(), static_cast<std::streamsize>(n)));
}

bool whole(const std::string& text, std::uint64_t& out) {
  char* end = nullptr;
  out = std::strtoull(text.c_str(), &end, 10);
  return !text.empty() && *end == '\0';
}

}  // namespace

std::vector<std::string> RunRequest::to_args() const {
  return {"run",
          model,
          mutant,
          search_name(search.kind),
          std::to_string(search.context_bound),
          std::to_string(search.iterations)};
}

Result<RunRequest> RunRequest::from_args(const std::vector<std::string>& args) {
  if (args.size() != 6 || args[0] != "run") return fail("expected 'list' or 'run' with five arguments");
  RunRequest r{args[1], args[2], {}};
  const std::optional<Search> kind = parse_search(args[3]);
  std::uint64_t bound = 0, executions = 0;
  if (!kind) return fail("unknown search");
  if (!whole(args[4], bound) || !whole(args[5], executions)) return fail("BOUND and EXECUTIONS are whole numbers");
  r.search.kind = *kind;
  r.search.context_bound = static_cast<unsigned>(bound);
  r.search.iterations = executions;
  return r;
}

// "passed executions result-length result output-length output lines
// (line-length line)...".
std::string encode(const RawResult& r) {
  std::ostringstream o;
  o << (r.passed ? 1 : 0) << ' ' << r.executions << ' ';
  put(o, r.relacy_result);
  o << ' ';
  put(o, r.output);
  o << ' ' << r.explanation.size();
  for (const std::string& line : r.explanation) {
    o << ' ';
    put(o, line);
  }
  return o.str();
}

bool decode(const std::string& text, RawResult& r) {
  std::istringstream in(text);
  int passed = 0;
  std::size_t lines = 0;
  if (!(in >> passed >> r.executions) || !get(in, r.relacy_result) || !get(in, r.output) || !(in >> lines)) {
    return false;
  }
  if (lines > text.size()) return false;  // each line takes at least two characters
  r.explanation.assign(lines, std::string());
  for (std::string& line : r.explanation) {
    if (!get(in, line)) return false;
  }
  r.passed = passed != 0;
  return true;
}

std::string encode(const std::vector<ModelInfo>& models) {
  nlohmann::json list = nlohmann::json::array();
  for (const ModelInfo& m : models) {
    nlohmann::json targets = nlohmann::json::array();
    for (const Target& t : m.targets)
      targets.push_back({{"mutant", t.mutant}, {"expect_fail", t.expect_fail}, {"note", t.note}});
    list.push_back({{"name", m.name},
                    {"claim", m.claim},
                    {"config", m.config},
                    {"targets", targets},
                    {"ci",
                     {{"search", search_name(m.ci.kind)},
                      {"bound", m.ci.context_bound},
                      {"executions", m.ci.iterations},
                      {"max_seconds", m.ci.max_seconds},
                      {"max_gib", m.ci.max_gib}}}});
  }
  return list.dump();
}

Result<std::vector<ModelInfo>> decode_models(const std::string& text) {
  try {
    std::vector<ModelInfo> out;
    for (const nlohmann::json& j : nlohmann::json::parse(text)) {
      ModelInfo m;
      m.name = j.at("name").get<std::string>();
      m.claim = j.at("claim").get<std::string>();
      m.config = j.at("config").get<std::string>();
      for (const nlohmann::json& t : j.at("targets")) {
        m.targets.push_back(
            {t.at("mutant").get<std::string>(), t.at("expect_fail").get<bool>(), t.at("note").get<std::string>()});
      }
      const nlohmann::json& ci = j.at("ci");
      const std::optional<Search> kind = parse_search(ci.at("search").get<std::string>());
      if (!kind) return fail("model " + m.name + ": unknown search '" + ci.at("search").get<std::string>() + "'");
      m.ci = {*kind, ci.at("bound").get<unsigned>(), ci.at("executions").get<std::uint64_t>(),
              ci.at("max_seconds").get<double>(), ci.at("max_gib").get<double>()};
      out.push_back(std::move(m));
    }
    return out;
  } catch (const nlohmann::json::exception& e) {
    return fail(std::string("not a model list (") + e.what() + ")");
  }
}

}  // namespace wsstress::relacy
