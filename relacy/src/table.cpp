// The runner's side of the models (wsstress_relacy): the registry the model
// files add their declarations to (WSSTRESS_REGISTER_MODEL, models.hpp), the
// table of (model, mutant) instantiations and the model list built from it,
// and a search run in this process. A model's claim, configuration, CI search
// and entries live in its own file; this one only looks them up.
// wsstress-relacy (runner_main.cpp) serves them to the client (client.cpp),
// which wsstress links instead of the models.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "wsstress/relacy/models.hpp"

namespace wsstress::relacy {

namespace {

// Function-local, so that it exists before the first model file's
// initializer runs, whichever file that is; sorted by rank, so the table
// keeps one order whatever order the linker ran the initializers in.
std::vector<const ModelDecl*>& registry() {
  static std::vector<const ModelDecl*> models;
  return models;
}

[[noreturn]] void duplicate(const char* what, const std::string& value) {
  std::fprintf(stderr, "wsstress-relacy: two models have the %s %s\n", what, value.c_str());
  std::abort();
}

}  // namespace

bool add_model(const ModelDecl& m) {
  auto& models = registry();
  for (const ModelDecl* other : models) {
    if (std::string(other->name) == m.name) duplicate("name", m.name);
    if (other->rank == m.rank) duplicate("rank", std::to_string(m.rank));
  }
  models.push_back(&m);
  std::sort(models.begin(), models.end(), [](const ModelDecl* a, const ModelDecl* b) { return a->rank < b->rank; });
  return true;
}

const std::vector<ModelEntry>& model_table() {
  static const std::vector<ModelEntry> table = [] {
    std::vector<ModelEntry> t;
    for (const ModelDecl* m : registry()) {
      t.push_back({m->name, "none", m->clean, false});
      for (const MutantEntry& e : m->mutants) t.push_back({m->name, e.mutant, e.run, e.expect_fail, e.note});
    }
    return t;
  }();
  return table;
}

const std::vector<ModelInfo>& model_infos() {
  static const std::vector<ModelInfo> list = [] {
    std::vector<ModelInfo> v;
    for (const ModelDecl* m : registry()) {
      ModelInfo& info = v.emplace_back(ModelInfo{m->name, m->claim, m->config, {}, m->ci});
      for (const MutantEntry& e : m->mutants) info.targets.push_back({e.mutant, e.expect_fail, e.note});
    }
    return v;
  }();
  return list;
}

static const ModelEntry* find_entry(const std::string& model, const std::string& mutant) {
  for (const ModelEntry& e : model_table()) {
    if (model == e.model && mutant == e.mutant) return &e;
  }
  return nullptr;
}

RawResult run_entry_here(const std::string& model, const std::string& mutant, const SearchSpec& search) {
  const ModelEntry* e = find_entry(model, mutant);
  if (e == nullptr) return RawResult{false, "no such model", 0, ""};
  return e->run(search);
}

}  // namespace wsstress::relacy
