// SPDX-License-Identifier: MIT OR Apache-2.0
// SPDX-FileCopyrightText: The Rayon developers; The wsstress developers
// The mutant policy types the tools instantiate, made from the list in
// mutants.hpp (WSSTRESS_MUTANTS): for each entry X(Type, name, (members), ...)
// a struct `Type` deriving NoMutants with those members, and the names in list
// order. The catalog (core/src/catalog.cpp) and the Relacy models build on
// these; the engines' runner tables (threads/src/runners.cpp) run each one as
// RuntimeMutants (below): its compile-time members as template arguments, its
// branch switches set at run time.
//
// Production never includes this header: it instantiates NoMutants only.
#pragma once

#include <cstddef>
#include <type_traits>

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

// A policy's compile-time part: the model knobs and the switches read in
// constant expressions; every branch switch false.
template <unsigned JecBits, bool JecBelowCounters, unsigned RoundsUntilSleepy, std::size_t InjectorLap,
          bool JecIncrementCarries, bool InjectorAcqRel>
struct StaticPart : NoMutants {
  static constexpr unsigned kJecBits = JecBits;
  static constexpr bool kJecBelowCounters = JecBelowCounters;
  static constexpr unsigned kRoundsUntilSleepy = RoundsUntilSleepy;
  static constexpr std::size_t kInjectorLap = InjectorLap;
  static constexpr bool kJecIncrementCarries = JecIncrementCarries;
  static constexpr bool kInjectorAcqRel = InjectorAcqRel;
};
template <class T>
using StaticPartOf = StaticPart<T::kJecBits, T::kJecBelowCounters, T::kRoundsUntilSleepy, T::kInjectorLap,
                                T::kJecIncrementCarries, T::kInjectorAcqRel>;

// The engines' policy: static part S, and every branch switch a variable the
// runner sets before a run (select<T>()). The mutants that share S share one
// instantiation of the pool and of every scenario: 4 instead of 32 per engine.
// The switches are plain globals, written only when they change (between
// campaigns, never while a pool of the previous run is alive) and read by the
// pool's threads after the thread that started them wrote them.
template <class S>
struct RuntimeMutants : S {
#define WSSTRESS_BRANCH_SWITCH_VAR(name, ...) static inline bool name = false;
  WSSTRESS_BRANCH_SWITCHES(WSSTRESS_BRANCH_SWITCH_VAR)
#undef WSSTRESS_BRANCH_SWITCH_VAR

  template <class T>
  static void select() noexcept {
    static_assert(std::is_same_v<StaticPartOf<T>, S>);
#define WSSTRESS_BRANCH_SWITCH_SET(name, ...) \
  if (name != T::name) name = T::name;
    WSSTRESS_BRANCH_SWITCHES(WSSTRESS_BRANCH_SWITCH_SET)
#undef WSSTRESS_BRANCH_SWITCH_SET
  }
};

// Every mutant differs from the clean pool in its static part or in a branch
// switch: a switch missing from both lists would make a mutant run as "none".
template <class T>
constexpr bool differs_from_clean_pool() {
  if (!std::is_same_v<StaticPartOf<T>, StaticPartOf<NoMutants>>) return true;
  bool differs = false;
#define WSSTRESS_BRANCH_SWITCH_CMP(name, ...) differs = differs || T::name;
  WSSTRESS_BRANCH_SWITCHES(WSSTRESS_BRANCH_SWITCH_CMP)
#undef WSSTRESS_BRANCH_SWITCH_CMP
  return differs;
}
#define WSSTRESS_ASSERT_DIFFERS(Type, name, ...) \
  static_assert(differs_from_clean_pool<Type>(), "mutant " #name " sets no switch the engines read");
WSSTRESS_MUTANTS(WSSTRESS_ASSERT_DIFFERS)
#undef WSSTRESS_ASSERT_DIFFERS

}  // namespace wsstress::pool::mutants
