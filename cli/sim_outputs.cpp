// SPDX-License-Identifier: MIT OR Apache-2.0
// Per-seed output names and outputs left by an earlier run. See sim_outputs.hpp.
#include "sim_outputs.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "wsstress/core/shown.hpp"

namespace wsstress::cli {

std::string per_seed_path(const std::string& path, std::uint64_t seed) {
  if (path == "-") return path;
  const std::size_t slash = path.rfind('/');
  const std::size_t name = slash == std::string::npos ? 0 : slash + 1;
  const std::size_t dot = path.rfind('.');
  // No extension when the only dot starts the name (".hidden") or is in a folder's name.
  const bool has_ext = dot != std::string::npos && dot > name;
  const std::string tag = ".seed-" + std::to_string(seed);
  return has_ext ? path.substr(0, dot) + tag + path.substr(dot) : path + tag;
}

namespace {
// The first bytes of a regular file (not following a device, FIFO or folder).
std::string head_of(const std::string& path, std::size_t n) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return {};
  std::string head(n, '\0');
  head.resize(std::fread(head.data(), 1, n, f));
  std::fclose(f);
  return head;
}
}  // namespace

bool written_by_wsstress(const std::string& path, OutputKind kind) {
  const std::string head = head_of(path, 4096);
  switch (kind) {
    case OutputKind::Repro: return head.rfind("wsstress-repro ", 0) == 0;
    case OutputKind::Html:
      return head.rfind("<!doctype html>", 0) == 0 && head.find("<title>wsstress") != std::string::npos;
    case OutputKind::Trace:  // trace_perfetto: its keys sorted, the process named first
      return head.rfind("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", 0) == 0 &&
             head.find("\"wsstress sim\"") != std::string::npos;
  }
  return false;
}

bool settle_unwritten(const char* option, const std::string& path, OutputKind kind,
                      const std::set<std::string>& written) {
  if (path.empty() || path == "-" || written.count(path) > 0) return true;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return true;  // nothing there, or not a file to judge
  if (!written_by_wsstress(path, kind)) {
    std::fprintf(stderr,
                 "wsstress: note: %s %s: not written by this run; the file there is not a wsstress output, "
                 "left as it was\n",
                 option, shown(path).c_str());
    return true;
  }
  if (::unlink(path.c_str()) != 0) {
    std::fprintf(stderr,
                 "wsstress: error: %s %s: an earlier run's output, not this run's, and it cannot be "
                 "removed: %s\n",
                 option, shown(path).c_str(), std::strerror(errno));
    return false;
  }
  std::fprintf(stderr,
               "wsstress: note: %s %s: this run wrote none; the file left there by an earlier run was "
               "removed\n",
               option, shown(path).c_str());
  return true;
}

}  // namespace wsstress::cli
