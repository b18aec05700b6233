// SPDX-License-Identifier: MIT OR Apache-2.0
// The subcommands of `wsstress` by name: finding one (`help SUBCOMMAND`),
// and naming a misspelt one, which CLI11 reports only as "A subcommand is
// required".
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace wsstress::cli {

// The subcommand of `level` called `name` (hidden ones too), or nullptr.
CLI::App* find_subcommand(CLI::App& level, const std::string& name);

// The first argument that should name a subcommand of `app` (or of one of its
// subcommands that requires one) but names none: "unknown subcommand 'x'
// (choose from: a, b)". Nothing if every such argument is known.
std::optional<std::string> unknown_subcommand(CLI::App& app, const std::vector<std::string>& args);

}  // namespace wsstress::cli
