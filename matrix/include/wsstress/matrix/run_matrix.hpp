// SPDX-License-Identifier: MIT OR Apache-2.0
// Running the mutant matrix with one engine: every catalog mutant (and the
// clean pool) in a forked child process of its own, judged against what the
// engine expects of it (engine.hpp). The data it reads and returns is
// stress/matrix.hpp's.
#pragma once

#include <functional>
#include <string>

#include "wsstress/matrix/engine.hpp"

namespace wsstress::matrix {

using matrix::MatrixReport;

// Runs the matrix with `engine` (spec.engine is its name in the report);
// `on_row` is called as each row completes (for progress).
MatrixReport run_matrix(const MatrixSpec& spec, const Engine& engine,
                        const std::function<void(const MatrixRow&)>& on_row);

// The whole file at `path` ("" if it cannot be read): what an engine's child wrote.
std::string slurp(const std::string& path);

}  // namespace wsstress::matrix
