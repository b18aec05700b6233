// SPDX-License-Identifier: MIT OR Apache-2.0
// Every file a subcommand writes (reports, traces, reproducers) goes through
// here, so none of them can replace what was not ours to replace:
//   "-"                          standard output;
//   an existing non-regular file  (a device such as /dev/stdout, a FIFO, or a
//                                 symlink to one) written in place, never renamed over;
//   a regular file or a new name  written to a temporary file beside it, then
//                                 renamed over it (a reader never sees half a report);
//   a directory, or a folder that cannot be written: refused when the options
//   are parsed, before any work (output_path()).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdio>
#include <initializer_list>
#include <string>

#include "wsstress/core/result.hpp"

namespace wsstress::cli {

// Writes `text` to `path` as above. A failed write says why in one line and
// leaves no temporary file behind.
Result<void> write_output(const std::string& path, const std::string& text);

// Writes a report after its run: a failure says on stderr what was not
// written and keeps the run's own exit code `code` (a found hang stays 4); a
// run that passed then exits kInternal. Returns the exit code to use.
int write_report(const char* option, const std::string& path, const std::string& text, int code);

// First thing in main: a standard stream the process was started without
// (`>&-`) gets /dev/null, so that no file the command opens takes its number;
// standard output's is opened read-only, so a write to it still fails.
void reserve_standard_streams();

// Last thing before exit, with the command's exit code: if the text report on
// standard output could not be written (closed, a full disk), says so on
// stderr in one line and returns `code` by write_report's rule (a found
// failure keeps its code; a run that passed exits kInternal).
int text_report_code(int code);

// Why `path` cannot take an output, checked before any work (empty: it can):
// a directory, a kernel file system (/proc, /sys), an unwritable file or
// folder, a symlink loop or a symlink to a file that cannot be made in its
// folder, a name too long for the file system.
std::string output_path_refusal(const std::string& path);

// The option check for an output path (accepts "-"). CLI11's validators
// report a refusal as a non-empty string: that is its contract, not ours.
CLI::Validator output_path();

// Where the text report goes: stdout, or stderr when a report file is "-"
// (stdout then carries that report alone).
std::FILE* text_out();
// One output flag and its path ("" when not given).
struct OutputFlag {
  const char* option;  // "--json"
  const std::string* path;
};
// Called with a subcommand's output flags before it runs: if one is "-", the
// text report moves to stderr; two "-" are an error, and so are two flags
// naming one file (the same path, or two names of one file
// by symlink, `..` or hard link), named both in one line.
Result<void> claim_stdout(std::initializer_list<OutputFlag> outputs);

}  // namespace wsstress::cli
