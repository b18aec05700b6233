// SPDX-License-Identifier: MIT OR Apache-2.0
// The runner's side of the models (wsstress_relacy): the registry the files
// of models/ add their declarations to (WSSTRESS_REGISTER_MODEL, models.hpp),
// the table of (model, mutant) instantiations and the model list built from
// it, and a search run in this process. A model's claim, configuration, CI
// search and entries live in its own file; this one only looks them up.
// wsstress-relacy (runner_main.cpp) serves them to the client (client.cpp),
// which wsstress links instead of the models.
#include <string>
#include <vector>

#include "wsstress/relacy/models.hpp"

namespace wsstress::relacy {

core::Registry<ModelDecl>& model_registry() {
  // Function-local, so that it exists before the first model file's
  // initializer runs, whichever file that is.
  static core::Registry<ModelDecl> registry("wsstress-relacy", "models");
  return registry;
}

const std::vector<ModelEntry>& model_table() {
  static const std::vector<ModelEntry> table = [] {
    std::vector<ModelEntry> t;
    for (const ModelDecl* m : model_registry().all()) {
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
    for (const ModelDecl* m : model_registry().all()) {
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
