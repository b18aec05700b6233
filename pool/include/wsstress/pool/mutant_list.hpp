// The mutant policy types the tools instantiate, made from the list in
// mutants.hpp (WSSTRESS_MUTANTS): for each entry X(Type, name, (members), ...)
// a struct `Type` deriving NoMutants with those members, and the names in list
// order. The runner tables (stress/src/runners.cpp), the catalog
// (stress/src/catalog.cpp) and the Relacy models build on these.
//
// Production never includes this header: it instantiates NoMutants only.
#pragma once

#include "wsstress/pool/mutants.hpp"

namespace wsstress::pool::mutants {

using pool::NoMutants;

#define WSSTRESS_UNPAREN(...) __VA_ARGS__
#define WSSTRESS_DEFINE_POLICY(Type, name, members, ...) \
  struct Type : NoMutants {                              \
    WSSTRESS_UNPAREN members                             \
  };
WSSTRESS_MUTANTS(WSSTRESS_DEFINE_POLICY)
#undef WSSTRESS_DEFINE_POLICY
#undef WSSTRESS_UNPAREN

// The names, in list order ("none" first).
#define WSSTRESS_POLICY_NAME(Type, name, ...) #name,
inline constexpr const char* kPolicyNames[] = {WSSTRESS_POLICIES(WSSTRESS_POLICY_NAME)};
#undef WSSTRESS_POLICY_NAME

}  // namespace wsstress::pool::mutants
