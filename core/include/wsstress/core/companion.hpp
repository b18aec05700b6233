// SPDX-License-Identifier: MIT OR Apache-2.0
// Where a program built beside this one lives (the matrix's runners,
// wsstress-tsan and wsstress-relacy): the environment variable that points at
// one, else the same directory as this program (the build tree), else the
// installed layout's libexec folder. Header-only, so the Relacy client, which
// links nothing of stress/, uses it too.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace wsstress {

// The installed layout, relative to the prefix (the install rules in the
// top-level CMakeLists.txt use the same; the test cli.install checks both).
inline constexpr const char* kInstalledLibexecDir = "libexec/wsstress";  // companions; fuzz targets in fuzz/
inline constexpr const char* kInstalledDataDir = "share/wsstress";       // fuzz/corpus, fuzz/*.dict

// The directory of the running program, with a trailing '/' ("" if unknown).
inline std::string self_dir() {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "";
  const std::string path(self, static_cast<std::size_t>(n));
  return path.substr(0, path.rfind('/') + 1);
}

inline std::string companion_program(const char* name, const char* env_var) {
  if (const char* env = std::getenv(env_var); env != nullptr && *env != '\0') return env;
  const std::string dir = self_dir();
  if (dir.empty()) return name;
  const std::string beside = dir + name;
  if (access(beside.c_str(), X_OK) == 0) return beside;
  const std::string installed = dir + "../" + kInstalledLibexecDir + "/" + name;
  return access(installed.c_str(), X_OK) == 0 ? installed : beside;  // a missing one is named where a build puts it
}

}  // namespace wsstress
