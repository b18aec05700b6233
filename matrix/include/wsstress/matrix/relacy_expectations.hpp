// SPDX-License-Identifier: MIT OR Apache-2.0
// What the matrix's Relacy column (matrix/src/engines/relacy.cpp) expects of every
// mutant: the verdict of the Relacy models that target it (relacy/'s model
// table has the per-model detail and the reasons), Cannot when no model
// targets it (the column then shows "n/m" and runs nothing). A header, so
// that engines/tests checks it against the models' own table in a test that
// links the models, not the engines.
#pragma once

#include "wsstress/matrix/expect.hpp"

namespace wsstress::matrix {

struct RelacyRow {
  MutantId mutant;
  Expect expect;
};

namespace relacy_rows {
using enum MutantId;
using enum Expect;
// clang-format off
inline constexpr RelacyRow kRows[] = {
    {none,                         Pass},
    {no_gate5,                     Catch},
    {no_gate5_narrow_jec,          Catch},
    {no_inject_fence,              Pass},
    {no_sleep_fence,               Pass},
    {late_is_blocked_lock,         Catch},
    {gate5_ignores_broadcasts,     Catch},
    {cross_latch_no_keepalive,     Maybe},
    {scope_latch_no_keepalive,     Maybe},
    {cross_is_cold,                Catch},
    {self_install_blocks,          Cannot},
    {latch_set_no_wake,            Catch},
    {terminate_no_wake,            Catch},
    {lock_latch_set_outside_mutex, Catch},
    {lock_latch_wait_once,         Cannot},
    {cold_latch_no_reset,          Cannot},
    {internal_push_no_jec,         Cannot},
    {spawn_no_catch_unwind,        Cannot},
    {spawn_no_terminate_count,     Cannot},
    {arc_job_no_creator_ref,       Catch},
    {is_sleepy_always_true,        Cannot},
    {jec_carry,                    Cannot},
    {deque_pop_no_fence,           Catch},
    {deque_push_relaxed,           Catch},
    {latch_probe_relaxed,          Catch},
    {count_latch_sub_relaxed,      Catch},
    {narrow_jec,                   Cannot},
    {core_latch_set_seqcst,        Pass},
    {injector_acq_rel,             Pass},
    {no_inject_fence_acq_rel,      Catch},
    {no_sleep_fence_acq_rel,       Pass},
    {epoch_pin_x86_cas,            Catch},
};
// clang-format on
static_assert(one_row_per_mutant(kRows), "one row per mutant of pool/mutants.hpp, in its order");
}  // namespace relacy_rows

constexpr Expect relacy_expect(MutantId id) { return row_of(relacy_rows::kRows, id).expect; }

}  // namespace wsstress::matrix
