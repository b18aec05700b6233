// SPDX-License-Identifier: MIT OR Apache-2.0
// The files `wsstress sim` writes per failure, named and kept true (
// items 3 and 6): with --keep-going each failing seed gets its own reproducer,
// Perfetto trace and HTML report, named by seed (`one.repro` ->
// `one.seed-17.repro`), so none replaces another; and an output a run did not
// write (every seed passed, or a crash has no trace) that an earlier run of
// wsstress left there is removed and said, since the run's report no longer
// describes it. A file there that wsstress did not write is left alone, said.
#pragma once

#include <cstdint>
#include <set>
#include <string>

namespace wsstress::cli {

// `path` with `.seed-N` before its extension: one.repro -> one.seed-17.repro,
// out/trace.json -> out/trace.seed-17.json, notes -> notes.seed-17. "-" stays.
std::string per_seed_path(const std::string& path, std::uint64_t seed);

// What a file written by wsstress starts with, to know it for ours.
enum class OutputKind { Repro, Trace, Html };

// Whether `path` is a regular file that wsstress wrote as `kind`.
bool written_by_wsstress(const std::string& path, OutputKind kind);

// `option`'s path (given, not "-") when this run did not write it (`written`
// holds what it did): an earlier run's file of ours is removed, another file
// left; either is said on stderr in one line. False if removing it failed.
bool settle_unwritten(const char* option, const std::string& path, OutputKind kind,
                      const std::set<std::string>& written);

}  // namespace wsstress::cli
