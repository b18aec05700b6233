// SPDX-License-Identifier: MIT OR Apache-2.0
// The one mechanism of the tool's self-registering tables: the
// simulator's strategies (sim/strategies.hpp), the matrix's engines
// (matrix/engine.hpp) and the Relacy models (relacy/models.hpp). Each is a
// folder of files (sim/src/strategies/, matrix/src/engines/,
// relacy/src/models/), every file adding its entries before main with
// WSSTRESS_REGISTER, and the build links every file of the folder
// (wsstress_registered_files, cmake/registered_files.cmake): adding one is
// adding a file. Header-only, so relacy/ uses it too. Not to be confused with
// the pool's Registry (pool/registry.hpp), rayon's set of worker threads.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace wsstress::core {

// The entries of one kind, by rank. An entry's name and rank are read by
// registry_name(e) and registry_rank(e), declared beside the Entry type and
// found by ADL. Files register in no set order (the linker's), so the ranks
// give the one order of help, completions and tables; a second entry of one
// name or one rank ends the program before main (a build mistake).
template <class Entry>
class Registry {
 public:
  // `program` and `kind` word the refusal: "wsstress: two engines have the name 'tsan'".
  Registry(const char* program, const char* kind) : program_(program), kind_(kind) {}

  // Adds `e`, which lives for the program; called by WSSTRESS_REGISTER.
  bool add(const Entry& e) {
    for (const Entry* other : entries_) {
      if (name_of(*other) == name_of(e)) refuse("name", "'" + std::string(name_of(e)) + "'");
      if (registry_rank(*other) == registry_rank(e)) refuse("rank", std::to_string(registry_rank(e)));
    }
    const auto by_rank = [](const Entry* a, const Entry* b) { return registry_rank(*a) < registry_rank(*b); };
    entries_.insert(std::upper_bound(entries_.begin(), entries_.end(), &e, by_rank), &e);
    return true;
  }
  // Every entry, by rank.
  const std::vector<const Entry*>& all() const noexcept { return entries_; }
  // The entry of that name, or nullptr.
  const Entry* find(std::string_view name) const noexcept {
    for (const Entry* e : entries_) {
      if (name_of(*e) == name) return e;
    }
    return nullptr;
  }

 private:
  static std::string_view name_of(const Entry& e) noexcept { return std::string_view(registry_name(e)); }
  [[noreturn]] void refuse(const char* what, const std::string& value) const {
    std::fprintf(stderr, "%s: two %s have the %s %s\n", program_, kind_, what, value.c_str());
    std::abort();
  }

  const char* program_;
  const char* kind_;
  std::vector<const Entry*> entries_;
};

}  // namespace wsstress::core

// Registers `var`, an entry of `registry` (an expression naming a
// core::Registry, e.g. a function returning its function-local one, which
// exists before the first file's initializer runs), from its own file: `Type`
// is its type (`auto` when the initializer names it), `var` a name unique in
// the folder's files, the rest its initializer. The entry lives for the
// program. The folder's files are linked whole (wsstress_registered_files),
// so none is dropped for want of a reference. Each kind wraps this in its own
// macro (WSSTRESS_REGISTER_STRATEGY, _ENGINE, _MODEL).
#define WSSTRESS_REGISTER(registry, Type, var, ...)                   \
  namespace {                                                         \
  const Type var = __VA_ARGS__;                                       \
  [[maybe_unused]] const bool var##_registered = (registry).add(var); \
  }
