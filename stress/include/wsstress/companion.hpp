// Where a program built beside this one lives (the matrix's runners,
// wsstress-tsan and wsstress-relacy): the environment variable that points at
// one, else the same directory as this program. Header-only, so the Relacy
// client, which links nothing of stress/, uses it too.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace wsstress {

inline std::string companion_program(const char* name, const char* env_var) {
  if (const char* env = std::getenv(env_var); env != nullptr && *env != '\0') return env;
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return name;
  const std::string dir(self, static_cast<std::size_t>(n));
  return dir.substr(0, dir.rfind('/') + 1) + name;
}

}  // namespace wsstress
